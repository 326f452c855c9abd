/**
 * `cairn sched agent -config=FILE`: runs the scheduler service from its HCL/JSON agent
 * configuration (services/sched/config.ts), prints its HTTP address, and runs until
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
import { SCHED_GROUP_DESCRIPTION } from './sched-common.js';

/** Adds `sched agent` to `program` (reusing the `sched` group another file may have made). */
export function addSchedAgentCommand(app: App, program: Command): void {
  addServerCommand(app, program, {
    group: { name: 'sched', description: SCHED_GROUP_DESCRIPTION },
    name: 'agent',
    description: 'run the scheduler service from a configuration file',
    run: runAgent,
  });
}

async function runAgent(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadSchedAgentConfig } = await import('../../services/sched/config.js');
  return runServer(app, {
    load: () => loadSchedAgentConfig(file, app.env, hostname()),
    logLevel: (config) => config.logLevel as 'info',
    start: async (config, log) => {
      const { startSchedAgent } = await import('../../services/sched/agent.js');
      return startSchedAgent({ config, log });
    },
    announce: (config, agent) => {
      app.io.stdout(`==> Cairn scheduler agent started (config ${file}, region ${config.region}, datacenter ${config.datacenter}, data ${config.dataDir}).\n`);
      app.io.stdout(`    HTTP API: ${agent.url}\n`);
    },
    stop: closing('scheduler service stopping'),
  });
}
