/**
 * The HMAC of audit entries: `hmac-sha256:<hex>` of a string, keyed with the device's
 * salt (the reference's `HashString`), so a log never holds a secret in clear yet an
 * operator holding a value can find it (`sys/audit-hash`).
 *
 * @module
 */
import { createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Hashes remembered per device at most (the least recently used go first; memory only). */
const MEMO_LIMIT = 16_384;

/** A string → its HMAC under one salt, memoised: the same tokens and values recur request after request. */
export class Hasher {
  private readonly key: Buffer;
  private readonly memo = new LRUCache<string, string>({ max: MEMO_LIMIT });

  /** `salt`: the device's salt; its UTF-8 bytes are the HMAC key (as the reference). */
  constructor(salt: string) {
    this.key = Buffer.from(salt, 'utf8');
  }

  /** `hmac-sha256:` + hex HMAC-SHA256 of `value`. */
  hash(value: string): string {
    let h = this.memo.get(value);
    if (h !== undefined) return h;
    h = 'hmac-sha256:' + createHmac('sha256', this.key).update(value).digest('hex');
    this.memo.set(value, h);
    return h;
  }

  /**
   * A copy of `value` with every string in it (at any depth, map keys excepted) hashed:
   * the reference hashes every string of request and response data.
   */
  deep(value: unknown): unknown {
    if (typeof value === 'string') return this.hash(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    const out: Record<string, unknown> = {};
    for (const k in value) out[k] = this.deep((value as Record<string, unknown>)[k]);
    return out;
  }
}
