/**
 * The change feed of a {@link PostgresBackend} table between servers (issue 8 scopes 2–3;
 * DESIGN.md "Growing past one machine": index changes travel by `LISTEN/NOTIFY`).
 *
 * Every write transaction of a backend moves the table's **commit index** (one row in
 * `<table>_index`, bumped inside the transaction, so commit indexes follow commit order
 * across servers: the row lock serialises writers) and sends `pg_notify(channel,
 * '<index> <keys>')`, which PostgreSQL delivers to every listener at `COMMIT`, in commit
 * order (reference/ecosystem.md §4: p50 227 µs). `<keys>` is the JSON array of the keys the
 * transaction wrote or deleted, or `*` when that would not fit a notification (8000 bytes).
 *
 * A {@link PgChangeListener} holds one dedicated `LISTEN` connection. Notifications sent
 * while it is not connected are lost, so each (re)connection first reports a **sync**
 * change: the current commit index with `keys` undefined (anything may have changed).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../log/logger.js';

/** One committed write transaction (or a sync point) as the change feed reports it. */
export interface BackendChange {
  /** The table's commit index after it (1, 2, …, in commit order across every server). */
  readonly index: number;
  /**
   * The keys it wrote or deleted. Undefined: unknown (too many for one notification, or a
   * (re)connection when notifications may have been missed): treat everything as changed.
   */
  readonly keys?: readonly string[];
}

/** Largest notification payload PostgreSQL accepts is 8000 bytes; keep a margin. */
const MAX_PAYLOAD = 7900;

/** The `LISTEN` channel of a table: short and fixed-length (identifiers stop at 63 bytes). */
export function changeChannel(table: string): string {
  return `cairn_${createHash('sha256').update(table).digest('hex').slice(0, 24)}`;
}

/** `CREATE TABLE IF NOT EXISTS` of the commit-index table (one row, id = 1). */
export const indexTableDdl = (indexTable: string) => `CREATE TABLE IF NOT EXISTS ${indexTable} (id integer PRIMARY KEY, commit_index bigint NOT NULL)`;

/**
 * The statement a write transaction ends with: bumps the commit index and notifies.
 * Parameters: `$1` channel, `$2` payload tail (keys JSON or `*`). Returns `commit_index`.
 */
export const bumpIndexSql = (indexTable: string) =>
  `WITH i AS (INSERT INTO ${indexTable} AS x (id, commit_index) VALUES (1, 1)
              ON CONFLICT (id) DO UPDATE SET commit_index = x.commit_index + 1 RETURNING commit_index)
   SELECT commit_index, pg_notify($1, commit_index::text || ' ' || $2) FROM i`;

/** The payload tail for `keys`: their JSON array, or `*` when it would not fit. */
export function keysPayload(keys: readonly string[]): string {
  const text = JSON.stringify(keys);
  return Buffer.byteLength(text) > MAX_PAYLOAD - 24 ? '*' : text;
}

/** Parses a notification payload; undefined when it is not one of ours. */
function parseChange(payload: string | undefined): BackendChange | undefined {
  const m = payload === undefined ? null : /^(\d+) (.*)$/s.exec(payload);
  if (!m) return undefined;
  const index = Number(m[1]);
  if (m[2] === '*') return { index };
  try {
    const keys = JSON.parse(m[2]) as unknown;
    return Array.isArray(keys) && keys.every((k) => typeof k === 'string') ? { index, keys } : { index };
  } catch {
    return { index };
  }
}

/** Options of {@link PgChangeListener}. */
export interface PgChangeListenerOptions {
  readonly client: pg.ClientConfig;
  readonly channel: string;
  /** The commit-index table, quoted for SQL. */
  readonly indexTable: string;
  /** Called with every change, in commit order. A throwing listener is logged, not retried. */
  readonly onChange: (change: BackendChange) => void;
  /** Pause before reconnecting after the connection failed, in ms; default 1000. */
  readonly retryMs?: number;
  readonly log?: Logger;
}

/** One `LISTEN` connection that reconnects by itself; see the module doc. */
export class PgChangeListener {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly retryMs: number;

  constructor(private readonly o: PgChangeListenerOptions) {
    this.retryMs = o.retryMs ?? 1000;
    void this.connect();
  }

  /** Whether the `LISTEN` connection is up (notifications are arriving). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** Closes the connection; no change is reported after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const c = new pg.Client({ ...this.o.client, application_name: 'cairn-listen' });
    let up = false;
    const lost = (why: string) => {
      if (this.client === c) this.client = undefined;
      c.removeAllListeners('end');
      c.end().catch(() => undefined);
      if (this.stopped) return;
      if (up) this.o.log?.warn({ reason: why }, 'PostgreSQL change feed lost; reconnecting');
      up = false;
      if (!this.timer) this.timer = setTimeout(() => ((this.timer = undefined), void this.connect()), this.retryMs);
    };
    c.on('error', (err) => lost(err.message));
    c.on('end', () => lost('connection ended'));
    c.on('notification', (msg) => {
      if (msg.channel !== this.o.channel || this.client !== c) return;
      const change = parseChange(msg.payload);
      if (change) this.emit(change);
    });
    try {
      await c.connect();
      await c.query(`LISTEN "${this.o.channel}"`);
      const r = await c.query<{ commit_index: string }>(`SELECT commit_index FROM ${this.o.indexTable} WHERE id = 1`);
      if (this.stopped) {
        await c.end().catch(() => undefined);
        return;
      }
      up = true;
      this.client = c;
      // Notifications queued behind this SELECT's reply come after the sync, in order.
      this.emit({ index: Number(r.rows[0]?.commit_index ?? 0) });
    } catch (err) {
      lost((err as Error).message);
    }
  }

  private emit(change: BackendChange): void {
    try {
      this.o.onChange(change);
    } catch (err) {
      this.o.log?.error({ err: (err as Error).message }, 'PostgreSQL change feed listener failed');
    }
  }
}
