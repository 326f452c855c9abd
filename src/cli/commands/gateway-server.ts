/**
 * `cairn gateway server -config=FILE`: runs the access gateway (controller, worker, or
 * both) from its HCL/JSON config file (services/gateway/config.ts), logs each bound
 * listener as `{"purpose":…,"url":…,"msg":"gateway listening"}` (pino, stderr) and prints
 * it on stdout, and runs until SIGINT/SIGTERM (or `io.shutdown` aborts). Then the
 * graceful path of reference/gateway.md §5: `/health` answers 503 during
 * `graceful_shutdown_wait_duration`, then everything stops. A second signal cuts the
 * wait short and the command exits 1 ("Forcing shutdown").
 *
 * On the first start of a controller (its initial resources made) the admin login is
 * printed once on stdout, never logged.
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
import type { App } from '../context.js';
import { addServerCommand, runServer } from '../server-command.js';

/** Adds `gateway server` to `program` (reusing a `gateway` group another file may have made). */
export function addGatewayServerCommand(app: App, program: Command): void {
  addServerCommand(app, program, {
    group: { name: 'gateway', description: 'access gateway commands' },
    name: 'server',
    description: 'run the access gateway controller and/or worker from a configuration file',
    run: runGateway,
  });
}

async function runGateway(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadGatewayServerConfig } = await import('../../services/gateway/config.js');
  return runServer(app, {
    load: () => loadGatewayServerConfig(file, app.env),
    start: async (config, log) => {
      const interval = app.env.CAIRN_GATEWAY_STATUS_INTERVAL_MS;
      const statusIntervalMs = interval && /^\d+$/.test(interval) ? Number(interval) : undefined;
      const { startGateway } = await import('../../services/gateway/server.js');
      // The initial admin password goes to stdout once, never to the log (docs/deploy.md).
      const onBootstrap = (l: { authMethodId: string; loginName: string; password: string; orgId: string; projectId: string }) =>
        app.io.stdout(
          [
            '==> The controller made its initial resources (first start):',
            `    Auth method ID:  ${l.authMethodId}`,
            `    Login name:      ${l.loginName}`,
            `    Password:        ${l.password}`,
            `    Org scope:       ${l.orgId}`,
            `    Project scope:   ${l.projectId}`,
            '    This password is shown only once: log in and change it.',
            '',
          ].join('\n'),
        );
      return startGateway({ config, log, statusIntervalMs, onBootstrap });
    },
    announce: (config, gateway) => {
      const parts = [config.controller && `controller ${gateway.controllerName}`, gateway.worker && `worker ${gateway.worker.name}`].filter(Boolean);
      app.io.stdout(`==> Cairn gateway server started (config ${file}; ${parts.join(', ')}).\n`);
      for (const l of gateway.listeners) app.io.stdout(`    Listener ${l.purpose}: ${l.url}\n`);
    },
    // The graceful path: a second signal cuts the wait short and the command exits 1.
    stop: async (gateway) => {
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
    },
  });
}
