/**
 * One `pg` connection pool per connection configuration, kept in the core's engine
 * resources under `<mount uuid>/<config name>` (engine-resources.ts): made on first use
 * on the active server, dropped when the configuration changes, is reset or deleted, and
 * closed with the core (seal, step-down, shutdown). The reference keeps one plugin
 * instance with its `sql.DB` per connection the same way (`reset` closes and reopens it).
 *
 * @module
 */
import pg from 'pg';
import type { EngineResource, EngineResources } from '../engine-resources.js';
import type { MountEntry } from '../mounts/table.js';
import type { ConnectionConfig } from './config.js';

/** How long a connection attempt may take, ms: a database that cannot be reached answers with an error instead of hanging the request. */
const CONNECT_TIMEOUT_MS = 5000;
/** How long an idle connection stays open, ms (pg's pool has no idle count; see docs/compatibility.md). */
const IDLE_TIMEOUT_MS = 30_000;

/** The URL `pg` connects with: `{{username}}` / `{{password}}` replaced (URL-escaped unless `disable_escaping`). */
function connectionString(c: ConnectionConfig): string {
  const esc = (s: string) => (c.disable_escaping ? s : encodeURIComponent(s));
  return c.connection_url.replace(/\{\{\s*username\s*\}\}/g, () => esc(c.username)).replace(/\{\{\s*password\s*\}\}/g, () => esc(c.password));
}

/** A pool as an engine resource. */
class DbPool implements EngineResource {
  readonly pool: pg.Pool;
  constructor(c: ConnectionConfig) {
    this.pool = new pg.Pool({
      connectionString: connectionString(c),
      max: c.max_open_connections,
      idleTimeoutMillis: c.max_idle_connections < 0 ? 1 : IDLE_TIMEOUT_MS,
      maxLifetimeSeconds: c.max_connection_lifetime,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'cairn-secrets',
    });
    // An idle connection the server closed (a restart, a terminated backend) is dropped by
    // the pool; without a listener the 'error' event would end the process.
    this.pool.on('error', () => undefined);
  }
  close(): Promise<void> {
    return this.pool.end();
  }
}

const keyOf = (mount: MountEntry, name: string) => `${mount.uuid}/${name}`;

/** The pool of connection `name` of `mount` (opened on first use). */
export function poolFor(resources: EngineResources, mount: MountEntry, name: string, c: ConnectionConfig): pg.Pool {
  return resources.get(keyOf(mount, name), () => new DbPool(c)).pool;
}

/** Closes the pool of connection `name` (its configuration changed, was reset or deleted); the next use reopens it from storage. */
export function dropPool(resources: EngineResources, mount: MountEntry, name: string): Promise<void> {
  return resources.drop(keyOf(mount, name));
}

/**
 * Connects once with `c` and runs `SELECT 1` (`verify_connection`).
 * @throws Error with pg's message when the database cannot be reached or refuses the login.
 */
export async function verifyConnection(c: ConnectionConfig): Promise<void> {
  const client = new pg.Client({ connectionString: connectionString(c), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}
