/**
 * The shape the commands that run one service share (`secrets server`, `gateway server`,
 * `mesh agent`, `sched agent`): a `--config FILE` leaf in the service's group, and a run
 * that loads the configuration, starts the service with a logger, prints how to reach it,
 * waits for SIGINT/SIGTERM (or `io.shutdown`) and stops it.
 *
 * Exit codes: 2 when the configuration is unusable ({@link loadServerConfig}); 1 when the
 * service cannot start (what `start` throws reaches main.ts); else what `stop` returns.
 * Every server logs Cairn's version and build first (`starting Cairn`, kernel/version).
 *
 * This module loads no service code: each command passes its own loader and starter, which
 * import the service on demand (test/architecture.test.ts).
 *
 * @module
 */
import type { Command } from 'commander';
import type { Logger, LogLevel } from '../kernel/log/logger.js';
import { logVersion } from '../kernel/version/index.js';
import { loadServerConfig } from './config-file.js';
import { type App, commandGroup } from './context.js';
import { waitForShutdown } from './shutdown.js';

/** A `<group> <name> --config FILE` command (see {@link addServerCommand}). */
export interface ServerCommand {
  /** The group, made when no other file has made it yet (`secrets`, `mesh`, …). */
  readonly group: { readonly name: string; readonly description: string };
  /** The command's name (`server`, `agent`). */
  readonly name: string;
  readonly description: string;
  /** Runs the service from the config file; resolves to the exit code. */
  readonly run: (app: App, file: string) => Promise<number>;
}

/** Adds `c.group.name c.name --config <file>` to `program`; its action sets `app.exitCode` to what `run` resolves to. */
export function addServerCommand(app: App, program: Command, c: ServerCommand): Command {
  return commandGroup(program, c.group.name, c.group.description)
    .command(c.name)
    .description(c.description)
    .requiredOption('--config <file>', 'HCL or JSON configuration file')
    .action(async (opts: { config: string }) => {
      app.exitCode = await c.run(app, opts.config);
    });
}

/** One service's lifecycle for {@link runServer}; `C` is its configuration, `S` the running service. */
export interface ServerLifecycle<C, S> {
  /** Reads and checks the config file; a config error (file, line, key) exits 2. */
  readonly load: () => C;
  /** Level of the process logger (pino, stderr); default `info`. */
  readonly logLevel?: (config: C) => LogLevel;
  /** Starts the service; what it throws ends the command (exit 1). */
  readonly start: (config: C, log: Logger) => Promise<S>;
  /** Prints the banner once the service runs (stdout; logs through `log`). */
  readonly announce: (config: C, service: S, log: Logger) => void;
  /** Stops the service after the first signal; resolves to the exit code (see {@link closing}). */
  readonly stop: (service: S, log: Logger) => Promise<number>;
}

/** Runs a service until SIGINT/SIGTERM (or `app.io.shutdown`): load → logger → start → announce → wait → stop. */
export async function runServer<C, S>(app: App, l: ServerLifecycle<C, S>): Promise<number> {
  const config = await loadServerConfig(l.load);
  // Loaded on demand, like the service code, so client commands never load them.
  const { createLogger } = await import('../kernel/log/logger.js');
  const log = createLogger(l.logLevel?.(config) ?? 'info');
  logVersion(log);
  const service = await l.start(config, log);
  l.announce(config, service, log);
  await waitForShutdown(app);
  return l.stop(service, log);
}

/** The usual {@link ServerLifecycle.stop}: logs `message` at info, closes the service, exits 0. */
export function closing(message: string): (service: { close(): Promise<void> }, log: Logger) => Promise<number> {
  return async (service, log) => {
    log.info(message);
    await service.close();
    return 0;
  };
}
