/**
 * The connections of a {@link PostgresBackend} (postgres.ts): its options, opening (the
 * checks of the server and the table, run on one probe connection), the `pg.Pool` with an
 * `'error'` listener on every connection (an unhandled one crashes the process,
 * ecosystem.md §4), and reads retried once on a fresh connection when theirs was lost, so
 * a connection the server closed while idle costs no error.
 *
 * @module
 */
import pg from 'pg';
import type { Logger } from '../log/logger.js';
import { isConnectionLoss, pgError } from './pg-errors.js';
import { describeConnectionUrl, ensureTable, quoteTableName, sideTableName } from './pg-schema.js';

/** Options of {@link PostgresBackend.open}. */
export interface PostgresBackendOptions {
  /**
   * `postgres://user:password@host:port/database?sslmode=…` (or `postgresql://`). Parts
   * left out come from the `PG*` environment variables, as with libpq.
   */
  readonly connectionUrl: string;
  /**
   * The table holding the keys, created when missing: `name` or `schema.name`, letters,
   * digits and `_`, at most 63 bytes per part; used quoted, so case is kept. Default `cairn_kv`.
   */
  readonly table?: string;
  /**
   * Most connections (= statements in flight) to PostgreSQL at once; default 10. Writes
   * use one at a time, reads the rest. The reference product calls this `max_parallel`
   * (its default, 128, would let three servers exhaust PostgreSQL's default 100 connections).
   */
  readonly maxParallel?: number;
  /** Where connection trouble is reported (warn); nothing is logged when absent. */
  readonly log?: Logger;
  /** How long (milliseconds) opening a connection may take before it fails; default 10000. */
  readonly connectTimeoutMs?: number;
  /** `application_name` of the connections (shows in `pg_stat_activity`); default `cairn`. */
  readonly applicationName?: string;
}

/** The connection pool now (metrics). */
export interface PostgresPoolStats {
  /** Connections open (idle or in use). */
  readonly total: number;
  /** Open connections not in use. */
  readonly idle: number;
  /** Callers waiting for a connection (all `maxParallel` are in use). */
  readonly waiting: number;
  /** `maxParallel`: most connections at once. */
  readonly max: number;
}

/** The pool of one backend, with its counters of lost connections and retried reads. */
export class PgConnections {
  /** Connections that failed or were closed by the server (each one is replaced on demand). */
  connectionErrors = 0;
  /** Operations run again on a fresh connection after their connection was found lost. */
  retries = 0;

  /** `user@host:port/database` (no password), for messages. */
  readonly target: string;
  /** The table, as configured (unquoted). */
  readonly table: string;
  /** The table quoted for SQL. */
  readonly quoted: string;
  readonly pool: pg.Pool;
  /** The connection settings, for the sessions kept outside the pool (LISTEN, locks). */
  readonly client: pg.ClientConfig;
  readonly log: Logger | undefined;

  private constructor(o: Pick<PgConnections, 'target' | 'table' | 'quoted' | 'pool' | 'client' | 'log'>) {
    this.target = o.target;
    this.table = o.table;
    this.quoted = o.quoted;
    this.pool = o.pool;
    this.client = o.client;
    this.log = o.log;
  }

  /**
   * Checks the options, connects, checks the server (UTF8 encoding, `synchronous_commit`),
   * creates the table when missing (pg-schema.ts `ensureTable`), then opens a pool of at
   * most `maxParallel` connections, each set to `synchronous_commit = on` when the server
   * says `off`. Nothing stays open when it fails.
   *
   * @throws Error naming `user@host:port/database` (never the password) and the reason:
   *   unreachable server, refused login, missing database, wrong encoding, a table of
   *   another shape, no permission to create it. TypeError for a bad option.
   */
  static async open(options: PostgresBackendOptions): Promise<PgConnections> {
    const table = options.table ?? 'cairn_kv';
    const quoted = quoteTableName(table);
    const maxParallel = options.maxParallel ?? 10;
    if (!Number.isInteger(maxParallel) || maxParallel < 1) {
      throw new TypeError(`PostgreSQL max_parallel must be a positive integer, got ${String(maxParallel)}`);
    }
    const url = options.connectionUrl;
    if (typeof url !== 'string' || !/^postgres(ql)?:\/\//i.test(url)) {
      throw new TypeError('PostgreSQL connection_url must be a postgres:// or postgresql:// URL');
    }
    const target = describeConnectionUrl(url);
    const base: pg.ClientConfig = {
      connectionString: url,
      application_name: options.applicationName ?? 'cairn',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      keepAlive: true,
    };

    let probe: pg.Client;
    try {
      probe = new pg.Client(base);
    } catch (err) {
      // Not the URL itself in the message: it holds the password.
      throw new TypeError(`PostgreSQL connection_url cannot be parsed: ${(err as Error).message}`);
    }
    probe.on('error', () => undefined); // a failure during setup rejects the call we await
    try {
      await probe.connect();
    } catch (err) {
      await probe.end().catch(() => undefined);
      throw pgError(target, 'cannot connect', err);
    }
    let forceSyncCommit: boolean;
    try {
      const settings = await probe.query<{ enc: string; sync: string }>(
        "SELECT current_setting('server_encoding') AS enc, current_setting('synchronous_commit') AS sync",
      );
      const { enc, sync } = settings.rows[0];
      if (enc.toUpperCase() !== 'UTF8') throw new Error(`the database encoding is ${enc}; Cairn needs UTF8`);
      forceSyncCommit = sync === 'off';
      await ensureTable(probe, table, quoted, sideTableName(table, 'index'));
    } catch (err) {
      throw pgError(target, `cannot prepare table ${table}`, err);
    } finally {
      await probe.end().catch(() => undefined);
    }

    const log = options.log;
    const pool = new pg.Pool({ ...base, max: maxParallel, allowExitOnIdle: true });
    const conns = new PgConnections({ target, table, quoted, pool, client: base, log });
    pool.on('connect', (client) => {
      // Every checked-out client needs its own listener: the pool listens only to idle ones.
      client.on('error', (err) => conns.onConnectionError(err));
      // The query runs before any other this client is given (pg queues per client).
      if (forceSyncCommit) client.query('SET synchronous_commit TO on').catch(() => undefined);
    });
    pool.on('error', (err) => conns.onConnectionError(err));
    if (forceSyncCommit) log?.warn({ target }, 'PostgreSQL synchronous_commit is off; Cairn sets it to on for its connections');
    return conns;
  }

  /** The pool's use now; see {@link PostgresPoolStats}. */
  get stats(): PostgresPoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount, max: this.pool.options.max ?? 10 };
  }

  /**
   * Runs a read on a pooled connection; again when the connection was lost, unless `closed()`
   * says the backend is closing. After a restart or a mass termination every idle connection
   * of the pool may be dead before the pool has noticed, and each failed attempt drops one:
   * so a read tries at most once per pooled connection and once more on a new one.
   * @throws the error of {@link wrap}.
   */
  async read(what: string, query: pg.QueryConfig & { rowMode?: 'array' }, closed: () => boolean): Promise<pg.QueryResult> {
    const attempts = (this.pool.options.max ?? 10) + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.query(query as pg.QueryConfig);
      } catch (err) {
        if (attempt < attempts && isConnectionLoss(err) && !closed()) {
          this.retries++;
          continue;
        }
        throw this.wrap(what, err);
      }
    }
  }

  /** The error a caller sees: names the server, keeps the SQLSTATE as `code`. */
  wrap(what: string, err: unknown): Error {
    return pgError(this.target, `${what} failed`, err);
  }

  /** Closes every connection of the pool. */
  end(): Promise<void> {
    return this.pool.end();
  }

  /** A pooled connection failed (server gone, terminated, network): counted and logged; the pool replaces it. */
  private onConnectionError(err: Error): void {
    this.connectionErrors++;
    this.log?.warn({ target: this.target, err: err.message }, 'PostgreSQL connection lost');
  }
}
