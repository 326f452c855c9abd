/**
 * The PostgreSQL side of {@link PostgresBackend}'s storage (postgres.ts): naming and
 * quoting its tables (the data table and its `_ha` / `_index` side tables), creating and
 * checking them, and the text of every statement the backend runs on them.
 *
 * @module
 */
import pg from 'pg';
import { bumpIndexSql, indexTableDdl } from './pg-listen.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks a `table` option (`name` or `schema.name`, see {@link PostgresBackendOptions.table})
 * and returns it quoted for SQL (`"schema"."name"`).
 * @throws TypeError naming the table and the rule it breaks.
 */
export function quoteTableName(table: string): string {
  const parts = typeof table === 'string' ? table.split('.') : [];
  if (parts.length < 1 || parts.length > 2 || parts.some((p) => !IDENT.test(p) || Buffer.byteLength(p) > 63)) {
    throw new TypeError(
      `PostgreSQL table ${JSON.stringify(table)} must be "name" or "schema.name" of letters, digits and "_" ` +
        '(not starting with a digit, at most 63 characters each)',
    );
  }
  return parts.map((p) => `"${p}"`).join('.');
}

/**
 * `user@host:port/database` of a connection URL, with `PG*` environment defaults applied
 * as `pg` applies them; never the password. For messages and logs.
 */
export function describeConnectionUrl(connectionUrl: string): string {
  try {
    const c = new pg.Client({ connectionString: connectionUrl });
    const host = c.host.includes(':') ? `[${c.host}]` : c.host; // a unix socket directory shows as its path
    return `${c.user ? `${c.user}@` : ''}${host}:${c.port}/${c.database ?? ''}`;
  } catch {
    return '(unparsable connection URL)';
  }
}

/**
 * A side table of `table` (quoted): `<table>_<suffix>` in the same schema (`_ha`: HA row,
 * `_ha_nodes`: standbys' echoes, `_index`: commit index), the name cut to fit 63 bytes.
 */
export function sideTableName(table: string, suffix: 'ha' | 'ha_nodes' | 'index'): string {
  const parts = table.split('.');
  const last = parts.pop()!;
  return quoteTableName([...parts, `${last.slice(0, 62 - suffix.length)}_${suffix}`].join('.'));
}

/** The statements of a {@link PostgresBackend} on one table (the data table quoted, and its side tables). */
export interface BackendSql {
  readonly get: string;
  readonly del: string;
  readonly upsert: string;
  readonly insertIfAbsent: string;
  readonly listRoot: string;
  readonly listPrefix: string;
  readonly folderKeys: string;
  readonly entries: string;
  readonly entriesAll: string;
  readonly fence: string;
  readonly bumpIndex: string;
  readonly readIndex: string;
}

/** The statements on data table `t`, HA table `haTable` and commit-index table `indexTable` (all quoted). */
export function backendSql(t: string, haTable: string, indexTable: string): BackendSql {
  // The next child after row k: past k itself for a leaf (keys hold no NUL, so k || chr(1)
  // is the smallest string above k), past the whole folder for a key inside a sub-folder.
  const next = (bound: string) => `
    SELECT (SELECT key FROM ${t}
            WHERE key >= CASE WHEN s.slash = 0 THEN w.k || chr(1)
                              ELSE substr(w.k, 1, s.plen + s.slash - 1) || '0' END
              ${bound} ORDER BY key LIMIT 1)
    FROM walk w, LATERAL (SELECT char_length($1::text) AS plen,
                                 strpos(substr(w.k, char_length($1::text) + 1), '/') AS slash) s
    WHERE w.k IS NOT NULL`;
  const walk = (bound: string) => `
    WITH RECURSIVE walk(k) AS (
      (SELECT key FROM ${t} WHERE key >= $1::text ${bound} ORDER BY key LIMIT 1)
      UNION ALL
      ${next(bound)}
    ) SELECT k FROM walk WHERE k IS NOT NULL`;
  return {
    get: `SELECT value FROM ${t} WHERE key = $1`,
    del: `DELETE FROM ${t} WHERE key = ANY($1::text[])`,
    upsert: `INSERT INTO ${t} (key, value) SELECT k, v FROM unnest($1::text[], $2::bytea[]) AS u(k, v)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    insertIfAbsent: `INSERT INTO ${t} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`,
    listRoot: walk(''),
    listPrefix: walk('AND key < $2::text'),
    folderKeys: `SELECT key FROM ${t} WHERE key >= $1 AND key < $2 ORDER BY key LIMIT $3`,
    entries: `SELECT key, value FROM ${t} WHERE key >= $1 AND key < $2 ORDER BY key`,
    entriesAll: `SELECT key, value FROM ${t} ORDER BY key`,
    fence: `SELECT term FROM ${haTable} WHERE id = 1 FOR SHARE`,
    bumpIndex: bumpIndexSql(indexTable),
    readIndex: `SELECT commit_index FROM ${indexTable} WHERE id = 1`,
  };
}

/**
 * Creates `table` when missing and checks an existing one: `key` must be text with the
 * "C" collation and the primary key, `value` bytea. Servers opening at once serialise
 * on a transaction-level advisory lock derived from the table name.
 * @throws Error naming what is wrong with an existing table, or PostgreSQL's error.
 */
export async function ensureTable(client: pg.Client, table: string, quoted: string, indexTable: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('cairn table ' || $1))", [table]);
    const exists = await client.query<{ oid: string | null }>('SELECT to_regclass($1)::oid::text AS oid', [quoted]);
    if (exists.rows[0].oid === null) {
      await client.query(`CREATE TABLE ${quoted} (key text COLLATE "C" PRIMARY KEY, value bytea NOT NULL)`);
    }
    const cols = await client.query<{ name: string; type: string; coll: string | null; pk: boolean }>(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, c.collname AS coll,
              EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary
                        AND i.indnatts = 1 AND i.indkey[0] = a.attnum) AS pk
         FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [quoted],
    );
    const col = new Map(cols.rows.map((r) => [r.name, r]));
    const key = col.get('key');
    const value = col.get('value');
    if (!key || key.type !== 'text' || key.coll !== 'C' || !key.pk || !value || value.type !== 'bytea') {
      const shape = cols.rows.map((r) => `${r.name} ${r.type}${r.coll ? ` collate ${r.coll}` : ''}${r.pk ? ' primary key' : ''}`).join(', ');
      throw new Error(`table exists with columns (${shape}); Cairn needs (key text collate "C" primary key, value bytea)`);
    }
    await client.query(indexTableDdl(indexTable));
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
