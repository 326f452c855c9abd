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
import { loadServerConfig } from '../config-file.js';
import type { App } from '../context.js';
import { waitForShutdown } from '../shutdown.js';
import { schedGroup } from './sched-common.js';

/** Adds `sched agent` to `program` (reusing the `sched` group another file may have made). */
export function addSchedAgentCommand(app: App, program: Command): void {
  schedGroup(program)
    .command('agent')
    .description('run the scheduler service from a configuration file')
    .requiredOption('--config <file>', 'HCL or JSON configuration file')
    .action(async (opts: { config: string }) => {
      app.exitCode = await runAgent(app, opts.config);
    });
}

async function runAgent(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadSchedAgentConfig } = await import('../../services/sched/config.js');
  const config = await loadServerConfig(() => loadSchedAgentConfig(file, app.env, hostname()));
  const { createLogger } = await import('../../kernel/log/logger.js');
  const { startSchedAgent } = await import('../../services/sched/agent.js');
  const log = createLogger(config.logLevel as 'info');
  const agent = await startSchedAgent({ config, log });
  app.io.stdout(`==> Cairn scheduler agent started (config ${file}, region ${config.region}, datacenter ${config.datacenter}, data ${config.dataDir}).\n`);
  app.io.stdout(`    HTTP API: ${agent.url}\n`);
  await waitForShutdown(app);
  log.info('scheduler service stopping');
  await agent.close();
  return 0;
}
