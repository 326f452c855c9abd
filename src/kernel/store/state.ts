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
 * `_meta/table/<table>` → each table's index (kept, so a delete never moves it back).
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
 * @module
 */
import type { Backend, BackendOp } from './backend.js';
import { listRecursive } from './view.js';

/** Every key under `prefix` with its value: one range read when the Backend has {@link Backend.entries} (SQLite and PostgreSQL do; a view does not). */
async function readPrefix(backend: Backend, prefix: string): Promise<Array<[string, Uint8Array]>> {
  if (backend.entries) return backend.entries(prefix);
  const out: Array<[string, Uint8Array]> = [];
  for (const key of await listRecursive(backend, prefix)) {
    const raw = await backend.get(key);
    if (raw) out.push([key, raw]);
  }
  return out;
}

/** Fields every stored document has. */
export interface Indexed {
  CreateIndex: number;
  ModifyIndex: number;
}

/** One declared table: its name and its secondary unique indexes. */
export interface TableSpec {
  readonly name: string;
  /**
   * Unique secondary indexes: index name → key of a document (undefined = not indexed).
   * A transaction that would give two documents one key fails with {@link StateConflict}.
   */
  readonly indexes?: Readonly<Record<string, (doc: never) => string | undefined>>;
}

/** Encodes stored documents (e.g. encryption at rest). Default: UTF-8 JSON as is. */
export interface StateCodec {
  encode(plain: Uint8Array): Uint8Array;
  /** @throws when the bytes cannot be decoded (wrong key, corruption). */
  decode(stored: Uint8Array): Uint8Array;
}

/** One change of a committed batch. `doc` is absent for a delete. */
export interface StateChange {
  readonly table: string;
  readonly id: string;
  readonly op: 'put' | 'delete';
  readonly doc?: Readonly<Indexed & Record<string, unknown>>;
  readonly previous?: Readonly<Indexed & Record<string, unknown>>;
}

/** A committed transaction as the change feed delivers it. */
export interface ChangeBatch {
  readonly index: number;
  readonly changes: readonly StateChange[];
  /**
   * What kind of write this was, as the caller of {@link StateStore.txn} named it (the
   * scheduler names its writes the way the reference names its raft messages, and its event
   * stream types events by it: reference/sched.md §3.4); absent when unnamed.
   */
  readonly label?: string;
}

/** A unique-index violation: `message` names the table, index and key. */
export class StateConflict extends Error {}

/** The store refuses writes after a Backend failure (see the module doc). */
export class StateStoreFailed extends Error {}

/** A write on a shared store that is not the leader's (see {@link StateStore.setWritable}). */
export class StateStoreReadOnly extends Error {}

/** Options of {@link StateStore.open}. */
export interface StateStoreOptions {
  /** Shared mode (see the module doc): writes keep a log for the other servers; default false. */
  readonly shared?: boolean;
}

/** How many log entries a shared store keeps (a follower further behind reloads everything). */
export const LOG_KEEP = 10_000;

/** Reads and writes inside one transaction. Writes are seen by the later reads of the same transaction. */
export interface Txn {
  /** The index this transaction will commit at. */
  readonly index: number;
  get<T>(table: string, id: string): (T & Indexed) | undefined;
  getBy<T>(table: string, index: string, key: string): (T & Indexed) | undefined;
  list<T>(table: string): (T & Indexed)[];
  /**
   * The documents of `table` whose id starts with `prefix`, in id order: O(log n + k) (a
   * binary search in the sorted ids, and this transaction's own writes), where
   * {@link list} sorts the whole table.
   */
  listPrefix<T>(table: string, prefix: string): (T & Indexed)[];
  /**
   * Stores `doc` at `id`: `CreateIndex` is kept from the existing document (or set to
   * this index), `ModifyIndex` set to this index. Returns the stored document.
   * @throws {StateConflict} on a unique-index clash.
   */
  put<T extends object>(table: string, id: string, doc: T): T & Indexed;
  /** Deletes `id`; false when there was none (the table index does not move then). */
  delete(table: string, id: string): boolean;
}

type Doc = Indexed & Record<string, unknown>;

interface Table {
  readonly spec: TableSpec;
  readonly docs: Map<string, Doc>;
  /** index name → key → id */
  readonly unique: Map<string, Map<string, string>>;
  /** Index of the last change to this table, durable or not (memory). */
  index: number;
  /** Index of the last durable, announced change to this table. */
  committedIndex: number;
  /**
   * The ids in ascending order: built on the first ordered read, then kept up to date by
   * every commit (a binary search and one splice per new or deleted id), so an ordered read
   * never sorts the table again and a scan can start anywhere in O(log n).
   */
  sorted: string[] | undefined;
}

interface Waiter {
  readonly tables: readonly string[];
  readonly after: number;
  /** Ends the wait (the argument is ignored: the current index is reported). */
  readonly resolve: (ignored: number) => void;
}

const META_INDEX = '_meta/index';
const metaTableKey = (t: string) => `_meta/table/${t}`;
const LOG_PREFIX = '_log/';
/** Log keys sort by index: fixed-width decimal. */
const logKey = (index: number) => `${LOG_PREFIX}${String(index).padStart(16, '0')}`;
/** What a sync does: follow the log; also check for a gap; reload everything. */
type SyncKind = 'tail' | 'full' | 'reload';
const SYNC_STRENGTH: Readonly<Record<SyncKind, number>> = { tail: 0, full: 1, reload: 2 };
/** A log entry as stored (through the codec). */
interface LogEntry {
  readonly index: number;
  readonly label?: string;
  readonly changes: ReadonlyArray<{ table: string; id: string; op: 'put' | 'delete'; doc?: Doc }>;
}
const docKey = (t: string, id: string) => `${t}/${encodeURIComponent(id)}`;
const plainCodec: StateCodec = { encode: (b) => b, decode: (b) => b };

/** See the module documentation. Open with {@link StateStore.open}. */
export class StateStore {
  private readonly tables = new Map<string, Table>();
  private latest = 0;
  /** Highest index whose batch is durable and announced. */
  private committed = 0;
  private failure: Error | undefined;
  /** Open watches: a Set, so that ending one is O(1) when a change wakes a thousand. */
  private readonly waiters = new Set<Waiter>();
  /**
   * The watches of each abort signal: one `'abort'` listener per signal ends them all, where
   * one listener per watch cost O(n) per watch in Node's EventTarget (its add and remove
   * scan the listeners) and warned of a leak past ten.
   */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Waiter>>();
  private readonly subscribers = new Set<(b: ChangeBatch) => void>();
  /** Batches durable but waiting for an earlier index to become durable, by index. */
  private readonly durable = new Map<number, ChangeBatch>();
  /** Shared mode: whether this server may write (the leader); always true otherwise. */
  private writable: boolean;
  /** Batches handed to the Backend and not yet settled (a reload waits for them). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The catch-up or reload running now, and the one queued behind it ({@link scheduleSync}). */
  private running: Promise<void> | undefined;
  private queued: { kind: SyncKind; promise: Promise<void> } | undefined;
  private readonly reloadListeners = new Set<(index: number) => void>();

  private constructor(
    private readonly backend: Backend,
    private readonly codec: StateCodec,
    private readonly specs: readonly TableSpec[],
    private readonly shared: boolean,
  ) {
    this.writable = !shared;
    for (const spec of specs) {
      if (!/^[a-z][a-z0-9_-]*$/.test(spec.name)) throw new Error(`state table name "${spec.name}" must be lower-case letters, digits, "-" or "_"`);
    }
    this.resetTables();
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

  /** Empty tables for every declared spec. */
  private resetTables(): void {
    this.tables.clear();
    for (const spec of this.specs) {
      const unique = new Map(Object.keys(spec.indexes ?? {}).map((k) => [k, new Map<string, string>()]));
      this.tables.set(spec.name, { spec, docs: new Map(), unique, index: 0, committedIndex: 0, sorted: undefined });
    }
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
    const latest = idx ? (this.decode(META_INDEX, idx) as number) : 0;
    const loaded = new Map<string, { index: number; docs: Array<[string, Doc]> }>();
    for (const spec of this.specs) {
      const ti = await this.backend.get(metaTableKey(spec.name));
      const docs: Array<[string, Doc]> = [];
      for (const [key, raw] of await readPrefix(this.backend, `${spec.name}/`)) {
        docs.push([decodeURIComponent(key.slice(spec.name.length + 1)), this.decode(key, raw) as Doc]);
      }
      loaded.set(spec.name, { index: ti ? (this.decode(metaTableKey(spec.name), ti) as number) : 0, docs });
    }
    this.resetTables();
    for (const [name, { index, docs }] of loaded) {
      const t = this.table(name);
      t.index = t.committedIndex = index;
      for (const [id, doc] of docs) {
        t.docs.set(id, doc);
        this.indexInsert(t, id, doc);
      }
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
    const id = this.uniqueOf(t, index).get(key);
    return id === undefined ? undefined : (t.docs.get(id) as T & Indexed);
  }

  /** How many documents `table` holds. */
  count(table: string): number {
    return this.table(table).docs.size;
  }

  /** Every document of `table`, ordered by id. */
  list<T>(table: string): (T & Indexed)[] {
    const t = this.table(table);
    return this.sortedIds(t).map((id) => t.docs.get(id) as T & Indexed);
  }

  /** The documents of `table` whose id starts with `prefix`, in id order (O(log n + k)). */
  listPrefix<T>(table: string, prefix: string): (T & Indexed)[] {
    const t = this.table(table);
    return this.idsWithPrefix(t, prefix).map((id) => t.docs.get(id) as T & Indexed);
  }

  /**
   * The documents of `table` in id order, from the first id ≥ `fromId` (`''`: the first),
   * produced as they are consumed: a paged list reads only what its page needs, and
   * finding the start costs O(log n) however deep it is. Consume it before the next
   * transaction (it walks the live table).
   */
  *scan<T>(table: string, fromId = ''): Generator<T & Indexed> {
    const t = this.table(table);
    const ids = this.sortedIds(t);
    for (let i = fromId === '' ? 0 : lowerBound(ids, fromId); i < ids.length; i++) {
      const doc = t.docs.get(ids[i]!);
      if (doc) yield doc as T & Indexed;
    }
  }

  private sortedIds(t: Table): string[] {
    t.sorted ??= [...t.docs.keys()].sort();
    return t.sorted;
  }

  /** The ids of `t` that start with `prefix`, in order. */
  private idsWithPrefix(t: Table, prefix: string): string[] {
    const ids = this.sortedIds(t);
    const out: string[] = [];
    for (let i = lowerBound(ids, prefix); i < ids.length && ids[i]!.startsWith(prefix); i++) out.push(ids[i]!);
    return out;
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
    const staged = new Map<string, Map<string, Doc | null>>();
    const changes: StateChange[] = [];
    const self = this;
    const current = (table: string, id: string): Doc | undefined => {
      const s = staged.get(table)?.get(id);
      return s === null ? undefined : (s ?? self.table(table).docs.get(id));
    };
    /** Id of the document holding `key` in unique index `name`, staged writes included. */
    const holder = (table: string, name: string, key: string): string | undefined => {
      const t = self.table(table);
      const keyOf = t.spec.indexes?.[name];
      if (!keyOf) throw new Error(`state store: table "${table}" has no index "${name}"`);
      for (const [id, d] of staged.get(table) ?? []) if (d && keyOf(d as never) === key) return id;
      const id = self.uniqueOf(t, name).get(key);
      return id === undefined || staged.get(table)?.has(id) ? undefined : id;
    };
    const tx: Txn = {
      index,
      get: <T>(table: string, id: string) => current(table, id) as (T & Indexed) | undefined,
      getBy: <T>(table: string, name: string, key: string) => {
        const id = holder(table, name, key);
        return id === undefined ? undefined : (current(table, id) as T & Indexed);
      },
      list: <T>(table: string) => {
        const ids = new Set([...self.table(table).docs.keys(), ...(staged.get(table)?.keys() ?? [])]);
        return [...ids].sort().flatMap((id) => {
          const d = current(table, id);
          return d ? [d as T & Indexed] : [];
        });
      },
      listPrefix: <T>(table: string, prefix: string) => {
        const ids = new Set(self.idsWithPrefix(self.table(table), prefix));
        for (const id of staged.get(table)?.keys() ?? []) if (id.startsWith(prefix)) ids.add(id);
        return [...ids].sort().flatMap((id) => {
          const d = current(table, id);
          return d ? [d as T & Indexed] : [];
        });
      },
      put: <T extends object>(table: string, id: string, doc: T) => {
        const t = self.table(table);
        const previous = current(table, id);
        const stored = { ...doc, CreateIndex: previous?.CreateIndex ?? index, ModifyIndex: index } as unknown as Doc;
        for (const [name, keyOf] of Object.entries(t.spec.indexes ?? {})) {
          const key = keyOf(stored as never);
          if (key === undefined) continue;
          const other = holder(table, name, key);
          if (other !== undefined && other !== id) throw new StateConflict(`${table}: ${name} "${key}" is already in use`);
        }
        if (!staged.has(table)) staged.set(table, new Map());
        staged.get(table)!.set(id, stored);
        changes.push({ table, id, op: 'put', doc: stored, previous });
        return stored as unknown as T & Indexed;
      },
      delete: (table: string, id: string) => {
        const previous = current(table, id);
        if (!previous) return false;
        if (!staged.has(table)) staged.set(table, new Map());
        staged.get(table)!.set(id, null);
        changes.push({ table, id, op: 'delete', previous });
        return true;
      },
    };
    const result = fn(tx);
    if (changes.length === 0) return { result, index: this.latest };

    // Apply to memory now (the next transaction must see it), persist, announce when durable.
    this.latest = index;
    const ops: BackendOp[] = [{ key: META_INDEX, value: this.encode(index) }];
    if (this.shared) {
      const entry: LogEntry = { index, label, changes: changes.map((c) => ({ table: c.table, id: c.id, op: c.op, doc: c.doc as Doc | undefined })) };
      ops.push({ key: logKey(index), value: this.encode(entry) });
      if (index > LOG_KEEP) ops.push({ key: logKey(index - LOG_KEEP) });
    }
    for (const [table, docs] of staged) {
      const t = this.table(table);
      t.index = index;
      ops.push({ key: metaTableKey(table), value: this.encode(index) });
      for (const [id, doc] of docs) {
        const before = t.docs.get(id);
        if (before) this.indexRemove(t, id, before);
        if (doc) {
          t.docs.set(id, doc);
          this.indexInsert(t, id, doc);
          if (!before && t.sorted) t.sorted.splice(lowerBound(t.sorted, id), 0, id);
          ops.push({ key: docKey(table, id), value: this.encode(doc) });
        } else {
          t.docs.delete(id);
          if (before && t.sorted) t.sorted.splice(lowerBound(t.sorted, id), 1);
          ops.push({ key: docKey(table, id) });
        }
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
        if (this.shared) void this.scheduleSync('reload').catch(() => undefined);
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
    return this.scheduleSync(full ? 'full' : 'tail');
  }

  /**
   * Re-reads the whole state from the Backend (after in-flight batches settle) and wakes
   * every watch; clears a storage failure. For a former leader, or a follower that
   * cannot follow the log. Subscribers of {@link onReload} are told; batches in between are
   * not announced on the change feed.
   */
  reload(): Promise<void> {
    return this.scheduleSync('reload');
  }

  /** Calls `listener` with the new index after every {@link reload}; returns the unsubscriber. */
  onReload(listener: (index: number) => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  /**
   * Runs a sync of `kind` now, or, when one is running, once after it: callers arriving
   * during a run share that one follow-up, which does the strongest kind any of them asked.
   */
  private scheduleSync(kind: SyncKind): Promise<void> {
    if (!this.running) return this.startSync(kind);
    if (this.queued) {
      this.queued.kind = SYNC_STRENGTH[kind] > SYNC_STRENGTH[this.queued.kind] ? kind : this.queued.kind;
      return this.queued.promise;
    }
    const queued: { kind: SyncKind; promise: Promise<void> } = { kind, promise: Promise.resolve() };
    queued.promise = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.startSync(queued.kind);
      });
    this.queued = queued;
    return queued.promise;
  }

  private startSync(kind: SyncKind): Promise<void> {
    const run = this.runSync(kind).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
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
    for (const w of [...this.waiters]) w.resolve(0);
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
      stored = idx ? (this.decode(META_INDEX, idx) as number) : 0;
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
      const before = t.docs.get(c.id);
      if (before) this.indexRemove(t, c.id, before);
      if (c.op === 'put' && c.doc) {
        t.docs.set(c.id, c.doc);
        this.indexInsert(t, c.id, c.doc);
        if (!before && t.sorted) t.sorted.splice(lowerBound(t.sorted, c.id), 0, c.id);
        changes.push({ table: c.table, id: c.id, op: 'put', doc: c.doc, previous: before });
      } else {
        t.docs.delete(c.id);
        if (before && t.sorted) t.sorted.splice(lowerBound(t.sorted, c.id), 1);
        changes.push({ table: c.table, id: c.id, op: 'delete', previous: before });
      }
      t.index = entry.index;
    }
    this.latest = entry.index;
    this.markDurable(entry.label === undefined ? { index: entry.index, changes } : { index: entry.index, changes, label: entry.label });
  }

  /** Watches waiting now ({@link watch}): the open blocking queries (metrics). */
  get openWatches(): number {
    return this.waiters.size;
  }

  /**
   * Resolves with the index of `tables` once it is above `afterIndex`, or with the
   * current one after `timeoutMs` (a blocking query's wait; the caller adds jitter), or
   * when `signal` aborts. Resolves at once when the index is already above `afterIndex`.
   */
  watch(tables: readonly string[], afterIndex: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const now = this.tableIndex(...tables);
    if (now > afterIndex || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const aborting = signal && this.watchesOf(signal);
      const done = () => {
        clearTimeout(timer);
        aborting?.delete(waiter);
        this.waiters.delete(waiter);
        resolve(this.tableIndex(...tables));
      };
      const waiter: Waiter = { tables, after: afterIndex, resolve: done };
      const timer = setTimeout(done, timeoutMs);
      aborting?.add(waiter);
      this.waiters.add(waiter);
    });
  }

  /** The open watches ended by `signal`, listening on it the first time. */
  private watchesOf(signal: AbortSignal): Set<Waiter> {
    let watches = this.bySignal.get(signal);
    if (!watches) {
      const set = new Set<Waiter>();
      signal.addEventListener('abort', () => [...set].forEach((w) => w.resolve(0)), { once: true });
      this.bySignal.set(signal, set);
      watches = set;
    }
    return watches;
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
      for (const w of [...this.waiters]) if (w.tables.some((t) => touched.has(t)) && this.tableIndex(...w.tables) > w.after) w.resolve(0);
    }
  }

  private encode(v: unknown): Uint8Array {
    return this.codec.encode(Buffer.from(JSON.stringify(v)));
  }

  private table(name: string): Table {
    const t = this.tables.get(name);
    if (!t) throw new Error(`state store: no table "${name}"`);
    return t;
  }

  private uniqueOf(t: Table, name: string): Map<string, string> {
    const m = t.unique.get(name);
    if (!m) throw new Error(`state store: table "${t.spec.name}" has no index "${name}"`);
    return m;
  }

  private indexInsert(t: Table, id: string, doc: Doc): void {
    for (const [name, keyOf] of Object.entries(t.spec.indexes ?? {})) {
      const key = keyOf(doc as never);
      if (key !== undefined) t.unique.get(name)!.set(key, id);
    }
  }

  private indexRemove(t: Table, id: string, doc: Doc): void {
    for (const [name, keyOf] of Object.entries(t.spec.indexes ?? {})) {
      const key = keyOf(doc as never);
      if (key !== undefined && t.unique.get(name)!.get(key) === id) t.unique.get(name)!.delete(key);
    }
  }
}

/** The first position in sorted `ids` whose id is ≥ `id` (string order, as `Array#sort`). */
function lowerBound(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
