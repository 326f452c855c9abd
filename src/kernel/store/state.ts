/**
 * The StateStore (DESIGN.md "State"): typed tables of JSON documents on a {@link Backend},
 * for the discovery and scheduler services. Every transaction gets the next value of one
 * global modify index; documents carry `CreateIndex`/`ModifyIndex`, each table remembers
 * the index of its last change (what `X-Mesh-Index` / `X-Sched-Index` report), blocking
 * queries wait on table indexes ({@link StateStore.watch}), and every committed batch goes
 * to the change feed ({@link StateStore.subscribe}) that the event broker and replication
 * read.
 *
 * The whole state lives in memory (like the reference products' in-memory databases) and
 * every transaction is written through to the Backend as one atomic batch:
 *
 * - a transaction function runs synchronously on the current state, sees its own writes,
 *   and either throws (nothing changes) or returns; its writes then become visible to
 *   later transactions and reads at once, so two writers never both create the same name;
 * - {@link StateStore.txn} resolves only once the batch is durable; blocking queries and
 *   subscribers are told in index order, only after durability;
 * - a Backend failure makes the store refuse every later write (fail-stop): memory may
 *   then hold a change the disk does not, and only a restart (which reloads the disk)
 *   makes them agree again. Nothing acknowledged is lost either way.
 *
 * Storage layout: `<table>/<encoded id>` → JSON document (through `codec`, so a service
 * can keep secrets encrypted at rest), `_meta/index` → the global index,
 * `_meta/table/<table>` → each table's index (kept, so a delete never moves it back). The
 * two index records are a number's decimal text, not through `codec`: they hold no secret,
 * and sealing them was two of a write's three AES-GCM records (issue 30). Data directories
 * written before hold them through `codec`; both forms are read ({@link decodeIndex}).
 *
 * **Shared mode** (`{ shared: true }`; issue 8 scope 3, DESIGN.md "Growing past one
 * machine"): several servers keep the same state from one PostgreSQL table. One of them,
 * the leader, writes ({@link StateStore.setWritable}); every transaction also stores its
 * batch as `_log/<index>` (the last {@link LOG_KEEP} are kept), and the others
 * ({@link StateStore.catchUp}, woken by the backend's change feed) read those entries and
 * apply them in index order, so their watches and change feeds fire as on the leader. A
 * follower that fell behind the kept log, or whose memory may hold writes the database
 * does not (a failed or fenced batch, a lost leadership), reloads everything
 * ({@link StateStore.reload}). A failed write does not stop a shared store for good: it
 * refuses writes until a reload from the database succeeded.
 *
 * This file holds the store itself (reads, commits, durability order, shared-mode sync);
 * beside it: state-api.ts (its types and errors), state-tables.ts (the tables and indexes
 * in memory), state-txn.ts (a transaction's staging), state-watch.ts (blocking-query
 * watches), state-log.ts (the storage layout and the sync queue).
 *
 * @module
 */
import type { Backend, BackendOp } from './backend.js';
import {
  StateStoreFailed,
  StateStoreReadOnly,
  type ChangeBatch,
  type Indexed,
  type StateChange,
  type StateCodec,
  type StateStoreOptions,
  type TableSpec,
  type Txn,
} from './state-api.js';
import { docKey, LOG_KEEP, logKey, META_INDEX, metaTableKey, readPrefix, SyncQueue, type LogEntry, type SyncKind } from './state-log.js';
import { lowerBound, StateTables, type Doc, type Table } from './state-tables.js';
import { stageTxn } from './state-txn.js';
import { StateWatches } from './state-watch.js';

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** An index record's stored form: the decimal text (see the module doc). */
function encodeIndex(index: number): Uint8Array {
  return Buffer.from(String(index), 'latin1');
}

export { StateConflict, StateStoreFailed, StateStoreReadOnly } from './state-api.js';
export type { ChangeBatch, Indexed, StateChange, StateCodec, StateStoreOptions, TableSpec, Txn } from './state-api.js';

const plainCodec: StateCodec = { encode: (b) => b, decode: (b) => b };

/** See the module documentation. Open with {@link StateStore.open}. */
export class StateStore {
  private readonly tables: StateTables;
  private latest = 0;
  /** Highest index whose batch is durable and announced. */
  private committed = 0;
  private failure: Error | undefined;
  private readonly watches = new StateWatches((...tables) => this.tableIndex(...tables));
  private readonly subscribers = new Set<(b: ChangeBatch) => void>();
  /** Batches durable but waiting for an earlier index to become durable, by index. */
  private readonly durable = new Map<number, ChangeBatch>();
  /** Shared mode: whether this server may write (the leader); always true otherwise. */
  private writable: boolean;
  /** Batches handed to the Backend and not yet settled (a reload waits for them). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The catch-up or reload running now, and the one queued behind it. */
  private readonly syncs = new SyncQueue((kind) => this.runSync(kind));
  private readonly reloadListeners = new Set<(index: number) => void>();

  private constructor(
    private readonly backend: Backend,
    private readonly codec: StateCodec,
    private readonly specs: readonly TableSpec[],
    private readonly shared: boolean,
  ) {
    this.writable = !shared;
    this.tables = new StateTables(specs);
  }

  /**
   * Loads every declared table from `backend` (documents of undeclared tables are left
   * alone). A shared store opens read-only (a follower) until {@link setWritable}.
   * @throws when a stored document cannot be decoded (the message names its key).
   */
  static async open(backend: Backend, specs: readonly TableSpec[], codec: StateCodec = plainCodec, options: StateStoreOptions = {}): Promise<StateStore> {
    const store = new StateStore(backend, codec, specs, options.shared === true);
    await store.load();
    return store;
  }

  /**
   * An index record: its decimal text, or (written before issue 30, or by the plain codec,
   * whose JSON of a number is the same text) through the codec. An encrypted value never
   * starts with a digit (aead-codec.ts: a version byte of 1).
   * @throws when it is neither (the message names its key)
   */
  private decodeIndex(key: string, b: Uint8Array): number {
    if (b.length > 0 && b[0]! >= DIGIT_0 && b[0]! <= DIGIT_9) {
      const n = Number(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'));
      if (Number.isSafeInteger(n)) return n;
    }
    const v = this.decode(key, b);
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`state store: "${key}" is not an index`);
    return v;
  }

  private decode(key: string, b: Uint8Array): unknown {
    try {
      return JSON.parse(Buffer.from(this.codec.decode(b)).toString('utf8'));
    } catch (err) {
      throw new Error(`state store: cannot decode "${key}": ${(err as Error).message}`);
    }
  }

  /** Reads the whole state from the Backend into fresh tables, then swaps them in (reads never see half a load). */
  private async load(): Promise<void> {
    const idx = await this.backend.get(META_INDEX);
    const latest = idx ? this.decodeIndex(META_INDEX, idx) : 0;
    const loaded = new Map<string, { index: number; docs: Array<[string, Doc]> }>();
    for (const spec of this.specs) {
      const ti = await this.backend.get(metaTableKey(spec.name));
      const docs: Array<[string, Doc]> = [];
      for (const [key, raw] of await readPrefix(this.backend, `${spec.name}/`)) {
        docs.push([decodeURIComponent(key.slice(spec.name.length + 1)), this.decode(key, raw) as Doc]);
      }
      loaded.set(spec.name, { index: ti ? this.decodeIndex(metaTableKey(spec.name), ti) : 0, docs });
    }
    this.tables.reset();
    for (const [name, { index, docs }] of loaded) {
      const t = this.table(name);
      t.index = t.committedIndex = index;
      for (const [id, doc] of docs) this.tables.insertLoaded(t, id, doc);
    }
    this.latest = this.committed = latest;
    this.durable.clear();
  }

  /** The latest modify index (0 on an empty store). */
  get index(): number {
    return this.latest;
  }

  /**
   * Index of the last change to any of `tables` that reads already see (durable or still
   * being committed): a cache of something derived from these tables is current while
   * this has not moved.
   */
  latestIndex(...tables: string[]): number {
    return Math.max(0, ...tables.map((t) => this.table(t).index));
  }

  /**
   * Index of the last durable change to any of `tables` (0 when none ever changed): what
   * a read reports as `X-…-Index` and what blocking queries compare against.
   */
  tableIndex(...tables: string[]): number {
    return Math.max(0, ...tables.map((t) => this.table(t).committedIndex));
  }

  /** Document `id` of `table`. */
  get<T>(table: string, id: string): (T & Indexed) | undefined {
    return this.table(table).docs.get(id) as (T & Indexed) | undefined;
  }

  /** The document whose unique index `index` has key `key`. */
  getBy<T>(table: string, index: string, key: string): (T & Indexed) | undefined {
    const t = this.table(table);
    const id = this.tables.uniqueOf(t, index).get(key);
    return id === undefined ? undefined : (t.docs.get(id) as T & Indexed);
  }

  /** How many documents `table` holds. */
  count(table: string): number {
    return this.table(table).docs.size;
  }

  /** Every document of `table`, ordered by id. */
  list<T>(table: string): (T & Indexed)[] {
    const t = this.table(table);
    return this.tables.sortedIds(t).map((id) => t.docs.get(id) as T & Indexed);
  }

  /** The documents of `table` in group `group` under `key` (TableSpec `groups`), in id order (O(k log k)). @throws Error for an undeclared group. */
  listBy<T>(table: string, group: string, key: string): (T & Indexed)[] {
    const t = this.table(table);
    return [...this.tables.groupIds(t, group, key)].sort().map((id) => t.docs.get(id) as T & Indexed);
  }

  /** The documents of `table` whose id starts with `prefix`, in id order (O(log n + k)). */
  listPrefix<T>(table: string, prefix: string): (T & Indexed)[] {
    const t = this.table(table);
    return this.tables.idsWithPrefix(t, prefix).map((id) => t.docs.get(id) as T & Indexed);
  }

  /**
   * The documents of `table` in id order, from the first id ≥ `fromId` (`''`: the first),
   * produced as they are consumed: a paged list reads only what its page needs, and
   * finding the start costs O(log n) however deep it is. Consume it before the next
   * transaction (it walks the live table).
   */
  *scan<T>(table: string, fromId = ''): Generator<T & Indexed> {
    const t = this.table(table);
    const ids = this.tables.sortedIds(t);
    for (let i = fromId === '' ? 0 : lowerBound(ids, fromId); i < ids.length; i++) {
      const doc = t.docs.get(ids[i]!);
      if (doc) yield doc as T & Indexed;
    }
  }

  /**
   * Runs `fn` as one transaction (see the module doc) and resolves once it is durable,
   * with its result and its index. A transaction that writes nothing commits nothing
   * and reports the current index.
   * @throws whatever `fn` throws (nothing changed); {@link StateConflict};
   *   {@link StateStoreFailed} after a Backend failure; the Backend's error for this batch.
   * `label` names the write on the change feed ({@link ChangeBatch.label}).
   */
  async txn<R>(fn: (tx: Txn) => R, label?: string): Promise<{ result: R; index: number }> {
    if (this.failure) throw new StateStoreFailed(`state store stopped after a storage failure: ${this.failure.message}`);
    if (!this.writable) throw new StateStoreReadOnly('this server is not the leader: its state is read-only');
    const index = this.latest + 1;
    const { tx, staged, changes } = stageTxn(this.tables, index);
    const result = fn(tx);
    if (changes.length === 0) return { result, index: this.latest };

    // Apply to memory now (the next transaction must see it), persist, announce when durable.
    this.latest = index;
    const indexValue = encodeIndex(index);
    const ops: BackendOp[] = [{ key: META_INDEX, value: indexValue }];
    if (this.shared) {
      const entry: LogEntry = { index, label, changes: changes.map((c) => ({ table: c.table, id: c.id, op: c.op, doc: c.doc as Doc | undefined })) };
      ops.push({ key: logKey(index), value: this.encode(entry) });
      if (index > LOG_KEEP) ops.push({ key: logKey(index - LOG_KEEP) });
    }
    for (const [table, docs] of staged) {
      const t = this.table(table);
      t.index = index;
      ops.push({ key: metaTableKey(table), value: indexValue });
      for (const [id, doc] of docs) {
        this.tables.apply(t, id, doc);
        ops.push(doc ? { key: docKey(table, id), value: this.encode(doc) } : { key: docKey(table, id) });
      }
    }
    const write = this.backend.batch(ops);
    this.inFlight.add(write);
    try {
      await write;
    } catch (err) {
      if (!this.failure) {
        this.failure = err as Error;
        // Memory may now hold what the database does not: reload (retried by the next catchUp).
        if (this.shared) void this.syncs.schedule('reload').catch(() => undefined);
      }
      throw err;
    } finally {
      this.inFlight.delete(write);
    }
    this.markDurable(label === undefined ? { index, changes } : { index, changes, label });
    return { result, index };
  }

  /** Whether this store accepts writes: a shared store's leader, or any unshared store. */
  get isWritable(): boolean {
    return this.writable;
  }

  /**
   * Shared mode: makes this server the writer (`true`, once it holds the leadership and has
   * caught up: {@link catchUp}) or a follower (`false`). A former leader should
   * {@link reload} afterwards: a batch of its that failed may still be in memory.
   */
  setWritable(writable: boolean): void {
    if (!this.shared) throw new Error('state store: setWritable is for shared stores');
    this.writable = writable;
  }

  /**
   * Shared mode, on a follower: applies the log entries other servers committed after this
   * store's index, in order, announcing each like a local commit. With `full` (a sync point
   * of the change feed, a periodic check) it also reads `_meta/index`, and reloads
   * everything when the log no longer reaches back to this store's index. Resolves once
   * the state has caught up with what the database had when it was called. Concurrent
   * calls share one run (plus one more when called during it). No-op on a writable store.
   * @throws the Backend's error (the store stays as it was, consistent up to some index).
   */
  catchUp(full = false): Promise<void> {
    return this.syncs.schedule(full ? 'full' : 'tail');
  }

  /**
   * Re-reads the whole state from the Backend (after in-flight batches settle) and wakes
   * every watch; clears a storage failure. For a former leader, or a follower that
   * cannot follow the log. Subscribers of {@link onReload} are told; batches in between are
   * not announced on the change feed.
   */
  reload(): Promise<void> {
    return this.syncs.schedule('reload');
  }

  /** Calls `listener` with the new index after every {@link reload}; returns the unsubscriber. */
  onReload(listener: (index: number) => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  private async runSync(kind: SyncKind): Promise<void> {
    if (kind === 'reload' || this.failure) {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await this.reloadNow();
      this.failure = undefined;
      return;
    }
    if (!this.writable) await this.followLog(kind === 'full');
  }

  /** Loads the whole state and tells watches and reload listeners. */
  private async reloadNow(): Promise<void> {
    await this.load();
    this.watches.wakeAll();
    for (const l of this.reloadListeners) {
      try {
        l(this.latest);
      } catch {
        // A listener's failure must not stop the others.
      }
    }
  }

  /** Applies `_log/<index+1>`, `<index+2>`, … while they exist; see {@link catchUp}. */
  private async followLog(full: boolean): Promise<void> {
    // The stored index is read before the log: every entry up to it was committed by then
    // (an entry and its index are one transaction), so the log reads after it see them all
    // unless they were pruned. Read after the log, it could name a commit that landed
    // between the two reads, and a follower that is merely behind would reload for nothing.
    let stored: number | undefined;
    if (full) {
      const idx = await this.backend.get(META_INDEX);
      stored = idx ? this.decodeIndex(META_INDEX, idx) : 0;
    }
    for (;;) {
      const raw = await this.backend.get(logKey(this.latest + 1));
      if (this.writable) return; // became the leader meanwhile: its own writes are in memory
      if (!raw) break;
      this.applyEntry(this.decode(logKey(this.latest + 1), raw) as LogEntry);
    }
    // The entries we need were pruned (or never logged): start from the whole state.
    if (stored !== undefined && stored > this.latest && !this.writable) await this.reloadNow();
  }

  /** Applies one log entry to memory and announces it (a follower's commit). */
  private applyEntry(entry: LogEntry): void {
    const changes: StateChange[] = [];
    for (const c of entry.changes) {
      const t = this.table(c.table);
      const put = c.op === 'put' && c.doc ? c.doc : null;
      const before = this.tables.apply(t, c.id, put);
      if (put) changes.push({ table: c.table, id: c.id, op: 'put', doc: put, previous: before });
      else changes.push({ table: c.table, id: c.id, op: 'delete', previous: before });
      t.index = entry.index;
    }
    this.latest = entry.index;
    this.markDurable(entry.label === undefined ? { index: entry.index, changes } : { index: entry.index, changes, label: entry.label });
  }

  /** Watches waiting now ({@link watch}): the open blocking queries (metrics). */
  get openWatches(): number {
    return this.watches.size;
  }

  /**
   * Resolves with the index of `tables` once it is above `afterIndex`, or with the
   * current one after `timeoutMs` (a blocking query's wait; the caller adds jitter), or
   * when `signal` aborts. Resolves at once when the index is already above `afterIndex`.
   */
  watch(tables: readonly string[], afterIndex: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    return this.watches.watch(tables, afterIndex, timeoutMs, signal);
  }

  /**
   * Calls `listener` with every batch committed from now on, in index order, after it is
   * durable. Returns the function that unsubscribes. A throwing listener is not retried.
   */
  subscribe(listener: (batch: ChangeBatch) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  private markDurable(batch: ChangeBatch): void {
    this.durable.set(batch.index, batch);
    // Announce in index order: a later batch may become durable first (group commit).
    while (this.durable.has(this.committed + 1)) {
      const next = this.durable.get(this.committed + 1)!;
      this.durable.delete(next.index);
      this.committed = next.index;
      const touched = new Set(next.changes.map((c) => c.table));
      for (const t of touched) this.table(t).committedIndex = next.index;
      for (const s of this.subscribers) {
        try {
          s(next);
        } catch {
          // A subscriber's failure must not stop the others or the commit.
        }
      }
      this.watches.wake(touched);
    }
  }

  private encode(v: unknown): Uint8Array {
    return this.codec.encode(Buffer.from(JSON.stringify(v)));
  }

  private table(name: string): Table {
    return this.tables.table(name);
  }
}
