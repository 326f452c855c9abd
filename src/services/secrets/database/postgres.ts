/**
 * The PostgreSQL plugin's operations on users (the reference's
 * plugins/database/postgresql: `NewUser`, `UpdateUser`, `DeleteUser`), over a `pg` pool.
 * Statements run in one transaction, as the reference's (`BEGIN` … `COMMIT`, rolled back
 * on the first error); the default revocation runs its statements one by one so as much
 * access as possible goes even when one fails, then drops the role.
 *
 * Every error thrown is an `Error` whose message is safe to show (pg's message, prefixed
 * like the reference's: `unable to get connection: …`, `failed to execute query: …`).
 *
 * @module
 */
import type pg from 'pg';
import { queriesOf, quoteIdent, renderQuery, type StatementValues } from './statements.js';

/** The reference's default renew statement. */
const DEFAULT_RENEW = `ALTER ROLE "{{name}}" VALID UNTIL '{{expiration}}';`;
/** The reference's default password change (static roles, root rotation). */
const DEFAULT_CHANGE_PASSWORD = `ALTER ROLE "{{username}}" WITH PASSWORD '{{password}}';`;

const ignore = () => undefined;

/**
 * A connection from the pool that answers, with the result of its first query `sql`: an
 * idle connection the server closed meanwhile (a restart) fails that query without an SQL
 * error code, is thrown away and one more is tried, so only a database that cannot be
 * reached fails, with `unable to get connection: <pg message>`. An SQL error of `sql` is thrown as it is.
 */
async function open<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  sql: string,
  params: unknown[] = [],
): Promise<{ client: pg.PoolClient; first: pg.QueryResult<R> }> {
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      // A connection dying while checked out emits 'error' on the client; the failing query reports it.
      client.on('error', ignore);
      return { client, first: await client.query<R>(sql, params) };
    } catch (err) {
      const sqlError = typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);
      if (client) release(client, !sqlError);
      if (sqlError) throw err;
      if (attempt >= 2) throw new Error(`unable to get connection: ${(err as Error).message}`);
    }
  }
}

/** Returns `client` to the pool (`broken`: closed instead). */
function release(client: pg.PoolClient, broken: boolean): void {
  client.removeListener('error', ignore);
  client.release(broken);
}

/** Runs `statements` with `values` in one transaction. */
async function inTransaction(pool: pg.Pool, statements: readonly string[], values: StatementValues): Promise<void> {
  const { client } = await open(pool, 'BEGIN');
  let broken = false;
  try {
    for (const q of queriesOf(statements)) await client.query(renderQuery(q, values));
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw new Error(`failed to execute query: ${(err as Error).message}`);
  } finally {
    release(client, broken);
  }
}

/** Creates user `name` by the role's creation statements (`{{name}}`, `{{password}}`, `{{expiration}}`). */
export function createUser(pool: pg.Pool, statements: readonly string[], values: Required<StatementValues>): Promise<void> {
  return inTransaction(pool, statements, values);
}

/** Moves user `name`'s expiry to `expiration` (renew statements, else `ALTER ROLE … VALID UNTIL`). */
export function renewUser(pool: pg.Pool, statements: readonly string[], name: string, expiration: string): Promise<void> {
  return inTransaction(pool, statements.length ? statements : [DEFAULT_RENEW], { name, expiration });
}

/** Sets user `name`'s password (rotation statements, else `ALTER ROLE … WITH PASSWORD`). */
export function changePassword(pool: pg.Pool, statements: readonly string[], name: string, password: string): Promise<void> {
  return inTransaction(pool, statements.length ? statements : [DEFAULT_CHANGE_PASSWORD], { name, password });
}

/** Removes user `name`: the revocation statements in one transaction, or the default revocation. */
export function deleteUser(pool: pg.Pool, statements: readonly string[], name: string): Promise<void> {
  return statements.length ? inTransaction(pool, statements, { name }) : defaultDeleteUser(pool, name);
}

/**
 * The reference's default revocation: nothing to do when the role is gone; otherwise
 * revoke its privileges on the tables and usage of every schema it has column grants in,
 * on all tables, sequences and usage of `public`, and `CONNECT` on the current database
 * (each on its own, going on after a failure), then `DROP ROLE IF EXISTS`. Fails (and is
 * retried by the lease manager) when a revoke failed or the role still owns objects.
 */
async function defaultDeleteUser(pool: pg.Pool, name: string): Promise<void> {
  const { client, first: exists } = await open<{ exists: boolean }>(pool, 'SELECT exists (SELECT rolname FROM pg_roles WHERE rolname=$1)', [name]);
  let broken = false;
  try {
    if (!exists.rows[0]?.exists) return;
    const u = quoteIdent(name);
    const schemas = await client.query<{ table_schema: string }>('SELECT DISTINCT table_schema FROM information_schema.role_column_grants WHERE grantee=$1', [
      name,
    ]);
    const revokes = schemas.rows.flatMap(({ table_schema: s }) => [
      `REVOKE ALL PRIVILEGES ON ALL TABLES IN SCHEMA ${quoteIdent(s)} FROM ${u}`,
      `REVOKE USAGE ON SCHEMA ${quoteIdent(s)} FROM ${u}`,
    ]);
    revokes.push(`REVOKE ALL PRIVILEGES ON ALL TABLES IN SCHEMA public FROM ${u}`);
    revokes.push(`REVOKE ALL PRIVILEGES ON ALL SEQUENCES IN SCHEMA public FROM ${u}`);
    revokes.push(`REVOKE USAGE ON SCHEMA public FROM ${u}`);
    const db = await client.query<{ current_database: string | null }>('SELECT current_database()');
    const dbName = db.rows[0]?.current_database;
    if (dbName) revokes.push(`REVOKE CONNECT ON DATABASE ${quoteIdent(dbName)} FROM ${u}`);
    let last: Error | undefined;
    for (const q of revokes) await client.query(q).catch((err: Error) => (last = err));
    if (last) throw new Error(`could not perform all revocation statements: ${last.message}`);
    await client.query(`DROP ROLE IF EXISTS ${u}`);
  } catch (err) {
    broken = !(err instanceof Error && 'code' in err);
    throw err;
  } finally {
    release(client, broken);
  }
}
