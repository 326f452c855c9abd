/**
 * Random 96-bit nonces for AES-256-GCM and ChaCha20-Poly1305 (random nonces: NIST SP
 * 800-38D §8.2.2), drawn from the CSPRNG in bulk: one `randomFillSync` per 4,096 nonces.
 * Why: on Node 20's OpenSSL 3.0 a small `randomBytes` costs ~2.7 µs on this project's
 * machine, against ~0.1 µs a nonce from the pool, and every stored record of the secrets
 * barrier and of the discovery and scheduler state stores takes one (issue 30: 18 % of the
 * discovery service's main thread under KV writes). Each nonce is handed out once; the
 * pool is per thread (module state), so threads never share one.
 *
 * @module
 */
import { randomFillSync } from 'node:crypto';

/** Nonce length in bytes (96 bits, GCM's recommended IV length). */
export const NONCE_BYTES = 12;

const POOL_NONCES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** A fresh random 12-byte nonce: a view of the pool that no later call hands out or overwrites. */
export function randomNonce(): Buffer {
  if (offset + NONCE_BYTES > pool.length) {
    // A new buffer each time: nonces handed out earlier stay as they were.
    pool = randomFillSync(Buffer.allocUnsafe(NONCE_BYTES * POOL_NONCES));
    offset = 0;
  }
  offset += NONCE_BYTES;
  return pool.subarray(offset - NONCE_BYTES, offset);
}
