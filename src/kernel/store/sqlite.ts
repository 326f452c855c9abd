/**
 * The embedded default {@link Backend}: one SQLite file through `better-sqlite3`
 * (DESIGN.md "State"; measurements in `reference/ecosystem.md` §3).
 *
 * Why it is built this way:
 * - `journal_mode=WAL` + `synchronous=FULL`: every commit fsyncs the WAL, so an
 *   acknowledged write survives `kill -9` and power loss. Never weaker: NORMAL is 9x
 *   faster per commit but may lose the last commits on power loss (§3).
 * - One fsync costs ~170 µs here, so one commit per write caps out near 6k writes/s,
 *   while 100 rows per commit reach ~122k rows/s (§3). Writes are therefore queued and
 *   **group-committed**: one flush per event-loop turn applies everything queued in one
 *   transaction and only then resolves the writers' promises.
 * - A normal rowid table (`k TEXT PRIMARY KEY, v BLOB`): `WITHOUT ROWID` was 2–3x
 *   slower to write and ~3.5x slower to read with values of this size (§3).
 * - Keys are TEXT with the default BINARY collation, i.e. compared with `memcmp` over
 *   their UTF-8 bytes: index order is the byte order `list` promises.
 *
 * @module
 */

import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Backend, BackendOp } from './backend.js';

/** Options of {@link SqliteBackend.open}. */
export interface SqliteBackendOptions {
  /**
   * The database file. Missing parent directories are created with mode 0700 and a
   * new file with mode 0600 (SQLite gives its `-wal`/`-shm` files the same mode).
   */
  readonly path: string;
  /**
   * How long (milliseconds) a statement waits for a lock held by another connection
   * to the same file before failing with `SQLITE_BUSY`. Default 5000. It blocks the
   * event loop while waiting (better-sqlite3 is synchronous), so keep it short.
   */
  readonly busyTimeoutMs?: number;
}

/**
 * Counters since {@link SqliteBackend.open}, for tests and benchmarks. A snapshot:
 * reading {@link SqliteBackend.stats} again gives fresh numbers.
 */
export interface SqliteBackendStats {
  /** SQLite write transactions committed (each one is one fsync of the WAL). */
  readonly commits: number;
  /** Flushes whose transaction failed as a whole (every write in it was rejected). */
  readonly failedCommits: number;
  /** Write calls (`put`, `delete`, `batch`) acknowledged durable. */
  readonly writes: number;
  /** Rows written or deleted by committed transactions (a batch counts each op). */
  readonly rows: number;
  /** Index rows visited by `list` scans (shows that folders are skipped, not read). */
  readonly listRowsScanned: number;
}

/** One queued write call: its ops (validated, values copied) and its promise. */
interface Pending {
  readonly ops: readonly NormalizedOp[];
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** A validated op; `value === null` means delete. */
interface NormalizedOp {
  readonly key: string;
  readonly value: Buffer | null;
}

// Lone surrogates have no UTF-8 form (they would not round-trip through SQLite TEXT or
// PostgreSQL), so such keys are refused.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks a key against the contract of {@link Backend}: a non-empty well-formed string,
 * no leading or trailing `/` (a trailing `/` would be indistinguishable from a folder
 * in `list`), no NUL (PostgreSQL TEXT cannot hold it, and both backends must agree).
 *
 * @throws TypeError naming the problem.
 */
function checkKey(key: unknown): string {
  if (typeof key !== 'string') throw new TypeError(`store key must be a string, got ${typeof key}`);
  if (key === '') throw new TypeError('store key must not be empty');
  if (key.startsWith('/') || key.endsWith('/')) {
    throw new TypeError(`store key must not start or end with "/": ${JSON.stringify(key)}`);
  }
  if (key.includes('\0')) throw new TypeError(`store key must not contain NUL: ${JSON.stringify(key)}`);
  if (LONE_SURROGATE.test(key)) throw new TypeError(`store key is not valid Unicode: ${JSON.stringify(key)}`);
  return key;
}

/** Checks a `list` prefix: `""` or a well-formed key-like string ending in `/`. */
function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string') throw new TypeError(`list prefix must be a string, got ${typeof prefix}`);
  if (prefix === '') return prefix;
  if (!prefix.endsWith('/')) throw new TypeError(`list prefix must be "" or end with "/": ${JSON.stringify(prefix)}`);
  if (prefix.startsWith('/')) throw new TypeError(`list prefix must not start with "/": ${JSON.stringify(prefix)}`);
  if (prefix.includes('\0') || LONE_SURROGATE.test(prefix)) {
    throw new TypeError(`list prefix is not a valid key prefix: ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

/**
 * Copies the caller's bytes now: a group commit happens a turn later, and a caller
 * reusing its buffer in between must not change what gets stored.
 */
function copyValue(value: unknown): Buffer {
  if (!(value instanceof Uint8Array)) throw new TypeError('store value must be a Uint8Array');
  return Buffer.from(value);
}

/**
 * Orders strings by their UTF-8 bytes (= code point order), the order SQLite's BINARY
 * collation uses. Plain `<` on JS strings compares UTF-16 units, which puts U+10000 and
 * above (surrogates 0xD800–0xDFFF) *before* U+E000–U+FFFF; this moves them after.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The smallest string sorting after every string that starts with `folder` (which ends
 * in `/`): the `/` becomes `0`, the next byte. Used both as the range end of a `list`
 * scan and as the re-seek point that skips a sub-folder's descendants.
 */
function folderEnd(folder: string): string {
  return folder.slice(0, -1) + '0';
}

/**
 * {@link Backend} on one SQLite file, with group commit.
 *
 * Writes are queued; one flush per event-loop turn (`setImmediate`) applies every queued
 * op in one `BEGIN IMMEDIATE` transaction, in call order, then settles their promises,
 * so N concurrent writers pay one fsync. Reads consult an in-memory overlay of the
 * queued ops (later ops win) before the file, so a read sees every write whose promise
 * exists. If one write call fails inside the flush (a statement error such as an
 * oversized value), only that call is rolled back (a batch runs in its own savepoint)
 * and rejected; if the transaction as a whole fails (BEGIN/COMMIT error, I/O error),
 * every call of the flush is rejected. Either way the overlay is dropped afterwards,
 * so reads return what the file holds.
 *
 * Not safe to share the file with another writer process: its writes are seen, but
 * this process's queued writes are not visible to it until committed.
 */
export class SqliteBackend implements Backend {
  /** The database file, resolved to an absolute path. */
  readonly path: string;

  private readonly db: Database.Database;
  private readonly stmtGet: Database.Statement<[string], Buffer>;
  private readonly stmtPut: Database.Statement<[string, Buffer]>;
  private readonly stmtDelete: Database.Statement<[string]>;
  private readonly stmtScanFrom: Database.Statement<[string], string>;
  private readonly stmtScanRange: Database.Statement<[string, string], string>;
  private readonly runFlush: Database.Transaction<(pending: readonly Pending[]) => unknown[]>;
  private readonly runBatch: Database.Transaction<(ops: readonly NormalizedOp[]) => void>;

  /** Write calls waiting for the next flush, in call order. */
  private queue: Pending[] = [];
  /** Latest queued op per key (`null` = delete); exactly the ops in {@link queue}. */
  private overlay = new Map<string, Buffer | null>();
  private flushTimer: NodeJS.Immediate | undefined;
  private closed = false;

  private commits = 0;
  private failedCommits = 0;
  private writes = 0;
  private rows = 0;
  private listRowsScanned = 0;

  private constructor(path: string, busyTimeoutMs: number) {
    this.path = path;
    this.db = new Database(path, { timeout: busyTimeoutMs });
    try {
      const mode = this.db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') {
        throw new Error(`SqliteBackend(${path}): cannot enable WAL (journal_mode is ${String(mode)})`);
      }
      // FULL: the WAL is fsynced at every commit, which is what "durable" means here.
      this.db.pragma('synchronous = FULL');
      this.migrate();
      this.stmtGet = this.db.prepare<[string], Buffer>('SELECT v FROM kv WHERE k = ?').pluck();
      this.stmtPut = this.db.prepare<[string, Buffer]>(
        // An upsert keeps the rowid (REPLACE would delete and re-insert the row).
        'INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v',
      );
      this.stmtDelete = this.db.prepare<[string]>('DELETE FROM kv WHERE k = ?');
      this.stmtScanFrom = this.db.prepare<[string], string>('SELECT k FROM kv WHERE k >= ? ORDER BY k').pluck();
      this.stmtScanRange = this.db
        .prepare<[string, string], string>('SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY k')
        .pluck();
      this.runBatch = this.db.transaction((ops: readonly NormalizedOp[]) => {
        for (const op of ops) this.applyOp(op);
      });
      this.runFlush = this.db.transaction((pending: readonly Pending[]) => this.applyAll(pending));
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /**
   * Opens (creating if needed) the database at `options.path`.
   *
   * @throws Error when the directory or file cannot be created/opened, when WAL cannot be
   *   enabled, or when the file was written by a newer schema version.
   */
  static open(options: SqliteBackendOptions): SqliteBackend {
    const path = resolve(options.path);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Create the file ourselves so it starts as 0600 whatever the umask; SQLite treats
    // an empty file as a new database and gives its -wal/-shm files the same mode.
    let fd: number | undefined;
    try {
      fd = openSync(path, 'wx', 0o600);
      fchmodSync(fd, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return new SqliteBackend(path, options.busyTimeoutMs ?? 5000);
  }

  /** Counters for tests and benchmarks; see {@link SqliteBackendStats}. */
  get stats(): SqliteBackendStats {
    return {
      commits: this.commits,
      failedCommits: this.failedCommits,
      writes: this.writes,
      rows: this.rows,
      listRowsScanned: this.listRowsScanned,
    };
  }

  /** @inheritdoc */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.checkOpen();
    checkKey(key);
    if (this.overlay.size > 0) {
      const queued = this.overlay.get(key);
      // Copy so a caller mutating the result cannot change what will be committed.
      if (queued !== undefined) return queued === null ? undefined : Buffer.from(queued);
    }
    return this.stmtGet.get(key);
  }

  /** @inheritdoc */
  put(key: string, value: Uint8Array): Promise<void> {
    try {
      this.checkOpen();
      return this.enqueue([{ key: checkKey(key), value: copyValue(value) }]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** @inheritdoc */
  delete(key: string): Promise<void> {
    try {
      this.checkOpen();
      return this.enqueue([{ key: checkKey(key), value: null }]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * @inheritdoc
   * Every op is validated before anything is queued, so a batch with one bad op (say a
   * non-string key) rejects with a TypeError and leaves nothing, not even in the overlay.
   */
  batch(ops: readonly BackendOp[]): Promise<void> {
    try {
      this.checkOpen();
      if (!Array.isArray(ops)) throw new TypeError('batch ops must be an array');
      const normalized = ops.map((op): NormalizedOp => {
        if (op === null || typeof op !== 'object') throw new TypeError('batch op must be an object');
        return { key: checkKey(op.key), value: op.value === undefined ? null : copyValue(op.value) };
      });
      if (normalized.length === 0) return Promise.resolve();
      return this.enqueue(normalized);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * @inheritdoc
   * An indexed range scan `k >= prefix AND k < end(prefix)`; when it meets a key inside
   * a sub-folder it records the folder and re-seeks past all of the folder's keys, so
   * the cost is one index seek per child, however many keys a sub-folder holds.
   */
  async list(prefix: string): Promise<string[]> {
    this.checkOpen();
    checkPrefix(prefix);
    const names = new Set<string>();
    const folders: string[] = [];
    let from = prefix;
    for (;;) {
      let reseek: string | undefined;
      const rows =
        prefix === '' ? this.stmtScanFrom.iterate(from) : this.stmtScanRange.iterate(from, folderEnd(prefix));
      for (const key of rows) {
        this.listRowsScanned++;
        const slash = key.indexOf('/', prefix.length);
        if (slash < 0) {
          names.add(key.slice(prefix.length));
          continue;
        }
        const folder = key.slice(0, slash + 1);
        names.add(folder.slice(prefix.length));
        folders.push(folder);
        reseek = folderEnd(folder);
        break; // leaving the for-of closes the SQLite cursor
      }
      if (reseek === undefined) break;
      from = reseek;
    }
    if (this.overlay.size > 0) this.mergeOverlay(prefix, names, folders);
    return [...names].sort(compareKeys);
  }

  /**
   * Commits every queued write, then closes the file. Queued writes' promises settle
   * before this resolves. Every later call (including `close`) rejects with an Error.
   */
  async close(): Promise<void> {
    this.checkOpen();
    this.closed = true;
    if (this.flushTimer !== undefined) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    try {
      this.flush();
    } finally {
      this.db.close();
    }
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`SqliteBackend(${this.path}) is closed`);
  }

  private enqueue(ops: readonly NormalizedOp[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ops, resolve, reject });
      for (const op of ops) this.overlay.set(op.key, op.value);
      // One flush per event-loop turn: everything queued during this turn (e.g. all 32
      // writers resumed by the previous flush) shares one transaction and one fsync.
      this.flushTimer ??= setImmediate(() => {
        this.flushTimer = undefined;
        this.flush();
      });
    });
  }

  /**
   * Applies the whole queue in one transaction and settles its promises. Synchronous
   * (better-sqlite3 is), so no read or write can interleave: the overlay describes
   * exactly this queue and can be cleared once the transaction is over.
   */
  private flush(): void {
    const pending = this.queue;
    if (pending.length === 0) return;
    this.queue = [];
    let outcomes: unknown[];
    try {
      outcomes = this.runFlush.immediate(pending);
      this.commits++;
    } catch (err) {
      this.failedCommits++;
      this.overlay.clear();
      for (const p of pending) p.reject(err);
      return;
    }
    this.overlay.clear();
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i];
      const failure = outcomes[i];
      if (failure === undefined) {
        this.writes++;
        this.rows += p.ops.length;
        p.resolve();
      } else {
        p.reject(failure);
      }
    }
  }

  /**
   * Body of the flush transaction. Returns one entry per call: `undefined` when applied,
   * else the error that rolled just that call back. A single statement that fails is
   * undone by SQLite itself; a multi-op batch runs in a savepoint. If SQLite aborted the
   * whole transaction (I/O error, disk full), the error is rethrown: all calls fail.
   */
  private applyAll(pending: readonly Pending[]): unknown[] {
    const outcomes: unknown[] = new Array(pending.length);
    for (let i = 0; i < pending.length; i++) {
      const { ops } = pending[i];
      try {
        if (ops.length === 1) this.applyOp(ops[0]);
        else this.runBatch(ops); // nested db.transaction = SAVEPOINT
      } catch (err) {
        if (!this.db.inTransaction) throw err;
        outcomes[i] = err ?? new Error('write failed');
      }
    }
    return outcomes;
  }

  private applyOp(op: NormalizedOp): void {
    if (op.value === null) this.stmtDelete.run(op.key);
    else this.stmtPut.run(op.key, op.value);
  }

  /**
   * Folds the queued-but-uncommitted ops under `prefix` into a `list` result: queued
   * puts add their child name; a child the file supplied survives only if some key
   * under it is not queued for deletion.
   */
  private mergeOverlay(prefix: string, names: Set<string>, folders: readonly string[]): void {
    const deletedLeaves: string[] = [];
    const touchedFolders = new Set<string>();
    const addedFolders = new Set<string>();
    for (const [key, value] of this.overlay) {
      if (!key.startsWith(prefix)) continue;
      const slash = key.indexOf('/', prefix.length);
      const name = slash < 0 ? key.slice(prefix.length) : key.slice(prefix.length, slash + 1);
      if (value !== null) {
        names.add(name);
        if (slash >= 0) addedFolders.add(name);
      } else if (slash < 0) {
        deletedLeaves.push(name);
      } else {
        touchedFolders.add(name);
      }
    }
    // The overlay is latest-wins per key, so a deleted leaf has no queued put.
    for (const name of deletedLeaves) names.delete(name);
    const fileFolders = new Set(folders.map((f) => f.slice(prefix.length)));
    for (const name of touchedFolders) {
      if (addedFolders.has(name) || !fileFolders.has(name)) continue;
      if (!this.folderHasLiveKey(prefix + name)) names.delete(name);
    }
  }

  /**
   * Whether the file holds a key under `folder` that is not queued for deletion. Visits
   * at most (queued deletions under the folder + 1) rows.
   */
  private folderHasLiveKey(folder: string): boolean {
    for (const key of this.stmtScanRange.iterate(folder, folderEnd(folder))) {
      this.listRowsScanned++;
      if (this.overlay.get(key) !== null) return true;
    }
    return false;
  }

  /** Creates the table on a new file; refuses files from a newer schema. */
  private migrate(): void {
    const version = Number(this.db.pragma('user_version', { simple: true }));
    if (version > 1) {
      throw new Error(`SqliteBackend(${this.path}): schema version ${version} is newer than this build (1)`);
    }
    if (version === 0) {
      this.db.exec(`
        BEGIN IMMEDIATE;
        CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL);
        PRAGMA user_version = 1;
        COMMIT;
      `);
    }
  }
}
