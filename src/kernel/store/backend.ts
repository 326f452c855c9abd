/**
 * The physical storage contract every Cairn service stands on (DESIGN.md "State").
 *
 * Keys are `/`-separated UTF-8 strings (no leading `/`); values are opaque bytes. A
 * write (`put`, `delete`, `batch`) resolves only once it is durable: after the promise
 * settles, a `kill -9` of the process loses nothing. Reads see every write whose
 * promise has been created (read-your-writes within the process), even before it is
 * durable, so read-modify-write sequences under a caller's lock stay consistent.
 *
 * @module
 */

/** One write inside an atomic {@link Backend.batch}. `value` absent means delete. */
export interface BackendOp {
  readonly key: string;
  readonly value?: Uint8Array;
}

/**
 * Byte storage by key. Implementations: `SqliteBackend` (embedded default, `sqlite.ts`) and
 * `PostgresBackend` (several servers on one database, `postgres.ts`); both group-commit
 * through `GroupCommitBackend` (`group-commit.ts`) and pass `backend.suite.ts`.
 */
export interface Backend {
  /** The value stored at `key`, or `undefined` when there is none. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Stores `value` at `key`; resolves once durable. */
  put(key: string, value: Uint8Array): Promise<void>;
  /** Removes `key` (no error when absent); resolves once durable. */
  delete(key: string): Promise<void>;
  /**
   * The immediate children of `prefix` (which is empty or ends in `/`), sorted by
   * byte order: leaf names as they are, sub-folders once each with a trailing `/`.
   * Example: keys `a/b`, `a/c/d`, `a/c/e` → `list("a/")` = `["b", "c/"]`.
   */
  list(prefix: string): Promise<string[]>;
  /**
   * Optional bulk read: every key under `prefix` (empty or ending in `/`, at any depth)
   * with its value, in byte order, in one round trip where the engine can (loading a
   * whole state at start). Same read-your-writes rule as `get`.
   */
  entries?(prefix: string): Promise<Array<[string, Uint8Array]>>;
  /**
   * Optional decoded read: the value at `key` parsed as UTF-8 JSON and deeply frozen
   * (`deepFreeze`), or `undefined` when there is none. A store that caches decoded values
   * may hand the same object to every caller until the key changes, so a read decodes
   * nothing (issue 15). Same read-your-writes rule as `get`. Callers use
   * {@link readJson} (view.ts), which falls back to `get` and a fresh decode.
   */
  getJson?(key: string): Promise<unknown>;
  /** Applies every op atomically (all or none); resolves once durable. */
  batch(ops: readonly BackendOp[]): Promise<void>;
  /**
   * Optional, for storage that several servers share (PostgreSQL): stores `value` at `key`
   * unless the key holds a value already, and resolves with what it holds afterwards, so
   * among servers racing the first writer wins and each learns the winner's value.
   */
  putIfAbsent?(key: string, value: Uint8Array): Promise<Uint8Array>;
  /** Flushes pending writes and releases the storage. Further calls reject. */
  close(): Promise<void>;
}
