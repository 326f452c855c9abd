/**
 * The content `Hash` every ACL write stamps on an object (reference/sched.md §2.3); its
 * RFC3339 times are the kernel's `formatTime`.
 *
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';

/**
 * base64 of blake2b-256 over the JSON of `fields`, the reference's `SetHash` algorithm
 * (sched.md §2.3) over Cairn's own encoding: the bytes differ from the reference's, only
 * equality of two hashes is meaningful (a change of content changes the hash).
 */
export function contentHash(fields: readonly unknown[]): string {
  return Buffer.from(blake2b(new TextEncoder().encode(JSON.stringify(fields)), { dkLen: 32 })).toString('base64');
}
