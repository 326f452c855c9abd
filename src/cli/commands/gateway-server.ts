/**
 * `cairn gateway server -config=FILE`: runs the access gateway (controller, worker, or
 * both) from its HCL/JSON config file (services/gateway/config.ts), logs each bound
 * listener as `{"purpose":…,"url":…,"msg":"gateway listening"}` (pino, stderr) and prints
 * it on stdout, and runs until SIGINT/SIGTERM (or `io.shutdown` aborts). Then the
 * graceful path of reference/gateway.md §5: `/health` answers 503 during
 * `graceful_shutdown_wait_duration`, then everything stops. A second signal cuts the
 * wait short and the command exits 1 ("Forcing shutdown").
 *
 * Environment: `env://VAR` values in the file (`auth_token`) are read from it;
 * `CAIRN_GATEWAY_STATUS_INTERVAL_MS` overrides the worker's 2 s status interval (tests).
 *
 * Exit codes: 2 when the configuration is unusable (one line on stderr naming file, line
 * and key); 1 when a listener cannot start or shutdown was forced; 0 after a clean stop.
 *
 * @module
 */
import type { Command } from 'commander';
import { loadServerConfig } from '../config-file.js';
import type { App } from '../context.js';
import { waitForShutdown } from '../shutdown.js';

/** Adds `gateway server` to `program` (reusing a `gateway` group another file may have made). */
export function addGatewayServerCommand(app: App, program: Command): void {
  const group = program.commands.find((c) => c.name() === 'gateway') ?? program.command('gateway').description('access gateway commands');
  group
    .command('server')
    .description('run the access gateway controller and/or worker from a configuration file')
    .requiredOption('--config <file>', 'HCL or JSON configuration file')
    .action(async (opts: { config: string }) => {
      app.exitCode = await runServer(app, opts.config);
    });
}

async function runServer(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadGatewayServerConfig } = await import('../../services/gateway/config.js');
  const config = await loadServerConfig(() => loadGatewayServerConfig(file, app.env));
  const interval = app.env.CAIRN_GATEWAY_STATUS_INTERVAL_MS;
  const statusIntervalMs = interval && /^\d+$/.test(interval) ? Number(interval) : undefined;
  const { createLogger } = await import('../../kernel/log/logger.js');
  const { startGateway } = await import('../../services/gateway/server.js');
  const log = createLogger('info');
  const gateway = await startGateway({ config, log, statusIntervalMs });
  const parts = [config.controller && `controller ${gateway.controllerName}`, gateway.worker && `worker ${gateway.worker.name}`].filter(Boolean);
  app.io.stdout(`==> Cairn gateway server started (config ${file}; ${parts.join(', ')}).\n`);
  for (const l of gateway.listeners) app.io.stdout(`    Listener ${l.purpose}: ${l.url}\n`);

  await waitForShutdown(app);
  let forced = false;
  const again = () => {
    forced = true;
    app.io.stderr('==> Forcing shutdown\n');
    gateway.force();
  };
  process.once('SIGINT', again);
  process.once('SIGTERM', again);
  try {
    await gateway.shutdown();
  } finally {
    process.off('SIGINT', again);
    process.off('SIGTERM', again);
  }
  return forced ? 1 : 0;
}
