/**
 * What every database operation starts with: the stored connection configuration of a
 * role's `db_name` and its pool (pool.ts), only ever on the active server.
 *
 * @module
 */
import type pg from 'pg';
import { badRequest } from '../../../kernel/http/index.js';
import type { Backend } from '../../../kernel/store/index.js';
import type { EngineResources } from '../engine-resources.js';
import { ReadOnlyBackend, ReadOnlyStorageError } from '../ha/storage-guard.js';
import type { MountEntry } from '../mounts/table.js';
import type { SecretsCore } from '../core.js';
import { configStore, type ConnectionConfig } from './config.js';
import { poolFor } from './pool.js';

/** Where an operation runs: a mount, its storage and the core's open resources. */
export interface DbContext {
  readonly mount: MountEntry;
  readonly storage: Backend;
  readonly resources: EngineResources;
}

/**
 * Throws {@link ReadOnlyStorageError} on a performance standby's read-only core, so a
 * read with an outside effect (`creds/:name` creates a database user) is forwarded to
 * the active server before anything happens in the database.
 */
export function activeOnly(core: SecretsCore): void {
  if (core.backend instanceof ReadOnlyBackend) throw new ReadOnlyStorageError();
}

/**
 * The configuration `dbName` and its pool.
 * Errors: 400 `failed to find entry for connection with name: "<db>"` (the reference's text).
 */
export async function connectionOf(ctx: DbContext, dbName: string): Promise<{ config: ConnectionConfig; pool: pg.Pool }> {
  const config = await configStore(ctx.storage).get(dbName);
  if (!config) throw badRequest(`failed to find entry for connection with name: "${dbName}"`);
  return { config, pool: poolFor(ctx.resources, ctx.mount, dbName, config) };
}
