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
 *   (`sqlite-writer.js`): better-sqlite3 is synchronous, and on the event loop each
 *   commit's fsync stalled every request. While one group commit syncs, the event loop
 *   serves requests and hands the thread the next groups, which it commits together as
 *   soon as the fsync returns (a pipeline: the thread never waits for the event loop).
 *   Reads stay on the main thread, on a second connection (WAL readers never wait for
 *   the writer).
 * - A normal rowid table (`k TEXT PRIMARY KEY, v BLOB`): `WITHOUT ROWID` was 2–3x
 *   slower to write and ~3.5x slower to read with values of this size (§3).
 * - Keys are TEXT with the default BINARY collation, i.e. compared with `memcmp` over
 *   their UTF-8 bytes: index order is the byte order `list` promises.
 * - A Bloom filter of every key stored ({@link KeyFilter}) answers a read of a key that
 *   was never stored without touching SQLite: each commit of the writer thread resets the
 *   read connection's page cache, so such a miss (the existence check of every new key)
 *   cost a B-tree descent through the WAL index, ~12 % of the main thread at full write
 *   load (issue 15).
 *
 * @module
 */

import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Backend } from './backend.js';
import { GroupCommitBackend, entriesWithOverlay, foldOverlay, type Flush } from './group-commit.js';
import { KeyFilter } from './key-filter.js';
import { checkPrefix, compareKeys, folderEnd } from './keys.js';
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
  /** Groups whose transaction failed as a whole (every write in them was rejected). */
  readonly failedCommits: number;
  /** Write calls (`put`, `delete`, `batch`) acknowledged durable. */
  readonly writes: number;
  /** Groups handed to the writer thread while an earlier one was still committing. */
  readonly pipelined: number;
  /** Rows written or deleted by committed transactions (a batch counts each op). */
  readonly rows: number;
  /** Index rows visited by `list` scans (shows that folders are skipped, not read). */
  readonly listRowsScanned: number;
  /** Reads of a single key answered "absent" by the key filter, without a SQLite read. */
  readonly readsSkipped: number;
  /** Reads of a single key that went to SQLite. */
  readonly storedReads: number;
}

/**
 * Groups handed to the writer thread at once. Past it, writes queue on the main thread
 * and go as one larger group when the oldest is answered.
 */
const MAX_GROUPS_IN_FLIGHT = 8;

/** The writer thread's module (plain JavaScript, so it loads the same from `src/` and `dist/`). */
const WRITER_URL = new URL('./sqlite-writer.js', import.meta.url);

/** Rebuilds an Error sent by the writer thread (keeps `code`, e.g. `SQLITE_BUSY`). */
function fromWire(e: WireError): Error {
  return Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code });
}

/**
 * {@link Backend} on one SQLite file, with group commit.
 *
 * Writes are queued. The first write of an event-loop turn schedules a flush
 * (`setImmediate`) that hands every queued op to the thread, in call order, unless the
 * thread holds {@link MAX_GROUPS_IN_FLIGHT} flushes already (then the queue goes when the
 * oldest is answered). The thread commits each flush in a `BEGIN IMMEDIATE` transaction
 * together with the flushes that arrived while the previous transaction committed.
 * Promises settle when their flush is committed (fsync'd), so N concurrent writers pay
 * one fsync.
 * Reads consult an in-memory overlay of the queued and in-flight ops (later ops win)
 * before the file, so a read sees every write whose promise exists. If one write call
 * fails inside a flush (a statement error such as an oversized value), only that call is
 * rolled back (a batch runs in its own savepoint) and rejected; if the transaction as a
 * whole fails (BEGIN/COMMIT error, I/O error), every call of the flush is rejected.
 * Either way the flush's ops leave the overlay, so reads return what the file holds.
 * If the writer thread dies, every pending and later write rejects.
 *
 * Not safe to share the file with another writer process: keys it adds are not seen (the
 * key filter only knows the keys stored at open and those written since), and this
 * process's queued writes are not visible to it until committed.
 */
export class SqliteBackend extends GroupCommitBackend {
  /** The database file, resolved to an absolute path. */
  readonly path: string;

  /** The main thread's connection: reads only (after creating the schema). */
  private readonly db: Database.Database;
  private readonly stmtGet: Database.Statement<[string], Buffer>;
  private readonly stmtScanFrom: Database.Statement<[string], string>;
  private readonly stmtScanRange: Database.Statement<[string, string], string>;
  private readonly stmtEntriesAll: Database.Statement<[], [string, Buffer]>;
  private readonly stmtEntriesRange: Database.Statement<[string, string], [string, Buffer]>;
  private readonly writer: Worker;
  /** Settles when the writer thread has ended, for whatever reason. */
  private readonly writerExited: Promise<void>;

  /** Every key in the file, and every key of a group sent to the writer ("maybe present"). */
  private filter: KeyFilter;
  private listRowsScanned = 0;
  private readsSkipped = 0;
  private storedReads = 0;

  private constructor(path: string, busyTimeoutMs: number) {
    // Up to 8 groups at the writer thread, which commits what queued during a commit as
    // the next transaction: the thread never waits for the event loop (issue 15).
    super(`SqliteBackend(${path})`, MAX_GROUPS_IN_FLIGHT);
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
      this.stmtScanRange = this.db.prepare<[string, string], string>('SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY k').pluck();
      this.stmtEntriesAll = this.db.prepare<[], [string, Buffer]>('SELECT k, v FROM kv ORDER BY k').raw();
      this.stmtEntriesRange = this.db.prepare<[string, string], [string, Buffer]>('SELECT k, v FROM kv WHERE k >= ? AND k < ? ORDER BY k').raw();
      this.filter = this.storedKeysFilter();
      this.writer = new Worker(WRITER_URL, { workerData: { path, busyTimeoutMs } satisfies WriterOptions });
    } catch (err) {
      this.db.close();
      throw err;
    }
    // Referenced only while a flush is in flight, so an idle backend never keeps the
    // process alive (queued writes do, through their setImmediate).
    this.writer.unref();
    // One message per transaction: the replies of its flushes, oldest first.
    this.writer.on('message', (replies: FlushReply[]) => {
      if (replies[0]?.type === 'done') this.commits++;
      for (const reply of replies) this.onReply(reply);
    });
    this.writer.on('error', (err) => this.failAll(err));
    this.writerExited = new Promise<void>((resolve) => {
      this.writer.once('exit', (code) => {
        this.failAll(new Error(`SqliteBackend(${path}): the writer thread exited (code ${code})`));
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
      pipelined: this.pipelined,
      rows: this.rows,
      listRowsScanned: this.listRowsScanned,
      readsSkipped: this.readsSkipped,
      storedReads: this.storedReads,
    };
  }

  /** The file's value at `key`, on the main thread's read connection; none without a read when the key filter says so. */
  protected override readStored(key: string): Buffer | undefined {
    if (!this.filter.mightHave(key)) {
      this.readsSkipped++;
      return undefined;
    }
    this.storedReads++;
    return this.stmtGet.get(key);
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
      const rows = prefix === '' ? this.stmtScanFrom.iterate(from) : this.stmtScanRange.iterate(from, folderEnd(prefix));
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
    const overlay = this.overlaySnapshot(prefix);
    if (overlay.size > 0) {
      for (const name of foldOverlay(prefix, overlay, names, folders).keys()) {
        if (!this.folderHasLiveKey(prefix + name, overlay)) names.delete(name);
      }
    }
    return [...names].sort(compareKeys);
  }

  /**
   * @inheritdoc
   * One indexed range scan on the read connection, then the queued and committing ops
   * under `prefix` applied over it.
   */
  async entries(prefix: string): Promise<Array<[string, Uint8Array]>> {
    this.checkOpen();
    checkPrefix(prefix);
    const rows = prefix === '' ? this.stmtEntriesAll.all() : this.stmtEntriesRange.all(prefix, folderEnd(prefix));
    return entriesWithOverlay(rows, this.overlaySnapshot(prefix));
  }

  /** Stops the writer thread (which closes its connection), then closes the read connection. */
  protected override async release(): Promise<void> {
    this.writer.ref(); // keep the process alive until the thread has closed the file
    this.writer.postMessage({ type: 'close' });
    await this.writerExited;
    this.db.close();
  }

  /**
   * Hands `flush` to the writer thread as one transaction; {@link onReply} settles it.
   * The values travel packed in one transferred buffer.
   */
  protected override startFlush(flush: Flush): void {
    const { pending } = flush;
    let opCount = 0;
    let bytes = 0;
    for (const p of pending) {
      opCount += p.ops.length;
      for (const op of p.ops) {
        if (op.value === null) continue;
        bytes += op.value.length;
        // Before the op can leave the overlay (its group answered), so no read misses it.
        this.filter.add(op.key);
      }
    }
    if (this.filter.full) this.filter = this.storedKeysFilter();
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
    this.writer.ref();
    const request: FlushRequest = { type: 'flush', calls, keys, sizes, blob };
    this.writer.postMessage(request, [blob.buffer]);
  }

  /** Settles the promises of the oldest flush in flight (replies come in order), then sends what queued up meanwhile. */
  private onReply(reply: FlushReply): void {
    const flush = this.flushInFlight;
    if (flush === undefined) return;
    if (reply.type === 'failed') this.failedCommits++;
    this.dropFromOverlay(flush);
    if (reply.type === 'failed') {
      const err = fromWire(reply.error);
      for (const p of flush.pending) p.reject(err);
    } else {
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
    this.flushDone();
  }

  /** Nothing in flight: let the process exit. */
  protected override onIdle(): void {
    this.writer.unref();
  }

  /**
   * Whether the file holds a key under `folder` that is not queued for deletion. Visits
   * at most (queued deletions under the folder + 1) rows.
   */
  private folderHasLiveKey(folder: string, overlay: ReadonlyMap<string, Buffer | null>): boolean {
    for (const key of this.stmtScanRange.iterate(folder, folderEnd(folder))) {
      this.listRowsScanned++;
      if (overlay.get(key) !== null) return true;
    }
    return false;
  }

  /**
   * A key filter of every key in the file plus the puts of the groups in flight (not
   * committed yet), sized for twice as many keys so it fills up rarely. Scans the
   * primary-key index on the main thread: ~1 µs per key.
   */
  private storedKeysFilter(): KeyFilter {
    const count = Number(this.db.prepare('SELECT count(*) FROM kv').pluck().get());
    const filter = new KeyFilter(2 * count + 1);
    for (const key of this.stmtScanFrom.iterate('')) filter.add(key);
    for (const f of this.flushesInFlight) for (const p of f.pending) for (const op of p.ops) if (op.value !== null) filter.add(op.key);
    return filter;
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
