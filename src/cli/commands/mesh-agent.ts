/**
 * `cairn mesh agent -config=FILE`: runs the discovery service from its HCL/JSON agent
 * configuration (services/mesh/config.ts), prints its HTTP address, and runs until
 * SIGINT/SIGTERM (or `io.shutdown` aborts). One of the commands that start services
 * in-process (DESIGN.md "Commands").
 *
 * Exit codes: 2 when the configuration is unusable (one line naming file, line and key);
 * 1 when the data directory or the HTTP address cannot be used; 0 after a clean stop.
 *
 * @module
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { App } from '../context.js';
import { addServerCommand, closing, runServer } from '../server-command.js';

/** Adds `mesh agent` to `program` (reusing a `mesh` group another file may have made). */
export function addMeshAgentCommand(app: App, program: Command): void {
  addServerCommand(app, program, {
    group: { name: 'mesh', description: 'discovery service commands' },
    name: 'agent',
    description: 'run the discovery service from a configuration file',
    run: runAgent,
  });
}

async function runAgent(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadMeshAgentConfig } = await import('../../services/mesh/config.js');
  return runServer(app, {
    load: () => loadMeshAgentConfig(file, app.env, hostname()),
    logLevel: (config) => config.logLevel as 'info',
    start: async (config, log) => {
      const { startMeshAgent } = await import('../../services/mesh/agent.js');
      return startMeshAgent({ config, log });
    },
    announce: (config, agent) => {
      app.io.stdout(`==> Cairn discovery agent started (config ${file}, datacenter ${config.datacenter}, data ${config.dataDir}).\n`);
      app.io.stdout(`    HTTP API: ${agent.url}\n`);
      if (agent.dnsAddress) app.io.stdout(`    DNS:      ${agent.dnsAddress} (UDP and TCP, domain ${config.dns?.domain})\n`);
    },
    stop: closing('discovery service stopping'),
  });
}
