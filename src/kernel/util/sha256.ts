/**
 * Hex SHA-256 of short strings, remembered for the most recent ones. Hot paths hash the
 * same strings again and again (the token of every request, a secret's key on every
 * read); a `createHash` object per call cost about a tenth of a KV read.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';

const MAX_ENTRIES = 10_000;
const memo = new LRUCache<string, string>({ max: MAX_ENTRIES });

/** Hex SHA-256 of `s` (UTF-8). Deterministic; the memo is bounded (least recently used dropped first). */
export function sha256Hex(s: string): string {
  let h = memo.get(s);
  if (h === undefined) {
    h = createHash('sha256').update(s, 'utf8').digest('hex');
    memo.set(s, h);
  }
  return h;
}

/**
 * Whether two secrets (tokens, keys) are equal, in time that does not depend on where
 * they differ: their SHA-256 digests are compared with `timingSafeEqual`. Not memoised,
 * so strings sent by clients are not kept.
 */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
