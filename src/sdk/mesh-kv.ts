/**
 * The discovery service's key/value store (`/v1/kv/<key>`; reference: Consul's KV API),
 * reached as `MeshClient.kv`:
 *
 * ```ts
 * await mesh.kv.put('app/config', JSON.stringify(cfg));             // true
 * const { entry, index } = await mesh.kv.get('app/config');         // entry undefined when missing
 * const next = await mesh.kv.get('app/config', { index, wait: '30s' }); // blocks until it changes
 * const ok = await mesh.kv.put('app/lock', 'me', { cas: 0 });       // false when it exists
 * ```
 *
 * Values travel base64 in entries (`kvValue` decodes one); writes send the bytes as they are.
 *
 * @module
 */
import type { MeshCall } from './mesh-call.js';
import type { MeshList, MeshQueryOptions } from './mesh-types.js';

/** A stored key (`GET /v1/kv/<key>`). */
export interface MeshKvEntry {
  readonly LockIndex: number;
  readonly Key: string;
  readonly Flags: number;
  /** The value, base64; null when empty. */
  readonly Value: string | null;
  /** The session holding the key, if one does. */
  readonly Session?: string;
  /** Enterprise switch only. */
  readonly Namespace?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A recursive read; `filtered` when ACLs left keys out (`X-Mesh-Results-Filtered-By-ACLs`). */
export interface MeshKvList<T> extends MeshList<T> {
  readonly filtered: boolean;
}

/** Options of {@link MeshKv.put}. */
export interface MeshKvPutOptions {
  /** Opaque number stored with the value (0 by default). */
  readonly flags?: number;
  /** Check-and-set: store only if the key's `ModifyIndex` is this; 0 = only if it does not exist. */
  readonly cas?: number;
  /** Lock the key for this session: stored only if no other session holds it (and no lock delay runs). */
  readonly acquire?: string;
  /** Unlock the key held by this session: stored only if the session holds it. */
  readonly release?: string;
}

/** Options of {@link MeshKv.delete}. */
export interface MeshKvDeleteOptions {
  /** Delete every key under the prefix. */
  readonly recurse?: boolean;
  /** Delete only if the key's `ModifyIndex` is this. */
  readonly cas?: number;
}

/** The bytes of `entry`'s value (empty for a null value). */
export function kvValue(entry: Pick<MeshKvEntry, 'Value'>): Buffer {
  return Buffer.from(entry.Value ?? '', 'base64');
}

/** `/v1/kv/<key>` with every segment escaped and the `/` between them kept. */
const kvPath = (key: string) => `/kv/${key.split('/').map(encodeURIComponent).join('/')}`;
/** The call options of a read: a blocking one may take its `wait` (at most 10 min) plus jitter on top of the call's limit. */
const reading = (o: MeshQueryOptions, query: Record<string, string | undefined> = {}) => ({
  query: { ...query, index: o.index, wait: o.wait },
  allowNotFound: true,
  extraTimeoutMs: o.index !== undefined ? 660_000 : 0,
  signal: o.signal,
});

/** See the module doc. Every method rejects with `MeshApiError` on a refusal (403, 400, 413). */
export class MeshKv {
  constructor(private readonly call: MeshCall) {}

  /** `GET /v1/kv/<key>`: the entry (undefined when missing) and the index to block on. */
  async get(key: string, o: MeshQueryOptions = {}): Promise<{ entry: MeshKvEntry | undefined; index: number }> {
    const r = await this.call<MeshKvEntry[] | undefined>('GET', kvPath(key), reading(o));
    return { entry: r.body?.[0], index: r.index };
  }

  /** `GET /v1/kv/<prefix>?recurse`: every entry under `prefix` (`''`: all) the token may read. */
  async list(prefix: string, o: MeshQueryOptions = {}): Promise<MeshKvList<MeshKvEntry>> {
    const r = await this.call<MeshKvEntry[] | undefined>('GET', kvPath(prefix), reading(o, { recurse: 'true' }));
    return { items: r.body ?? [], index: r.index, filtered: r.headers['x-mesh-results-filtered-by-acls'] === 'true' };
  }

  /** `GET /v1/kv/<prefix>?keys`: the key names under `prefix`, cut after `separator` when given. */
  async keys(prefix: string, o: MeshQueryOptions & { readonly separator?: string } = {}): Promise<MeshKvList<string>> {
    const r = await this.call<string[] | undefined>('GET', kvPath(prefix), reading(o, { keys: 'true', separator: o.separator }));
    return { items: r.body ?? [], index: r.index, filtered: r.headers['x-mesh-results-filtered-by-acls'] === 'true' };
  }

  /** `PUT /v1/kv/<key>`: stores `value`; false only when a `cas` check, an `acquire` or a `release` failed. */
  async put(key: string, value: Buffer | string, o: MeshKvPutOptions = {}): Promise<boolean> {
    const query = { flags: o.flags, cas: o.cas, acquire: o.acquire, release: o.release };
    return (await this.call<boolean>('PUT', kvPath(key), { query, rawBody: value })).body;
  }

  /** `DELETE /v1/kv/<key>`: false only when a `cas` check failed. */
  async delete(key: string, o: MeshKvDeleteOptions = {}): Promise<boolean> {
    return (await this.call<boolean>('DELETE', kvPath(key), { query: { recurse: o.recurse ? 'true' : undefined, cas: o.cas } })).body;
  }
}
