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
 * @module
 */
import type { Backend, BackendOp } from './backend.js';
import { listRecursive } from './view.js';

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

/** Reads and writes inside one transaction. Writes are seen by the later reads of the same transaction. */
export interface Txn {
  /** The index this transaction will commit at. */
  readonly index: number;
  get<T>(table: string, id: string): (T & Indexed) | undefined;
  getBy<T>(table: string, index: string, key: string): (T & Indexed) | undefined;
  list<T>(table: string): (T & Indexed)[];
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
const docKey = (t: string, id: string) => `${t}/${encodeURIComponent(id)}`;
const plainCodec: StateCodec = { encode: (b) => b, decode: (b) => b };

/** See the module documentation. Open with {@link StateStore.open}. */
export class StateStore {
  private readonly tables = new Map<string, Table>();
  private latest = 0;
  /** Highest index whose batch is durable and announced. */
  private committed = 0;
  private failure: Error | undefined;
  private waiters: Waiter[] = [];
  private readonly subscribers = new Set<(b: ChangeBatch) => void>();
  /** Batches durable but waiting for an earlier index to become durable, by index. */
  private readonly durable = new Map<number, ChangeBatch>();

  private constructor(
    private readonly backend: Backend,
    private readonly codec: StateCodec,
    specs: readonly TableSpec[],
  ) {
    for (const spec of specs) {
      if (!/^[a-z][a-z0-9_-]*$/.test(spec.name)) throw new Error(`state table name "${spec.name}" must be lower-case letters, digits, "-" or "_"`);
      const unique = new Map(Object.keys(spec.indexes ?? {}).map((k) => [k, new Map<string, string>()]));
      this.tables.set(spec.name, { spec, docs: new Map(), unique, index: 0, committedIndex: 0, sorted: undefined });
    }
  }

  /**
   * Loads every declared table from `backend` (documents of undeclared tables are left
   * alone). @throws when a stored document cannot be decoded (the message names its key).
   */
  static async open(backend: Backend, specs: readonly TableSpec[], codec: StateCodec = plainCodec): Promise<StateStore> {
    const store = new StateStore(backend, codec, specs);
    const decode = (key: string, b: Uint8Array): unknown => {
      try {
        return JSON.parse(Buffer.from(codec.decode(b)).toString('utf8'));
      } catch (err) {
        throw new Error(`state store: cannot decode "${key}": ${(err as Error).message}`);
      }
    };
    const idx = await backend.get(META_INDEX);
    store.latest = idx ? (decode(META_INDEX, idx) as number) : 0;
    for (const t of store.tables.values()) {
      const ti = await backend.get(metaTableKey(t.spec.name));
      t.index = t.committedIndex = ti ? (decode(metaTableKey(t.spec.name), ti) as number) : 0;
      for (const key of await listRecursive(backend, `${t.spec.name}/`)) {
        const raw = await backend.get(key);
        if (!raw) continue;
        const id = decodeURIComponent(key.slice(t.spec.name.length + 1));
        const doc = decode(key, raw) as Doc;
        t.docs.set(id, doc);
        store.indexInsert(t, id, doc);
      }
    }
    store.committed = store.latest;
    return store;
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
    try {
      await this.backend.batch(ops);
    } catch (err) {
      this.failure ??= err as Error;
      throw err;
    }
    this.markDurable(label === undefined ? { index, changes } : { index, changes, label });
    return { result, index };
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
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(this.tableIndex(...tables));
      };
      const waiter: Waiter = { tables, after: afterIndex, resolve: done };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done);
      this.waiters.push(waiter);
    });
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
