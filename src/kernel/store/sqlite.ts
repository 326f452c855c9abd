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
 *   **group-committed**: everything queued goes to SQLite in one transaction, and the
 *   writers' promises resolve only after it is committed.
 * - The commits run in a worker thread that owns the writing connection
 *   (`sqlite-writer.ts`): better-sqlite3 is synchronous, and on the event loop each
 *   commit's fsync stalled every request. While one group commit syncs, the event loop
 *   serves requests and queues the next group. Reads stay on the main thread, on a
 *   second connection (WAL readers never wait for the writer).
 * - A normal rowid table (`k TEXT PRIMARY KEY, v BLOB`): `WITHOUT ROWID` was 2–3x
 *   slower to write and ~3.5x slower to read with values of this size (§3).
 * - Keys are TEXT with the default BINARY collation, i.e. compared with `memcmp` over
 *   their UTF-8 bytes: index order is the byte order `list` promises.
 *
 * @module
 */

import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Backend, BackendOp } from './backend.js';
import type { FlushReply, FlushRequest, WireError, WriterOptions } from './sqlite-writer.js';

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

/** The latest uncommitted op on a key and the number of the flush that carries it. */
interface OverlayEntry {
  readonly value: Buffer | null;
  readonly flush: number;
}

/** A group commit handed to the writer thread and not answered yet. */
interface Flush {
  readonly seq: number;
  readonly pending: readonly Pending[];
}

/** The writer thread's module (plain JavaScript, so it loads the same from `src/` and `dist/`). */
const WRITER_URL = new URL('./sqlite-writer.js', import.meta.url);

/** Rebuilds an Error sent by the writer thread (keeps `code`, e.g. `SQLITE_BUSY`). */
function fromWire(e: WireError): Error {
  return Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code });
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
 * Writes are queued. When the writer thread is idle, the first write of an event-loop
 * turn schedules a flush (`setImmediate`) that hands every queued op to the thread as
 * one `BEGIN IMMEDIATE` transaction, in call order; while a flush is being committed,
 * new writes queue up and go as the next flush as soon as it is answered. Promises
 * settle when their flush is committed (fsync'd), so N concurrent writers pay one fsync.
 * Reads consult an in-memory overlay of the queued and in-flight ops (later ops win)
 * before the file, so a read sees every write whose promise exists. If one write call
 * fails inside a flush (a statement error such as an oversized value), only that call is
 * rolled back (a batch runs in its own savepoint) and rejected; if the transaction as a
 * whole fails (BEGIN/COMMIT error, I/O error), every call of the flush is rejected.
 * Either way the flush's ops leave the overlay, so reads return what the file holds.
 * If the writer thread dies, every pending and later write rejects.
 *
 * Not safe to share the file with another writer process: its writes are seen, but
 * this process's queued writes are not visible to it until committed.
 */
export class SqliteBackend implements Backend {
  /** The database file, resolved to an absolute path. */
  readonly path: string;

  /** The main thread's connection: reads only (after creating the schema). */
  private readonly db: Database.Database;
  private readonly stmtGet: Database.Statement<[string], Buffer>;
  private readonly stmtScanFrom: Database.Statement<[string], string>;
  private readonly stmtScanRange: Database.Statement<[string, string], string>;
  private readonly writer: Worker;
  /** Settles when the writer thread has ended, for whatever reason. */
  private readonly writerExited: Promise<void>;

  /** Write calls waiting for the next flush, in call order. */
  private queue: Pending[] = [];
  /** Latest uncommitted op per key (`null` = delete): exactly the ops of {@link queue} and {@link inFlight}. */
  private overlay = new Map<string, OverlayEntry>();
  /** Number of the flush that {@link queue} will become. */
  private nextFlush = 1;
  private inFlight: Flush | undefined;
  private flushTimer: NodeJS.Immediate | undefined;
  /** Callers of `close` waiting for the queue and the in-flight flush to settle. */
  private drainWaiters: Array<() => void> = [];
  private closed = false;
  /** Set when the writer thread failed: every write rejects with it. */
  private broken: Error | undefined;

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
      // FULL: the WAL is fsynced at every commit (here only the schema's), which is what
      // "durable" means here; the writer thread sets the same on its connection.
      this.db.pragma('synchronous = FULL');
      this.migrate();
      this.stmtGet = this.db.prepare<[string], Buffer>('SELECT v FROM kv WHERE k = ?').pluck();
      this.stmtScanFrom = this.db.prepare<[string], string>('SELECT k FROM kv WHERE k >= ? ORDER BY k').pluck();
      this.stmtScanRange = this.db
        .prepare<[string, string], string>('SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY k')
        .pluck();
      this.writer = new Worker(WRITER_URL, { workerData: { path, busyTimeoutMs } satisfies WriterOptions });
    } catch (err) {
      this.db.close();
      throw err;
    }
    // Referenced only while a flush is in flight, so an idle backend never keeps the
    // process alive (queued writes do, through their setImmediate).
    this.writer.unref();
    this.writer.on('message', (reply: FlushReply) => this.onReply(reply));
    this.writer.on('error', (err) => this.fail(err));
    this.writerExited = new Promise<void>((resolve) => {
      this.writer.once('exit', (code) => {
        this.fail(new Error(`SqliteBackend(${path}): the writer thread exited (code ${code})`));
        resolve();
      });
    });
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
      if (queued !== undefined) return queued.value === null ? undefined : Buffer.from(queued.value);
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
   * Commits every queued write, stops the writer thread, then closes the file. Queued
   * writes' promises settle before this resolves. Every later call (including `close`)
   * rejects with an Error.
   */
  async close(): Promise<void> {
    this.checkOpen();
    this.closed = true;
    if (this.flushTimer !== undefined) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    this.sendQueued();
    if (this.inFlight !== undefined) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    this.writer.ref(); // keep the process alive until the thread has closed the file
    this.writer.postMessage({ type: 'close' });
    await this.writerExited;
    this.db.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`SqliteBackend(${this.path}) is closed`);
  }

  private enqueue(ops: readonly NormalizedOp[]): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ops, resolve, reject });
      for (const op of ops) this.overlay.set(op.key, { value: op.value, flush: this.nextFlush });
      // One flush per event-loop turn: everything queued during this turn shares one
      // transaction and one fsync. While a flush is in flight, its answer sends the queue.
      if (this.inFlight === undefined) this.flushTimer ??= setImmediate(this.sendQueued);
    });
  }

  /**
   * Hands the whole queue to the writer thread as one flush, unless a flush is already
   * in flight or nothing is queued. The values travel packed in one transferred buffer.
   */
  private readonly sendQueued = (): void => {
    this.flushTimer = undefined;
    const pending = this.queue;
    if (this.inFlight !== undefined || pending.length === 0 || this.broken) return;
    this.queue = [];
    let opCount = 0;
    let bytes = 0;
    for (const p of pending) {
      opCount += p.ops.length;
      for (const op of p.ops) bytes += op.value?.length ?? 0;
    }
    const calls = new Array<number>(pending.length);
    const keys = new Array<string>(opCount);
    const sizes = new Int32Array(opCount);
    const blob = new Uint8Array(bytes); // its own ArrayBuffer, so it can be transferred
    let i = 0;
    let offset = 0;
    for (let c = 0; c < pending.length; c++) {
      calls[c] = pending[c].ops.length;
      for (const op of pending[c].ops) {
        keys[i] = op.key;
        if (op.value === null) sizes[i] = -1;
        else {
          sizes[i] = op.value.length;
          blob.set(op.value, offset);
          offset += op.value.length;
        }
        i++;
      }
    }
    this.inFlight = { seq: this.nextFlush++, pending };
    this.writer.ref();
    const request: FlushRequest = { type: 'flush', calls, keys, sizes, blob };
    this.writer.postMessage(request, [blob.buffer]);
  };

  /** Settles the in-flight flush's promises, then sends what queued up meanwhile. */
  private onReply(reply: FlushReply): void {
    const flush = this.inFlight;
    if (flush === undefined) return;
    this.inFlight = undefined;
    this.dropFromOverlay(flush);
    if (reply.type === 'failed') {
      this.failedCommits++;
      const err = fromWire(reply.error);
      for (const p of flush.pending) p.reject(err);
    } else {
      this.commits++;
      for (let i = 0; i < flush.pending.length; i++) {
        const p = flush.pending[i];
        const failure = reply.errors[i];
        if (failure === null) {
          this.writes++;
          this.rows += p.ops.length;
          p.resolve();
        } else {
          p.reject(fromWire(failure));
        }
      }
    }
    this.sendQueued();
    if (this.inFlight === undefined) this.idle();
  }

  /** The writer thread died (or ended): rejects everything pending and every later write. */
  private fail(err: Error): void {
    this.broken ??= err;
    const flushes = this.inFlight ? [this.inFlight.pending, this.queue] : [this.queue];
    this.inFlight = undefined;
    this.queue = [];
    this.overlay.clear();
    for (const pending of flushes) for (const p of pending) p.reject(err);
    this.idle();
  }

  /** Nothing in flight: let the process exit, and wake `close`. */
  private idle(): void {
    this.writer.unref();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  /** Removes the ops of `flush` from the overlay, unless a later queued op replaced them. */
  private dropFromOverlay(flush: Flush): void {
    for (const p of flush.pending) {
      for (const op of p.ops) {
        if (this.overlay.get(op.key)?.flush === flush.seq) this.overlay.delete(op.key);
      }
    }
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
    for (const [key, { value }] of this.overlay) {
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
      if (this.overlay.get(key)?.value !== null) return true;
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
