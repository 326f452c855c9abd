/**
 * The `storage "postgresql"` block the discovery and scheduler agents share (issue 8
 * scope 3): several agents of one datacenter / region keep one state in a PostgreSQL table
 * (kernel/store/leadership.ts). Same keys as the secrets server's block (reference: Vault's
 * `storage "postgresql"`), without `ha_enabled`: an agent on PostgreSQL always elects a leader.
 *
 * ```hcl
 * storage "postgresql" {
 *   connection_url = "env://CAIRN_PG_URL"   # postgres://user:password@host:5432/db
 *   table          = "cairn_mesh"
 *   max_parallel   = 10
 * }
 * ```
 *
 * @module
 */
import { decodeStateKey } from '../store/state-key.js';
import { blockError, cfg, type BlockAt, type BlockBody } from './schema.js';
import { resolveSecretRef, type ConfigEnv } from './secret-ref.js';

/** The keys of an agent's `storage "postgresql"` block; `table` defaults to `defaultTable`. */
export function agentPostgresKeys<const T extends string>(defaultTable: T) {
  return {
    connection_url: cfg.string({ required: true, doc: 'postgres:// URL; env://VAR or file://PATH keep the password out of this file' }),
    table: cfg.string({
      default: defaultTable,
      doc: 'table holding the state (name or schema.name); created when missing; one per service and datacenter / region',
    }),
    max_parallel: cfg.int({ default: 10, min: 1, doc: 'most connections (statements in flight) to PostgreSQL' }),
  };
}

/** An agent's PostgreSQL storage, validated. */
export interface AgentPostgresStorage {
  /** The resolved `connection_url` (after `env://` / `file://`); holds the password: never log it. */
  readonly connectionUrl: string;
  readonly table: string;
  readonly maxParallel: number;
}

/**
 * Resolves and checks a `storage "postgresql"` block body.
 * @throws {ConfigError} naming the file, line and key: an unset `env://` variable, an
 *   unreadable `file://`, a URL that is not postgres:// or postgresql://.
 */
export function agentPostgresStorage(body: BlockBody<ReturnType<typeof agentPostgresKeys>>, env: ConfigEnv): AgentPostgresStorage {
  let connectionUrl: string;
  try {
    connectionUrl = resolveSecretRef(body.connection_url, env).trim();
  } catch (err) {
    throw blockError(body.$at, 'connection_url', `"connection_url": ${(err as Error).message}`);
  }
  if (!/^postgres(ql)?:\/\/./i.test(connectionUrl)) {
    throw blockError(body.$at, 'connection_url', '"connection_url" must be a postgres:// or postgresql:// URL');
  }
  return { connectionUrl, table: body.table, maxParallel: body.max_parallel };
}

/**
 * The schema field of an agent's state key setting (the discovery agent's `encrypt`, the
 * scheduler's `server.encrypt`: where the reference products take their gossip key).
 */
export const stateKeyField = () =>
  cfg.string({
    doc:
      'key the state is encrypted with at rest: base64 of 32 bytes (`openssl rand -base64 32`); env://VAR or file://PATH keep it out of this file. ' +
      'Agents sharing a storage "postgresql" table need the same key. Default: the key file in data_dir, made on first start',
  });

/**
 * Resolves a state key setting `key` of the block at `at` (`env://` / `file://` / the value).
 * @returns the 32-byte key; undefined when the setting is absent.
 * @throws {ConfigError} at the key's line: an unset variable, an unreadable file, not base64 of 32 bytes.
 */
export function agentStateKey(value: string | undefined, at: BlockAt, key: string, env: ConfigEnv): Buffer | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeStateKey(resolveSecretRef(value, env));
  } catch (err) {
    throw blockError(at, key, `"${key}": ${(err as Error).message}`);
  }
}
