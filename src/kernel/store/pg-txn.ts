/**
 * The write transactions of a {@link PostgresBackend} (postgres.ts): `BEGIN`, the HA fence
 * check, a group's two statements (one `DELETE … = ANY($1)`, one `INSERT … SELECT FROM
 * unnest($1, $2) ON CONFLICT DO UPDATE`), the commit-index bump that feeds the change feed
 * (pg-listen.ts), then `COMMIT` — on one pooled connection, telling apart a failure before
 * anything was sent ({@link BeginFailed}) from a connection lost during `COMMIT`
 * ({@link CommitOutcomeUnknown}).
 *
 * @module
 */
import type pg from 'pg';
import type { PendingWrite } from './group-commit.js';
import { compareKeys } from './keys.js';
import { BeginFailed, CommitOutcomeUnknown, FencedWriteError, isConnectionLoss } from './pg-errors.js';
import { keysPayload } from './pg-listen.js';
import type { BackendSql } from './pg-schema.js';

/** One group's final state: keys to delete and keys to upsert, each byte-sorted (a stable lock order). */
export interface GroupWrite {
  readonly deletes: string[];
  readonly putKeys: string[];
  readonly putValues: Buffer[];
}

/** Runs write transactions on one table's pool, under the HA fence. */
export class PgWriter {
  /** HA fence: undefined (no HA, writes unchecked), `'closed'` (refused), or the term checked in each write transaction. */
  fence: number | 'closed' | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly sql: BackendSql,
    /** The change feed's `NOTIFY` channel (pg-listen.ts `changeChannel`). */
    private readonly channel: string,
  ) {}

  /**
   * `BEGIN`, `fn`, `COMMIT` on one pooled connection; resolves with what `fn` resolved
   * to once `COMMIT` returned. Rolls back when `fn` fails.
   * @throws {FencedWriteError} when the fence refuses the write; {@link BeginFailed} when
   *   the connection or `BEGIN` failed (nothing was written); {@link CommitOutcomeUnknown}
   *   when the connection was lost during `COMMIT`; else the error of `fn` or of `COMMIT`.
   */
  async transaction(fn: (client: pg.PoolClient) => Promise<number>): Promise<number> {
    if (this.fence === 'closed') throw new FencedWriteError('this server is not the active one: writes are refused');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw new BeginFailed('connect', { cause: err });
    }
    let lost: unknown;
    try {
      try {
        await client.query('BEGIN');
      } catch (err) {
        lost = err;
        throw new BeginFailed('BEGIN', { cause: err });
      }
      let out: number;
      try {
        await this.checkFence(client);
        out = await fn(client);
      } catch (err) {
        if (isConnectionLoss(err)) lost = err;
        else await client.query('ROLLBACK').catch((e: unknown) => (lost = e));
        throw err;
      }
      let res: pg.QueryResult;
      try {
        res = await client.query('COMMIT');
      } catch (err) {
        if (!isConnectionLoss(err)) throw err;
        lost = err;
        throw new CommitOutcomeUnknown(`the connection was lost during COMMIT, so the write may or may not be stored: ${(err as Error).message}`, {
          cause: err,
        });
      }
      // COMMIT of a transaction that failed inside answers ROLLBACK, not an error.
      if (res.command !== 'COMMIT') throw new Error(`the transaction was rolled back (${res.command})`);
      return out;
    } finally {
      client.release(lost === undefined ? undefined : lost instanceof Error ? lost : new Error(String(lost)));
    }
  }

  /** Inside a write transaction: moves the commit index and notifies `keys` (delivered at COMMIT; pg-listen.ts). */
  async bumpIndex(client: pg.PoolClient, keys: readonly string[]): Promise<number> {
    const r = await client.query({ name: 'cairn-bump-index', text: this.sql.bumpIndex, values: [this.channel, keysPayload(keys)], rowMode: 'array' });
    return Number(r.rows[0][0]);
  }

  /** The group's two statements on `client`; resolves with the rows they touched. */
  async writeGroup(client: pg.PoolClient, w: GroupWrite): Promise<number> {
    let rows = 0;
    if (w.deletes.length > 0) {
      const r = await client.query({ name: 'cairn-del', text: this.sql.del, values: [w.deletes] });
      rows += r.rowCount ?? 0;
    }
    if (w.putKeys.length > 0) {
      const r = await client.query({ name: 'cairn-upsert', text: this.sql.upsert, values: [w.putKeys, w.putValues] });
      rows += r.rowCount ?? 0;
    }
    return rows;
  }

  /** Inside a write transaction: the HA term must still be ours (see pg-lock.ts); FOR SHARE holds a new active's bump back until we commit. */
  private async checkFence(client: pg.PoolClient): Promise<void> {
    const fence = this.fence;
    if (fence === undefined) return;
    if (fence === 'closed') throw new FencedWriteError('this server is not the active one: writes are refused');
    const r = await client.query<{ term: string }>({ name: 'cairn-fence', text: this.sql.fence });
    const term = r.rows.length === 0 ? undefined : Number(r.rows[0].term);
    if (term !== fence) {
      throw new FencedWriteError(`another server is active now (term ${String(term)}, ours ${fence}): writes are refused`);
    }
  }
}

/** The final state of a group's keys (later ops win), split into deletes and upserts, byte-sorted. */
export function groupWrite(pending: readonly PendingWrite[]): GroupWrite {
  const last = new Map<string, Buffer | null>();
  for (const p of pending) for (const op of p.ops) last.set(op.key, op.value);
  const keys = [...last.keys()].sort(compareKeys);
  const w: GroupWrite = { deletes: [], putKeys: [], putValues: [] };
  for (const key of keys) {
    const value = last.get(key)!;
    if (value === null) w.deletes.push(key);
    else {
      w.putKeys.push(key);
      w.putValues.push(value);
    }
  }
  return w;
}
