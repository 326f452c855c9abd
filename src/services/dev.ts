/**
 * `cairn dev`: every service in one process on the embedded default (SQLite files in a
 * data directory, plain HTTP on loopback), ready to use with no other setup.
 *
 * @module
 */
import { join } from 'node:path';
import { createLogger, type Logger } from '../kernel/log/logger.js';
import { SqliteBackend } from '../kernel/store/index.js';
import { startSecretsService } from './secrets/service.js';

/** Options of {@link startDev}. */
export interface DevOptions {
  /** Directory for the SQLite files; created when missing. */
  readonly dataDir: string;
  /** `host:port` of the secrets service (default in the CLI: `127.0.0.1:8200`). */
  readonly secretsAddress: string;
  /** A fixed root token (for scripts); otherwise a new random one is made at each start. */
  readonly rootTokenId?: string;
  readonly log?: Logger;
}

/** The running dev services. */
export interface DevHandle {
  readonly secrets: { readonly url: string; readonly rootToken: string };
  close(): Promise<void>;
}

/**
 * Starts the dev services. On first start of a data directory the secrets service gets
 * a KV v2 mount at `secret/` (reference/secrets.md §2.1, dev server). Every start makes
 * a root token (or reuses `rootTokenId` when it already exists), which the caller prints
 * once: tokens are stored hashed and cannot be shown again.
 */
export async function startDev(options: DevOptions): Promise<DevHandle> {
  const log = options.log ?? createLogger('info');
  const backend = SqliteBackend.open({ path: join(options.dataDir, 'secrets.db') });
  const secrets = await startSecretsService({ backend, listeners: [{ address: options.secretsAddress }], log });
  try {
    const { core } = secrets;
    const now = core.now();
    if (!core.mounts.get('secret/')) {
      await core.mountEngine('secret/', { type: 'kv', options: { version: '2' }, description: 'key/value secret storage' });
    }
    const existing = options.rootTokenId ? await core.tokens.lookup(options.rootTokenId, now) : undefined;
    const root =
      existing && existing.policies.includes('root')
        ? existing
        : await core.tokens.create({ policies: ['root'], id: options.rootTokenId, displayName: 'root', path: 'auth/token/root', now });
    return {
      secrets: { url: secrets.listeners[0].url, rootToken: root.id },
      close: () => secrets.close(),
    };
  } catch (err) {
    await secrets.close();
    throw err;
  }
}
