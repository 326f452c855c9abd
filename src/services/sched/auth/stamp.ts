/**
 * What every ACL write stamps on an object (reference/sched.md §1.1, §2.3): its RFC3339
 * times and its content `Hash`.
 *
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';

/** Go's RFC3339Nano in UTC: `2026-01-02T03:04:05.123Z`, fraction trimmed, none when zero (sched.md §1.1). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.?0*Z$/, 'Z');
}

/**
 * base64 of blake2b-256 over the JSON of `fields`, the reference's `SetHash` algorithm
 * (sched.md §2.3) over Cairn's own encoding: the bytes differ from the reference's, only
 * equality of two hashes is meaningful (a change of content changes the hash).
 */
export function contentHash(fields: readonly unknown[]): string {
  return Buffer.from(blake2b(new TextEncoder().encode(JSON.stringify(fields)), { dkLen: 32 })).toString('base64');
}
