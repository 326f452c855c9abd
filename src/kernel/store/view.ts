/**
 * A Backend seen through a key prefix, so an engine mounted at a path owns exactly the
 * keys under `logical/<mount uuid>/` and cannot reach any other (the reference's
 * storage view, reference/secrets.md §2.12).
 *
 * @module
 */
import { deepFreeze, type Frozen } from '../util/deep-freeze.js';
import type { Backend, BackendOp } from './backend.js';

/** {@link Backend} restricted to keys under `prefix` (which ends in `/`). */
export class BackendView implements Backend {
  constructor(
    private readonly inner: Backend,
    readonly prefix: string,
  ) {
    if (!prefix.endsWith('/')) throw new Error(`storage view prefix "${prefix}" must end in "/"`);
  }

  get(key: string) {
    return this.inner.get(this.prefix + key);
  }
  getJson(key: string) {
    return readJson(this.inner, this.prefix + key);
  }
  put(key: string, value: Uint8Array) {
    return this.inner.put(this.prefix + key, value);
  }
  delete(key: string) {
    return this.inner.delete(this.prefix + key);
  }
  list(prefix: string) {
    return this.inner.list(this.prefix + prefix);
  }
  batch(ops: readonly BackendOp[]) {
    return this.inner.batch(ops.map((op) => ({ ...op, key: this.prefix + op.key })));
  }
  /** Views never close the storage they look into. */
  async close() {}
}

/**
 * Every key under `prefix` (depth-first), for deleting a whole subtree such as an
 * unmounted engine's data.
 */
export async function listRecursive(backend: Backend, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const child of await backend.list(prefix)) {
    if (child.endsWith('/')) out.push(...(await listRecursive(backend, prefix + child)));
    else out.push(prefix + child);
  }
  return out;
}

/** JSON helpers: values are stored as UTF-8 JSON documents. */
export const json = {
  encode: (v: unknown): Uint8Array => Buffer.from(JSON.stringify(v)),
  decode: <T>(b: Uint8Array | undefined): T | undefined =>
    b === undefined ? undefined : (JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')) as T),
};

/**
 * The JSON value at `key`, deeply frozen, or `undefined` when there is none: the
 * backend's own {@link Backend.getJson} when it has one (possibly a cached object shared
 * with other callers), else `get` and a fresh decode, frozen alike so that code that
 * would change a shared value fails in every backend, not only a caching one.
 * Callers that need to change the value copy it (or use `json.decode`).
 * Errors: the backend's, or a SyntaxError for a value that is not JSON.
 */
export function readJson<T>(backend: Backend, key: string): Promise<Frozen<T> | undefined> {
  // Wrappers pass the inner promise on as it is: no extra promise per layer.
  return (backend.getJson ? backend.getJson(key) : decodeFrozen(backend, key)) as Promise<Frozen<T> | undefined>;
}

async function decodeFrozen(backend: Backend, key: string): Promise<unknown> {
  const v = json.decode(await backend.get(key));
  return v === undefined ? undefined : deepFreeze(v);
}
