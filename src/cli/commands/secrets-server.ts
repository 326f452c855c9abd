/**
 * `cairn secrets server -config=FILE`: runs the secrets service from its HCL/JSON config
 * file (services/secrets/config.ts): opens the storage (`storage "sqlite"`: the file at
 * `path`; `storage "postgresql"`: the table at `connection_url`), starts
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
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { App } from '../context.js';
import { addServerCommand, closing, runServer } from '../server-command.js';
import type { Logger } from '../../kernel/log/logger.js';
import { VERSION } from '../../kernel/version/index.js';
import type { Backend, PostgresBackend } from '../../kernel/store/index.js';
import type { SecretsStorageConfig } from '../../services/secrets/config.js';

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
  let storageText = '';
  return runServer(app, {
    load: () => loadSecretsServerConfig(file, app.env),
    logLevel: (config) => config.logLevel,
    start: async (config, log) => {
      const { startSecretsService } = await import('../../services/secrets/service.js');
      const { backend, description } = await openStorage(config.storage, log);
      storageText = description;
      // `ha_enabled`: the lock is tried once unsealed; the published address is `api_addr`,
      // else the first listener's URL (known once it listens).
      let firstUrl = '';
      const ha =
        config.storage.type === 'postgresql' && config.storage.haEnabled
          ? {
              lock: (backend as PostgresBackend).haLock({
                address: () => config.apiAddr ?? firstUrl,
                clusterAddress: () => config.clusterAddr ?? '',
                retryMs: haRetryMs(app.env),
                // A standby's echo to the active server (sys/ha-status): every 5 retries, 5 s by default as the reference's heartbeat.
                echo: { nodeId: randomUUID(), hostname: hostname(), version: VERSION, intervalMs: 5 * haRetryMs(app.env) },
              }),
            }
          : undefined;
      try {
        const service = await startSecretsService({
          backend,
          listeners: config.listeners.map(toListenerOptions),
          log,
          managedNamespaces: config.managedNamespaces,
          storageType: config.storage.type,
          ha,
          // PostgreSQL's change feed: the state header's index, and a performance standby's cache invalidation.
          changeFeed: config.storage.type === 'postgresql' ? (backend as PostgresBackend) : undefined,
          performanceStandby: !config.disablePerformanceStandby,
          requestForwarding: !config.disableClustering,
          apiAddr: config.apiAddr,
          reopenAuditOnSighup: true,
          // `ui_services`: the other services' sections, proxied under /ui/proxy/<service>/.
          ui: config.ui ? { self: 'secrets', others: () => config.uiServices ?? {} } : undefined,
        });
        firstUrl = service.listeners[0]?.url ?? '';
        return service;
      } catch (err) {
        await backend.close();
        throw err;
      }
    },
    announce: (config, service, log) => {
      app.io.stdout(`==> Cairn secrets server started (config ${file}, storage ${storageText}).\n`);
      for (const [i, l] of service.listeners.entries()) {
        const c = config.listeners[i];
        app.io.stdout(`    Listener ${i + 1}: ${l.url}${c.requireRequestHeader ? ' (require_request_header)' : ''}\n`);
        log.info({ url: l.url, address: c.address, tls: c.tls !== undefined, require_request_header: c.requireRequestHeader }, 'secrets service listening');
      }
    },
    stop: closing('secrets service stopping'),
  });
}

/** Pause between a standby's lock tries: `CAIRN_SECRETS_HA_RETRY_MS` (tests), default 1000. */
function haRetryMs(env: Readonly<Record<string, string | undefined>>): number {
  const v = Number(env.CAIRN_SECRETS_HA_RETRY_MS);
  return Number.isInteger(v) && v > 0 ? v : 1000;
}

/**
 * Opens the configured storage: `storage "sqlite"` → `SqliteBackend` at `path`;
 * `storage "postgresql"` → `PostgresBackend` on `table` (created when missing). Resolves
 * with the backend and what the start banner says about it (the file, or
 * `postgresql user@host:port/database table T`: never the password). `ha_enabled` is
 * acted on by the caller (the HA lock, kernel/store/pg-lock.ts).
 * @throws Error naming the storage (file path, or `user@host:port/database` of the URL,
 *   never its password) and the reason.
 */
async function openStorage(storage: SecretsStorageConfig, log: Logger): Promise<{ backend: Backend; description: string }> {
  const { PostgresBackend, SqliteBackend } = await import('../../kernel/store/index.js');
  if (storage.type === 'sqlite') {
    try {
      return { backend: SqliteBackend.open({ path: storage.path }), description: storage.path };
    } catch (err) {
      throw new Error(`cannot open storage "sqlite" at ${storage.path}: ${(err as Error).message}`);
    }
  }
  let backend: PostgresBackend;
  try {
    backend = await PostgresBackend.open({ connectionUrl: storage.connectionUrl, table: storage.table, maxParallel: storage.maxParallel, log });
  } catch (err) {
    throw new Error(`cannot open storage "postgresql": ${(err as Error).message}`);
  }
  return { backend, description: `postgresql ${backend.target} table ${backend.table}` };
}
