/**
 * The types and errors a {@link StateStore} (state.ts) shows its callers: stored
 * documents, table declarations, the codec, transactions and the change feed's batches.
 *
 * @module
 */

/** Fields every stored document has. */
export interface Indexed {
  CreateIndex: number;
  ModifyIndex: number;
}

/** One declared table: its name, its secondary unique indexes and its groupings. */
export interface TableSpec {
  readonly name: string;
  /**
   * Unique secondary indexes: index name → key of a document (undefined = not indexed).
   * A transaction that would give two documents one key fails with {@link StateConflict}.
   */
  readonly indexes?: Readonly<Record<string, (doc: never) => string | undefined>>;
  /**
   * Non-unique secondary indexes: group name → key of a document (undefined = in no group),
   * many documents to a key; `listBy` reads one key's documents without scanning the table.
   */
  readonly groups?: Readonly<Record<string, (doc: never) => string | undefined>>;
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

/** The store refuses writes after a Backend failure (see state.ts, "fail-stop"). */
export class StateStoreFailed extends Error {}

/** A write on a shared store that is not the leader's (see {@link StateStore.setWritable}). */
export class StateStoreReadOnly extends Error {}

/** Options of {@link StateStore.open}. */
export interface StateStoreOptions {
  /** Shared mode (see state.ts): writes keep a log for the other servers; default false. */
  readonly shared?: boolean;
}

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
   * The documents of `table` whose key in group `group` (TableSpec `groups`) is `key`, in id
   * order, this transaction's own writes included. @throws Error for an undeclared group.
   */
  listBy<T>(table: string, group: string, key: string): (T & Indexed)[];
  /**
   * Stores `doc` at `id`: `CreateIndex` is kept from the existing document (or set to
   * this index), `ModifyIndex` set to this index. Returns the stored document.
   * @throws {StateConflict} on a unique-index clash.
   */
  put<T extends object>(table: string, id: string, doc: T): T & Indexed;
  /** Deletes `id`; false when there was none (the table index does not move then). */
  delete(table: string, id: string): boolean;
}
