/**
 * Encryption at rest for a {@link StateStore}: AES-256-GCM with a random 96-bit nonce per
 * value, so documents holding secrets (token SecretIDs) are never written in clear.
 * Stored form: `0x01 ‖ nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`.
 *
 * The key lives apart from the database (a key file in the data directory, mode 0600, or
 * the config; state-key.ts): a copy of the database alone reveals nothing.
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { NONCE_BYTES, randomNonce } from '../util/random-nonce.js';
import type { StateCodec } from './state.js';

const VERSION = 1;
const TAG_BYTES = 16;
/** Key length in bytes (AES-256). */
export const KEY_BYTES = 32;

/** A codec encrypting with `key` (32 bytes). @throws {Error} on a key of another length. */
export function aesGcmCodec(key: Uint8Array): StateCodec {
  if (key.length !== KEY_BYTES) throw new Error(`state key must be ${KEY_BYTES} bytes, got ${key.length}`);
  return {
    encode(plain) {
      const nonce = randomNonce();
      const c = createCipheriv('aes-256-gcm', key, nonce);
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([Buffer.of(VERSION), nonce, body, c.getAuthTag()]);
    },
    decode(stored) {
      const b = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      if (b.length < 1 + NONCE_BYTES + TAG_BYTES || b[0] !== VERSION) throw new Error('not an encrypted state value');
      const d = createDecipheriv('aes-256-gcm', key, b.subarray(1, 1 + NONCE_BYTES));
      d.setAuthTag(b.subarray(b.length - TAG_BYTES));
      try {
        return Buffer.concat([d.update(b.subarray(1 + NONCE_BYTES, b.length - TAG_BYTES)), d.final()]);
      } catch {
        throw new Error('wrong state key or corrupted value');
      }
    },
  };
}
