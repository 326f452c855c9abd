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
import { loadServerConfig } from '../config-file.js';
import type { App } from '../context.js';
import { waitForShutdown } from '../shutdown.js';

/** Adds `mesh agent` to `program` (reusing a `mesh` group another file may have made). */
export function addMeshAgentCommand(app: App, program: Command): void {
  const group = program.commands.find((c) => c.name() === 'mesh') ?? program.command('mesh').description('discovery service commands');
  group
    .command('agent')
    .description('run the discovery service from a configuration file')
    .requiredOption('--config <file>', 'HCL or JSON configuration file')
    .action(async (opts: { config: string }) => {
      app.exitCode = await runAgent(app, opts.config);
    });
}

async function runAgent(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadMeshAgentConfig } = await import('../../services/mesh/config.js');
  const config = await loadServerConfig(() => loadMeshAgentConfig(file, app.env, hostname()));
  const { createLogger } = await import('../../kernel/log/logger.js');
  const { startMeshAgent } = await import('../../services/mesh/agent.js');
  const log = createLogger(config.logLevel as 'info');
  const agent = await startMeshAgent({ config, log });
  app.io.stdout(`==> Cairn discovery agent started (config ${file}, datacenter ${config.datacenter}, data ${config.dataDir}).\n`);
  app.io.stdout(`    HTTP API: ${agent.url}\n`);
  await waitForShutdown(app);
  log.info('discovery service stopping');
  await agent.close();
  return 0;
}
