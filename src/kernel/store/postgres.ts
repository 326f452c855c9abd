/**
 * The {@link Backend} on PostgreSQL through `pg` (DESIGN.md "State", "Growing past one
 * machine"; issue 8 scope 1; measurements in reference/ecosystem.md §4): several server
 * processes can share one database. Same contract and same shared test suite as
 * `SqliteBackend` (`backend.suite.ts`).
 *
 * Why it is built this way:
 * - One table, `key text COLLATE "C" PRIMARY KEY, value bytea NOT NULL`. `COLLATE "C"`
 *   compares the UTF-8 bytes, so the primary-key index is in the byte order `list`
 *   promises whatever the database's default collation is (ICU `en` would put `B` after
 *   `a`). The database must use the UTF8 encoding (checked at open).
 * - Writes are **group-committed** like SQLite's: every write call of an event-loop turn
 *   (and every call made while the previous group was committing) goes to PostgreSQL as
 *   one transaction, `BEGIN` → one `DELETE … = ANY($1)` → one `INSERT … SELECT FROM
 *   unnest($1, $2) ON CONFLICT DO UPDATE` → `COMMIT`, and the callers' promises resolve
 *   only after `COMMIT` returned. One group at a time, so later writes to a key win.
 *   If the group fails on a statement (say a trigger refuses one key), it is rolled back
 *   and run again with a savepoint per call, so only the offending call is rejected.
 * - Durable acknowledgement: `COMMIT` returns after the WAL is flushed unless the server
 *   says `synchronous_commit = off`; when it does (checked at open, for this role and
 *   database), every connection of this backend sets it back to `on`.
 * - Reads see every write whose promise exists (the contract): an in-memory overlay of
 *   queued and committing ops is consulted first, as in SQLite. `list` snapshots the
 *   overlay when called, so a group that commits while the query runs is still seen.
 * - `list` is one query: a recursive CTE that seeks the index once per child (a
 *   sub-folder is skipped with one seek past its last key), never reading a folder's
 *   descendants.
 * - Connections come from a `pg.Pool` of at most `maxParallel` (reads run in parallel;
 *   writes use one connection at a time). Every connection has an `'error'` listener (an
 *   unhandled one crashes the process, ecosystem.md §4); a lost connection rejects the
 *   operation it carried and the pool connects anew for the next one. A read, or a group
 *   whose `BEGIN` failed (nothing was sent yet), is retried once on a fresh connection,
 *   so a connection the server closed while idle costs no error. A group lost after its
 *   first write statement is rejected: PostgreSQL may or may not have committed it.
 *
 * - Change feed (pg-listen.ts): every write transaction also bumps the table's commit index
 *   and notifies the keys it touched, so servers sharing the table can keep caches and
 *   in-memory state current ({@link PostgresBackend.watchChanges}, {@link PostgresBackend.commitIndex}).
 *
 * The connection URL's password never reaches a message or the log: errors and
 * {@link PostgresBackend.target} name `user@host:port/database` only.
 *
 * This file holds the backend itself (group commit, reads with the overlay, the HA and
 * change-feed hooks); beside it: pg-pool.ts (options, opening, the pool, read retry),
 * pg-txn.ts (one write transaction), pg-errors.ts (failure kinds), pg-schema.ts (tables
 * and statements), pg-listen.ts (change feed), pg-lock.ts and pg-members.ts (HA locks).
 *
 * @module
 */
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import type { Backend } from './backend.js';
import { GroupCommitBackend, entriesWithOverlay, foldOverlay, type Flush } from './group-commit.js';
import { checkPrefix, compareKeys, folderEnd } from './keys.js';
import { BeginFailed, CommitOutcomeUnknown, FencedWriteError, isConnectionLoss, isRetryableTxn } from './pg-errors.js';
import { changeChannel, PgChangeListener, type BackendChange } from './pg-listen.js';
import { PgHaLock, type PgHaLockOptions } from './pg-lock.js';
import { ABSENT_MEMBERS_SQL, PgMemberLock } from './pg-members.js';
import { PgConnections, type PostgresBackendOptions, type PostgresPoolStats } from './pg-pool.js';
import { backendSql, sideTableName, type BackendSql } from './pg-schema.js';
import { groupWrite, PgWriter } from './pg-txn.js';

export { FencedWriteError } from './pg-errors.js';
export type { PostgresBackendOptions, PostgresPoolStats } from './pg-pool.js';
export { describeConnectionUrl, quoteTableName, sideTableName } from './pg-schema.js';

/** Counters since {@link PostgresBackend.open}, for tests and benchmarks (a snapshot). */
export interface PostgresBackendStats {
  /** Write transactions committed. */
  readonly commits: number;
  /** Groups whose transaction failed as a whole (every write in it was rejected). */
  readonly failedCommits: number;
  /** Write calls (`put`, `delete`, `batch`) acknowledged durable. */
  readonly writes: number;
  /** Rows written or deleted by committed transactions (after merging a group's ops per key). */
  readonly rows: number;
  /** Connections that failed or were closed by the server (each one is replaced on demand). */
  readonly connectionErrors: number;
  /** Operations run again on a fresh connection after their connection was found lost. */
  readonly retries: number;
}

/**
 * {@link Backend} on one PostgreSQL table, with group commit; see the module doc. Open
 * with {@link PostgresBackend.open}.
 */
export class PostgresBackend extends GroupCommitBackend {
  /** `user@host:port/database` (no password), for messages. */
  readonly target: string;
  /** The table, as configured (unquoted). */
  readonly table: string;

  private readonly conns: PgConnections;
  private readonly log: Logger | undefined;
  private readonly writer: PgWriter;
  private readonly sql: BackendSql;
  private readonly haTable: string;
  private readonly indexTable: string;
  private readonly channel: string;
  /** Highest commit index this backend committed or heard of (see {@link commitIndex}). */
  private seenIndex = 0;
  private readonly changeListeners = new Set<(change: BackendChange) => void>();
  private listener: PgChangeListener | undefined;

  private constructor(conns: PgConnections) {
    super(`PostgresBackend(${conns.target})`);
    this.conns = conns;
    this.target = conns.target;
    this.table = conns.table;
    this.log = conns.log;
    this.haTable = sideTableName(conns.table, 'ha');
    this.indexTable = sideTableName(conns.table, 'index');
    this.channel = changeChannel(conns.table);
    this.sql = backendSql(conns.quoted, this.haTable, this.indexTable);
    this.writer = new PgWriter(conns.pool, this.sql, this.channel);
  }

  /**
   * Connects, checks the server (UTF8 encoding, `synchronous_commit`), creates the table
   * when missing (under a transaction-level advisory lock, so servers starting together do
   * not race) and checks its columns, then returns a backend with a pool of connections.
   * Nothing stays open when it fails.
   *
   * @throws Error naming `user@host:port/database` (never the password) and the reason:
   *   unreachable server, refused login, missing database, wrong encoding, a table of
   *   another shape, no permission to create it. TypeError for a bad option.
   */
  static async open(options: PostgresBackendOptions): Promise<PostgresBackend> {
    return new PostgresBackend(await PgConnections.open(options));
  }

  /**
   * The active/standby lock of the servers sharing this table (pg-lock.ts). Once it is
   * started, this backend refuses writes ({@link FencedWriteError}) unless the lock is held,
   * and checks the lock's term inside every write transaction.
   */
  haLock(o: Pick<PgHaLockOptions, 'address' | 'clusterAddress' | 'retryMs' | 'echo'>): PgHaLock {
    return new PgHaLock({
      ...o,
      client: this.conns.client,
      query: (text, values) => this.conns.pool.query(text, values),
      table: this.table,
      haTable: this.haTable,
      haNodesTable: sideTableName(this.table, 'ha_nodes'),
      log: this.log,
      setFence: (fence) => {
        this.writer.fence = fence;
      },
    });
  }

  /** This agent's member lock, not started (pg-members.ts): held while the agent runs. */
  memberLock(member: string, retryMs?: number): PgMemberLock {
    return new PgMemberLock({ client: this.conns.client, table: this.table, member, retryMs, log: this.log });
  }

  /**
   * Those of `members` (node names) whose member lock no session holds: their agents are
   * not running, or cannot reach the database (pg-members.ts).
   * @throws Error naming the server (never the password): PostgreSQL's error.
   */
  async absentMembers(members: readonly string[]): Promise<string[]> {
    this.checkOpen();
    if (members.length === 0) return [];
    const res = await this.read('members', { name: 'cairn-absent-members', text: ABSENT_MEMBERS_SQL, values: [this.table, members] });
    return res.rows.map((r: { name: string }) => r.name);
  }

  /**
   * The highest commit index (pg-listen.ts) this backend committed itself or heard of from
   * the change feed: every write acknowledged to this process is at or below it. 0 before
   * the first.
   */
  get commitIndex(): number {
    return this.seenIndex;
  }

  /**
   * Calls `listener` with every write transaction committed on this table by any server
   * (this one included), in commit order, and with a sync point (keys undefined) each
   * time the feed's connection is (re)established. The first call opens the `LISTEN`
   * connection. Returns the function that unsubscribes.
   */
  watchChanges(listener: (change: BackendChange) => void): () => void {
    this.checkOpen();
    this.changeListeners.add(listener);
    this.listener ??= new PgChangeListener({
      client: this.conns.client,
      channel: this.channel,
      indexTable: this.indexTable,
      log: this.log,
      onChange: (change) => {
        this.seenIndex = Math.max(this.seenIndex, change.index);
        for (const l of [...this.changeListeners]) l(change);
      },
    });
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Whether the change feed's `LISTEN` connection is up: while it is not, notifications
   * are missed (a sync point follows the reconnection), so caches kept from the feed may
   * be stale.
   */
  get changeFeedConnected(): boolean {
    return this.listener?.connected === true;
  }

  /** The table's commit index as the database has it now (one query): what a read barrier waits for. */
  async currentCommitIndex(): Promise<number> {
    this.checkOpen();
    const res = await this.read('commit index', { name: 'cairn-read-index', text: this.sql.readIndex, values: [], rowMode: 'array' });
    return res.rows.length === 0 ? 0 : Number(res.rows[0][0]);
  }

  /** The connection pool's use now; see {@link PostgresPoolStats}. */
  get poolStats(): PostgresPoolStats {
    return this.conns.stats;
  }

  /** Counters for tests and benchmarks; see {@link PostgresBackendStats}. */
  get stats(): PostgresBackendStats {
    return {
      commits: this.commits,
      failedCommits: this.failedCommits,
      writes: this.writes,
      rows: this.rows,
      connectionErrors: this.conns.connectionErrors,
      retries: this.conns.retries,
    };
  }

  /** The table's value at `key`, read on a pooled connection. */
  protected override async readStored(key: string): Promise<Uint8Array | undefined> {
    const res = await this.read('get', { name: 'cairn-get', text: this.sql.get, values: [key], rowMode: 'array' });
    return res.rows.length === 0 ? undefined : (res.rows[0][0] as Buffer);
  }

  /**
   * Stores `value` at `key` unless the key holds a value already, and returns what it holds
   * afterwards: among servers racing on one table, the first writer wins and every one
   * learns the winner's value. Runs outside group commit, the HA fence and the change
   * feed, because it is meant for a row written once before any server leads, which no
   * reader watches: the agents' state key fingerprint (agent-state.ts).
   * @throws Error naming the server (never the password): PostgreSQL's error, or a key deleted after each of three inserts (a writer that keeps deleting it).
   */
  async putIfAbsent(key: string, value: Uint8Array): Promise<Uint8Array> {
    this.checkOpen();
    // The row another writer held may be deleted between our conflicting insert and the read
    // (a stale init claim taken over): the key is then absent again, so insert again.
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.read('insert', { name: 'cairn-insert-if-absent', text: this.sql.insertIfAbsent, values: [key, Buffer.from(value)] });
      // A second statement, so its snapshot sees a winner that committed while ours waited on the conflict.
      const res = await this.read('get', { name: 'cairn-get', text: this.sql.get, values: [key], rowMode: 'array' });
      if (res.rows.length > 0) return res.rows[0][0] as Buffer;
    }
    throw new Error(`PostgreSQL ${this.target}: "${key}" vanished right after it was written, three times`);
  }

  /**
   * @inheritdoc
   * One query (see the module doc), then the queued ops under `prefix` as they were when
   * `list` was called are folded in.
   */
  async list(prefix: string): Promise<string[]> {
    this.checkOpen();
    checkPrefix(prefix);
    const overlay = this.overlaySnapshot(prefix);
    const res =
      prefix === ''
        ? await this.read('list', { name: 'cairn-list-root', text: this.sql.listRoot, values: [prefix], rowMode: 'array' })
        : await this.read('list', {
            name: 'cairn-list-prefix',
            text: this.sql.listPrefix,
            values: [prefix, folderEnd(prefix)],
            rowMode: 'array',
          });
    const names = new Set<string>();
    const folders: string[] = [];
    for (const [key] of res.rows as [string][]) {
      const slash = key.indexOf('/', prefix.length);
      if (slash < 0) names.add(key.slice(prefix.length));
      else {
        const folder = key.slice(0, slash + 1);
        names.add(folder.slice(prefix.length));
        folders.push(folder);
      }
    }
    if (overlay.size > 0) await this.mergeOverlay(prefix, overlay, names, folders);
    return [...names].sort(compareKeys);
  }

  /**
   * @inheritdoc
   * One range query on the primary key, then the queued ops under `prefix` as they were
   * when it was called are applied over it.
   */
  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    this.checkOpen();
    checkPrefix(prefix);
    const overlay = this.overlaySnapshot(prefix);
    const res =
      prefix === ''
        ? await this.read('read', { name: 'cairn-entries-all', text: this.sql.entriesAll, values: [], rowMode: 'array' })
        : await this.read('read', { name: 'cairn-entries', text: this.sql.entries, values: [prefix, folderEnd(prefix)], rowMode: 'array' });
    return entriesWithOverlay(res.rows as [string, Buffer][], overlay);
  }

  /** Closes the change feed and every connection of the pool (the queue is drained by then). */
  protected override async release(): Promise<void> {
    await this.listener?.stop();
    await this.conns.end();
  }

  /** Runs a read on a pooled connection; once more on a fresh one when the connection was lost (pg-pool.ts). */
  private read(what: string, query: pg.QueryConfig & { rowMode?: 'array' }): Promise<pg.QueryResult> {
    return this.conns.read(what, query, () => this.isClosed);
  }

  /** Commits `flush` as one transaction (see {@link commitGroup}), then takes the next group. */
  protected override startFlush(flush: Flush): void {
    void this.commitGroup(flush).then(() => this.flushDone());
  }

  /** Settles every promise of `flush` (never throws). */
  private async commitGroup(flush: Flush): Promise<void> {
    const { pending } = flush;
    let failure: unknown;
    for (let attempt = 1; attempt <= 4; attempt++) {
      try {
        const w = groupWrite(pending);
        let index = 0;
        const rows = await this.writer.transaction(async (client) => {
          const n = await this.writer.writeGroup(client, w);
          index = await this.writer.bumpIndex(client, [...w.deletes, ...w.putKeys]);
          return n;
        });
        this.committed(index);
        this.commits++;
        this.rows += rows;
        this.writes += pending.length;
        this.dropFromOverlay(flush);
        for (const p of pending) p.resolve();
        return;
      } catch (err) {
        failure = err;
        if (err instanceof FencedWriteError) break;
        // Nothing reached the server (BEGIN failed), or the server rolled it back for a
        // lock conflict with another server: the same group may simply run again.
        if (err instanceof BeginFailed ? attempt === 1 : isRetryableTxn(err) && attempt < 4) {
          this.conns.retries++;
          continue;
        }
        break;
      }
    }
    const cause = failure instanceof BeginFailed ? failure.cause : failure;
    if (pending.length > 1 && !isConnectionLoss(cause) && !(failure instanceof CommitOutcomeUnknown) && !(failure instanceof FencedWriteError)) {
      // A statement failed: find the calls that cause it, one savepoint each.
      try {
        await this.commitCallByCall(flush);
        return;
      } catch (err) {
        failure = err;
      }
    }
    this.failedCommits++;
    const err = failure instanceof FencedWriteError ? failure : this.conns.wrap('write', failure instanceof BeginFailed ? failure.cause : failure);
    this.dropFromOverlay(flush);
    for (const p of pending) p.reject(err);
  }

  /** Runs the group again with one savepoint per call: failing calls are rolled back and rejected alone. */
  private async commitCallByCall(flush: Flush): Promise<void> {
    const { pending } = flush;
    const errors: Array<unknown | null> = [];
    let rows = 0;
    let index = 0;
    const written = new Set<string>();
    await this.writer.transaction(async (client) => {
      errors.length = 0;
      rows = 0;
      written.clear();
      for (const p of pending) {
        await client.query('SAVEPOINT cairn_call');
        try {
          rows += await this.writer.writeGroup(client, groupWrite([p]));
          await client.query('RELEASE SAVEPOINT cairn_call');
          errors.push(null);
          for (const op of p.ops) written.add(op.key);
        } catch (err) {
          if (isConnectionLoss(err)) throw err;
          await client.query('ROLLBACK TO SAVEPOINT cairn_call');
          errors.push(err);
        }
      }
      if (written.size > 0) index = await this.writer.bumpIndex(client, [...written].sort(compareKeys));
      return 0;
    });
    this.committed(index);
    this.commits++;
    this.rows += rows;
    this.dropFromOverlay(flush);
    for (let i = 0; i < pending.length; i++) {
      const err = errors[i];
      if (err === null) {
        this.writes++;
        pending[i].resolve();
      } else pending[i].reject(this.conns.wrap('write', err));
    }
  }

  /** After a COMMIT returned (a rolled-back transaction's index is never counted), before its callers are told. */
  private committed(index: number): void {
    this.seenIndex = Math.max(this.seenIndex, index);
  }

  /**
   * Folds queued-but-uncommitted ops under `prefix` into a `list` result (see
   * {@link foldOverlay}); a sub-folder that queued deletes may have emptied is checked with
   * one query reading at most (its queued deletes + 1) keys.
   */
  private async mergeOverlay(prefix: string, overlay: ReadonlyMap<string, Buffer | null>, names: Set<string>, folders: readonly string[]): Promise<void> {
    for (const [name, deletes] of foldOverlay(prefix, overlay, names, folders)) {
      // More keys than queued deletes under the folder: one of them survives.
      const folder = prefix + name;
      const res = await this.read('list', {
        name: 'cairn-folder-keys',
        text: this.sql.folderKeys,
        values: [folder, folderEnd(folder), deletes + 1],
        rowMode: 'array',
      });
      if (!(res.rows as [string][]).some(([key]) => overlay.get(key) !== null)) names.delete(name);
    }
  }
}
