/**
 * `cairn secrets server -config=FILE`: runs the secrets service from its HCL/JSON config
 * file (services/secrets/config.ts): opens the SQLite backend at `storage.path`, starts
 * every listener, logs each listener's URL (pino, at `log_level`), and runs until
 * SIGINT/SIGTERM (or `io.shutdown` aborts). One of the commands that start services
 * in-process (DESIGN.md "Rules of the house", "Commands").
 *
 * Exit codes: 2 when the configuration is unusable (one line on stderr naming file, line
 * and key, e.g. `Error: secrets.hcl:7: unknown key "adress" in listener "tcp"`); 1 when
 * the storage cannot be opened or a listener cannot start; 0 after a clean stop.
 *
 * @module
 */
import type { Command } from 'commander';
import type { App } from '../context.js';
import { addServerCommand, closing, runServer } from '../server-command.js';

/** Adds `secrets server` to `program` (reusing a `secrets` group another file may have made). */
export function addSecretsServerCommand(app: App, program: Command): void {
  addServerCommand(app, program, {
    group: { name: 'secrets', description: 'secrets service commands' },
    name: 'server',
    description: 'run the secrets service from a configuration file',
    run: runSecrets,
  });
}

async function runSecrets(app: App, file: string): Promise<number> {
  // Loaded on demand so client commands never load the server code.
  const { loadSecretsServerConfig, toListenerOptions } = await import('../../services/secrets/config.js');
  return runServer(app, {
    load: () => loadSecretsServerConfig(file),
    logLevel: (config) => config.logLevel,
    start: async (config, log) => {
      const { SqliteBackend } = await import('../../kernel/store/index.js');
      const { startSecretsService } = await import('../../services/secrets/service.js');
      let backend;
      try {
        backend = SqliteBackend.open({ path: config.storage.path });
      } catch (err) {
        throw new Error(`cannot open storage "sqlite" at ${config.storage.path}: ${(err as Error).message}`);
      }
      try {
        return await startSecretsService({ backend, listeners: config.listeners.map(toListenerOptions), log, managedNamespaces: config.managedNamespaces });
      } catch (err) {
        await backend.close();
        throw err;
      }
    },
    announce: (config, service, log) => {
      app.io.stdout(`==> Cairn secrets server started (config ${file}, storage ${config.storage.path}).\n`);
      for (const [i, l] of service.listeners.entries()) {
        const c = config.listeners[i];
        app.io.stdout(`    Listener ${i + 1}: ${l.url}${c.requireRequestHeader ? ' (require_request_header)' : ''}\n`);
        log.info({ url: l.url, address: c.address, tls: c.tls !== undefined, require_request_header: c.requireRequestHeader }, 'secrets service listening');
      }
    },
    stop: closing('secrets service stopping'),
  });
}
