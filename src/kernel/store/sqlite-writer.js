// @ts-check
/**
 * The write side of {@link SqliteBackend}, run in a worker thread that owns the only
 * SQLite connection that writes (started by `sqlite.ts`, never imported elsewhere).
 *
 * Why a thread: better-sqlite3 is synchronous, and with `synchronous=FULL` every commit
 * waits for an fsync of the WAL. On the event loop that wait stalled every request; here
 * it overlaps with the main thread building the next group commit (BENCHMARKS.md).
 *
 * Why JavaScript (type-checked from its JSDoc): Node 20 worker threads do not get the
 * `tsx` loader of their parent, so under `tsx` (tests, bench) a `.ts` worker needs its
 * own loader, which took ~0.5 s per backend opened; this file loads as it is, from
 * `src/` and from `dist/` alike.
 *
 * Protocol (structured-clone messages on the worker's `parentPort`):
 * - in:  {@link FlushRequest}: one group commit. Flushes commit in the order they were
 *        sent and are answered in that order. The main thread may send the next flushes
 *        while one commits (a pipeline, issue 15): when a commit ends, every flush that
 *        arrived meanwhile goes into the next transaction together, so one fsync covers
 *        them all and the thread never waits for the main thread between commits.
 * - out: an array of {@link FlushReply}, one per flush of the transaction, in order (one
 *        message per transaction): `done` (the transaction is committed and fsync'd;
 *        `errors` holds, per call, the error that rolled back just that call, or `null`),
 *        or `failed` (the transaction as a whole failed; nothing of it was stored).
 * - in:  `{ type: 'close' }`: closes the connection and ends the thread.
 *
 * @module
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * What the thread is started with (`workerData`): the absolute path of the database
 * file (created and migrated by the main thread) and how many milliseconds a write waits
 * for another connection's lock before `SQLITE_BUSY`.
 * @typedef {{ readonly path: string, readonly busyTimeoutMs: number }} WriterOptions
 */

/**
 * One group commit, packed so the values cross threads as one transferred buffer:
 * call `i` owns the next `calls[i]` ops; op `j` writes `keys[j]` with the next
 * `sizes[j]` bytes of `blob`, or deletes it when `sizes[j]` is -1.
 * @typedef {{ readonly type: 'flush', readonly calls: readonly number[], readonly keys: readonly string[],
 *   readonly sizes: Int32Array, readonly blob: Uint8Array }} FlushRequest
 */

/**
 * An error as it crosses the thread boundary (class and extra fields do not survive cloning).
 * @typedef {{ readonly message: string, readonly code?: string }} WireError
 */

/**
 * The answer to one {@link FlushRequest}.
 * @typedef {{ readonly type: 'done', readonly errors: ReadonlyArray<WireError | null> }
 *   | { readonly type: 'failed', readonly error: WireError }} FlushReply
 */

/**
 * One decoded op: `value === null` deletes.
 * @typedef {{ readonly key: string, readonly value: Buffer | null }} Op
 */

/**
 * @param {unknown} err
 * @returns {WireError}
 */
function toWire(err) {
  const e = /** @type {{ message?: unknown, code?: unknown } | null | undefined} */ (err);
  return {
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}

/**
 * Serves flushes on `port` until told to close.
 * @param {import('node:worker_threads').MessagePort} port
 * @param {WriterOptions} o
 */
function run(port, o) {
  const db = new Database(o.path, { timeout: o.busyTimeoutMs });
  // FULL: the WAL is fsynced at every commit, which is what "durable" means here.
  db.pragma('synchronous = FULL');
  // An upsert keeps the rowid (REPLACE would delete and re-insert the row).
  const put = db.prepare('INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v');
  const del = db.prepare('DELETE FROM kv WHERE k = ?');
  /** @param {Op} op */
  const apply = (op) => {
    if (op.value === null) del.run(op.key);
    else put.run(op.key, op.value);
  };
  const runCall = db.transaction(
    /** @param {readonly Op[]} ops */ (ops) => {
      for (const op of ops) apply(op);
    },
  );
  // Per call `null`, or the error that rolled back just that call (a single statement is
  // undone by SQLite itself, a multi-op call runs in a savepoint). If SQLite aborted the
  // whole transaction (I/O error, disk full), the error is rethrown: all calls fail.
  const runFlush = db.transaction(
    /** @param {ReadonlyArray<readonly Op[]>} calls */
    (calls) =>
      calls.map((ops) => {
        try {
          if (ops.length === 1) apply(ops[0]);
          else runCall(ops); // nested db.transaction = SAVEPOINT
          return null;
        } catch (err) {
          if (!db.inTransaction) throw err;
          return toWire(err ?? new Error('write failed'));
        }
      }),
  );

  const close = () => {
    db.close();
    port.close();
  };

  port.on('message', (/** @type {FlushRequest | { type: 'close' }} */ msg) => {
    if (msg.type === 'close') return close();
    // The flushes that queued up while the previous transaction committed join this one.
    const flushes = [msg];
    let closing = false;
    for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) {
      const m = /** @type {FlushRequest | { type: 'close' }} */ (next.message);
      if (m.type === 'close') {
        closing = true; // sent after every flush: nothing follows it
        break;
      }
      flushes.push(m);
    }
    /** @type {Op[][]} */
    const calls = [];
    for (const f of flushes) decode(f, calls);
    /** @type {FlushReply[]} */
    let replies;
    try {
      const errors = runFlush.immediate(calls);
      let at = 0;
      replies = flushes.map((f) => ({ type: 'done', errors: errors.slice(at, (at += f.calls.length)) }));
    } catch (err) {
      const error = toWire(err);
      replies = flushes.map(() => ({ type: 'failed', error }));
    }
    port.postMessage(replies);
    if (closing) close();
  });
}

/**
 * Appends the calls of `msg` to `calls`, each as its ops (values are views of its blob).
 * @param {FlushRequest} msg
 * @param {Op[][]} calls
 */
function decode(msg, calls) {
  const blob = Buffer.from(msg.blob.buffer, msg.blob.byteOffset, msg.blob.byteLength);
  let op = 0;
  let offset = 0;
  for (const count of msg.calls) {
    /** @type {Op[]} */
    const ops = [];
    for (const end = op + count; op < end; op++) {
      const size = msg.sizes[op];
      ops.push({ key: msg.keys[op], value: size < 0 ? null : blob.subarray(offset, (offset += size)) });
    }
    calls.push(ops);
  }
}

if (parentPort) run(parentPort, /** @type {WriterOptions} */ (workerData));
