/**
 * The encryption barrier (DESIGN.md "State"; reference/secrets.md §7): every value the
 * secrets service stores passes through AES-256-GCM with a key from the keyring. A
 * value is `[4-byte big-endian key term][0x02][12-byte random nonce][ciphertext‖16-byte
 * tag]`, with the storage key as additional authenticated data, so a value moved to
 * another key fails to decrypt.
 *
 * Only the seal's own bootstrap entries ({@link CLEAR_KEYS}) bypass it; they hold
 * nothing usable without the unseal key.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Backend, BackendOp } from '../../../kernel/store/index.js';
import { deepFreeze } from '../../../kernel/util/deep-freeze.js';
import { NONCE_BYTES, randomNonce } from '../../../kernel/util/random-nonce.js';
import { LRUCache } from 'lru-cache';

/** Storage keys written without the barrier: seal configuration and encrypted key material. */
const CLEAR_KEYS: ReadonlySet<string> = new Set(['core/seal-config', 'core/root-key', 'core/keyring']);

const VERSION = 0x02;
const TAG_BYTES = 16;
const HEADER_BYTES = 4 + 1 + NONCE_BYTES;

/** AES-256-GCM with `aad`; output `[nonce][ciphertext][tag]`. */
export function seal(key: Uint8Array, plain: Uint8Array, aad: string): Buffer {
  return sealInto({ out: Buffer.allocUnsafe(NONCE_BYTES + plain.length + TAG_BYTES), at: 0 }, key, plain, aad);
}

/**
 * {@link seal} written into `out` from `at` on (`out` has room for it), so a barrier value
 * is built in one buffer rather than concatenated twice (issue 15). Returns `out`.
 */
function sealInto({ out, at }: { out: Buffer; at: number }, key: Uint8Array, plain: Uint8Array, aad: string): Buffer {
  const nonce = randomNonce();
  nonce.copy(out, at);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(Buffer.from(aad, 'utf8'));
  let end = at + NONCE_BYTES;
  end += c.update(plain).copy(out, end); // GCM is a stream mode: all the ciphertext comes out of update
  end += c.final().copy(out, end);
  c.getAuthTag().copy(out, end);
  return out;
}

/** Reverses {@link seal}. Throws when the key, the AAD or the bytes are wrong. */
export function open(key: Uint8Array, sealed: Uint8Array, aad: string): Buffer {
  const b = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (b.length < NONCE_BYTES + TAG_BYTES) throw new Error('ciphertext too short');
  const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, NONCE_BYTES));
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(b.subarray(b.length - TAG_BYTES));
  return Buffer.concat([d.update(b.subarray(NONCE_BYTES, b.length - TAG_BYTES)), d.final()]);
}

/** Data-encryption keys by term; new writes use the active (highest) term. */
export interface Keyring {
  readonly activeTerm: number;
  readonly keys: ReadonlyMap<number, Buffer>;
}

/** A new keyring with one random key at term 1. */
export function newKeyring(): Keyring {
  return { activeTerm: 1, keys: new Map([[1, randomBytes(32)]]) };
}

/** Keyring ⇄ JSON bytes (base64 keys), for storing it encrypted under the root key. */
export const keyringCodec = {
  encode: (k: Keyring): Buffer =>
    Buffer.from(JSON.stringify({ active_term: k.activeTerm, keys: Object.fromEntries([...k.keys].map(([t, key]) => [t, key.toString('base64')])) })),
  decode: (b: Uint8Array): Keyring => {
    const j = JSON.parse(Buffer.from(b).toString('utf8')) as { active_term: number; keys: Record<string, string> };
    return { activeTerm: j.active_term, keys: new Map(Object.entries(j.keys).map(([t, k]) => [Number(t), Buffer.from(k, 'base64')])) };
  },
};

/** Entries kept decrypted in memory by default (the hot set: tokens, metadata, configs). */
const DEFAULT_CACHE_ENTRIES = 10_000;
/** Values larger than this (bytes) are never cached. */
const MAX_CACHED_BYTES = 64 * 1024;
/**
 * Cached values larger than this (bytes) keep only their plaintext: their decoded form is
 * made afresh for each {@link BarrierBackend.getJson}, so decoded objects (a few times
 * their JSON's size in the heap) add at most ~10,000 × 16 KiB of text's worth to the cache.
 */
const MAX_DECODED_BYTES = 16 * 1024;
/** A cached absence: the key was read and storage held nothing. */
const ABSENT = false;
/** {@link Cached.decoded} before the first {@link BarrierBackend.getJson} of the value. */
const NOT_DECODED: unique symbol = Symbol('not decoded');

/** A cached value: its plaintext, and its decoded JSON once a caller asked for it. */
interface Cached {
  /** Never handed out: {@link BarrierBackend.get} returns copies. */
  readonly plain: Buffer;
  /** Deeply frozen, shared by every {@link BarrierBackend.getJson} until the key changes. */
  decoded: unknown;
}

/**
 * A {@link Backend} that encrypts every value on its way to `inner` and decrypts on the
 * way back. Keys (paths) pass through unchanged so `list` works.
 *
 * Decrypted values of recent reads are cached (about {@link DEFAULT_CACHE_ENTRIES}), and
 * so are recent reads that found nothing (a KV v2 write of a new key reads its missing
 * metadata twice, and a mount's unset `config` on every write): a read otherwise costs a
 * storage read plus an AES-GCM context. The cache lives only in memory and dies with the
 * barrier at seal. Writes invalidate before and after they land, and a read fills the
 * cache only if no write started while it was in flight, so the cache never serves a
 * value older than storage.
 *
 * {@link getJson} reads through the same cache and keeps the decoded, deeply frozen value
 * beside the plaintext, so a hot key (a token entry, a KV record) is decoded once and
 * then shared by every reader until a write or an invalidation forgets the key
 * (issue 15): the same invalidation as the plaintexts, by construction.
 *
 * The least recently used entries go first when the cache is full.
 */
export class BarrierBackend implements Backend {
  /** Plaintexts (or {@link ABSENT}) by key, the `cacheEntries` most recently used. */
  private readonly values: LRUCache<string, Cached | typeof ABSENT>;
  /** Bumped by every write; a read that saw it change does not fill the cache. */
  private writes = 0;
  /** {@link deriveKey}'s keys by purpose. */
  private readonly derived = new Map<string, Buffer>();

  constructor(
    private readonly inner: Backend,
    private readonly keyring: Keyring,
    private readonly cacheEntries = DEFAULT_CACHE_ENTRIES,
  ) {
    this.values = new LRUCache({ max: Math.max(1, cacheEntries) });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const hit = this.cached(key);
    // A copy, so a caller changing the bytes cannot change the cache.
    if (hit !== undefined) return hit === ABSENT ? undefined : Buffer.from(hit.plain);
    const before = this.writes;
    const v = await this.inner.get(key);
    const plain = v === undefined ? undefined : this.decrypt(key, v);
    if (before === this.writes && this.cacheable(plain)) {
      this.remember(key, plain === undefined ? ABSENT : { plain: Buffer.from(plain), decoded: NOT_DECODED });
    }
    return plain;
  }

  /**
   * {@inheritDoc Backend.getJson}
   * A cached value is decoded at most once; the object returned is shared. Errors: the
   * storage's, a failed decryption, a SyntaxError for a value that is not JSON.
   */
  getJson(key: string): Promise<unknown> {
    const hit = this.cached(key);
    if (hit === undefined) return this.readJson(key);
    if (hit === ABSENT) return Promise.resolve(undefined);
    if (hit.decoded !== NOT_DECODED) return Promise.resolve(hit.decoded);
    const decoded = decodeFrozen(hit.plain);
    if (hit.plain.length <= MAX_DECODED_BYTES) hit.decoded = decoded;
    return Promise.resolve(decoded);
  }
  put(key: string, value: Uint8Array): Promise<void> {
    return this.written([key], this.inner.put(key, this.encrypt(key, value)));
  }
  delete(key: string): Promise<void> {
    return this.written([key], this.inner.delete(key));
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  batch(ops: readonly BackendOp[]): Promise<void> {
    const sealed = ops.map((op) => (op.value === undefined ? op : { key: op.key, value: this.encrypt(op.key, op.value) }));
    return this.written(
      ops.map((op) => op.key),
      this.inner.batch(sealed),
    );
  }
  /**
   * Forgets cached plaintexts: of `keys` (storage keys: the barrier keeps them as they
   * are), or every one when `keys` is undefined. For a performance standby, whose
   * storage is written by another server (ha/perf-standby.ts): a read in flight does not
   * fill the cache with what it read before the change.
   */
  invalidate(keys?: readonly string[]): void {
    this.writes++;
    if (keys === undefined) this.values.clear();
    else this.forget(keys);
  }

  /** The barrier does not own the storage: closing is the owner's job. */
  async close(): Promise<void> {}

  /** A cache miss of {@link getJson}: read, decrypt, decode, and cache both forms unless a write raced with it. */
  private async readJson(key: string): Promise<unknown> {
    const before = this.writes;
    const v = await this.inner.get(key);
    const plain = v === undefined ? undefined : this.decrypt(key, v);
    const decoded = plain === undefined ? undefined : decodeFrozen(plain);
    // `plain` is not handed out here, so the cache may keep it without a copy.
    if (before === this.writes && this.cacheable(plain)) {
      this.remember(key, plain === undefined ? ABSENT : { plain, decoded: plain.length <= MAX_DECODED_BYTES ? decoded : NOT_DECODED });
    }
    return decoded;
  }

  /** The cache entry of `key`; undefined on a miss. */
  private cached(key: string): Cached | typeof ABSENT | undefined {
    return this.values.get(key);
  }

  /** Whether a value just read may be cached (caching on, and not too large). */
  private cacheable(plain: Buffer | undefined): boolean {
    return this.cacheEntries > 0 && (plain === undefined || plain.length <= MAX_CACHED_BYTES);
  }

  /** Caches `value` for `key`, dropping the least recently used entry when full. */
  private remember(key: string, value: Cached | typeof ABSENT): void {
    this.values.set(key, value);
  }

  private forget(keys: readonly string[]): void {
    for (const k of keys) this.values.delete(k);
  }

  /** Invalidates `keys` now (reads see the pending write underneath) and once the write settles. */
  private async written(keys: readonly string[], write: Promise<void>): Promise<void> {
    this.writes++;
    this.forget(keys);
    try {
      await write;
    } finally {
      this.writes++;
      this.forget(keys);
    }
  }

  /**
   * A 32-byte key for `purpose`, derived (HKDF-SHA256) from the keyring's first key, which
   * every unsealed server of the cluster holds and no rotation removes: a secret shared by
   * the servers and by nobody else (ha/forwarded-for.ts).
   */
  deriveKey(purpose: string): Buffer {
    let k = this.derived.get(purpose);
    if (!k) {
      const first = Math.min(...this.keyring.keys.keys());
      k = Buffer.from(hkdfSync('sha256', this.keyring.keys.get(first)!, Buffer.alloc(0), `cairn ${purpose}`, 32));
      this.derived.set(purpose, k);
    }
    return k;
  }

  private encrypt(key: string, value: Uint8Array): Buffer {
    const term = this.keyring.activeTerm;
    const out = Buffer.allocUnsafe(HEADER_BYTES + value.length + TAG_BYTES);
    out.writeUInt32BE(term, 0);
    out[4] = VERSION;
    return sealInto({ out, at: 5 }, this.keyring.keys.get(term)!, value, key);
  }

  private decrypt(key: string, value: Uint8Array): Buffer {
    const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (b.length < HEADER_BYTES + TAG_BYTES || b[4] !== VERSION) throw new Error(`barrier: "${key}" is not a barrier value`);
    const k = this.keyring.keys.get(b.readUInt32BE(0));
    if (!k) throw new Error(`barrier: no key for term ${b.readUInt32BE(0)} ("${key}")`);
    return open(k, b.subarray(5), key);
  }
}

/** UTF-8 JSON bytes → the value, deeply frozen (shared by readers of the cache). */
function decodeFrozen(plain: Buffer): unknown {
  return deepFreeze(JSON.parse(plain.toString('utf8')));
}
