/**
 * Random base62 strings (`A-Z`, `a-z`, `0-9`): the secrets service's token IDs and accessors,
 * lease IDs and namespace IDs.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` random base62 characters from the system CSPRNG (rejection sampling: no modulo bias). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}
