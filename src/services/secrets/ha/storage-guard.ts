/**
 * What the core's storage does on writes, by the server's role (issue 8 scope 2):
 *
 * - on a **performance standby** the core is opened read-only ({@link ReadOnlyBackend}):
 *   a write throws {@link ReadOnlyStorageError} before anything reaches storage, and the
 *   request handler forwards the request to the active server instead (the reference's
 *   `logical.ErrReadOnly` → forward). Nothing was written, so re-running the whole request
 *   on the active server is safe.
 * - on the **active** server every write is noted in the request's context
 *   ({@link NotingBackend}, {@link trackWrites}), so a reply to a request that wrote
 *   carries the `X-Secrets-Index` state header (state-header.ts).
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readJson, type Backend, type BackendOp } from '../../../kernel/store/index.js';

/** A write on a performance standby's read-only core: the request must go to the active server. */
export class ReadOnlyStorageError extends Error {
  override readonly name = 'ReadOnlyStorageError';
  constructor() {
    super('this server is a performance standby: storage is read-only');
  }
}

/** {@link Backend} that reads through to `inner` and refuses every write with {@link ReadOnlyStorageError}. */
export class ReadOnlyBackend implements Backend {
  constructor(private readonly inner: Backend) {}

  get(key: string) {
    return this.inner.get(key);
  }
  getJson(key: string) {
    return readJson(this.inner, key);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
  async put(): Promise<void> {
    throw new ReadOnlyStorageError();
  }
  async delete(): Promise<void> {
    throw new ReadOnlyStorageError();
  }
  async batch(): Promise<void> {
    throw new ReadOnlyStorageError();
  }
  /** The wrapper owns nothing. */
  async close() {}
}

/** Per-request record: whether anything was written while serving it. */
interface WriteRecord {
  wrote: boolean;
}

const current = new AsyncLocalStorage<WriteRecord>();

/** Runs `fn` (one request); resolves with its result and whether it wrote through a {@link NotingBackend}. */
export async function trackWrites<T>(fn: () => Promise<T>): Promise<{ result: T; wrote: boolean }> {
  const record: WriteRecord = { wrote: false };
  const result = await current.run(record, fn);
  return { result, wrote: record.wrote };
}

/** {@link Backend} passing everything to `inner`, noting each write in the calling request's {@link trackWrites} record. */
export class NotingBackend implements Backend {
  constructor(private readonly inner: Backend) {}

  get(key: string) {
    return this.inner.get(key);
  }
  getJson(key: string) {
    return readJson(this.inner, key);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
  put(key: string, value: Uint8Array) {
    noteWrite();
    return this.inner.put(key, value);
  }
  delete(key: string) {
    noteWrite();
    return this.inner.delete(key);
  }
  batch(ops: readonly BackendOp[]) {
    noteWrite();
    return this.inner.batch(ops);
  }
  /** The wrapper owns nothing. */
  async close() {}
}

function noteWrite(): void {
  const record = current.getStore();
  if (record) record.wrote = true;
}
