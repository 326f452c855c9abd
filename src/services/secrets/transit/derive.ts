/**
 * Per-context keys of `derived` transit keys and the nonce of convergent encryption
 * (reference/secrets-engines.md §6 `derived`, `convergent_encryption`). Derivation is the
 * reference's `kdf: hkdf_sha256`: HKDF-SHA256 with the version's key as input keying
 * material, no salt and the request's `context` as info.
 *
 * @module
 */
import { createHmac, createPrivateKey, hkdfSync, type KeyObject } from 'node:crypto';
import { badRequest } from '../../../kernel/http/index.js';
import type { KeyMaterial } from './key-types.js';
import type { TransitKey } from './policy.js';

/** The reference's text when a derived key gets no `context`. */
const MISSING_CONTEXT =
  "missing 'context' for key derivation; the key was created using a derived key, which means additional, per-request information must be included in order to perform operations with the key";

/** The key bytes an AEAD operation uses: the version's key, or for a derived key the HKDF output for `context` (400 without one). */
export function aeadKey(key: TransitKey, m: KeyMaterial, context: Buffer | undefined): Buffer {
  const raw = Buffer.from(m.key ?? '', 'base64');
  if (!key.derived) return raw;
  return Buffer.from(hkdfSync('sha256', raw, Buffer.alloc(0), requireContext(context), raw.length));
}

/** 400 with the reference's text unless `context` is non-empty. */
export function requireContext(context: Buffer | undefined): Buffer {
  if (!context || context.length === 0) throw badRequest(MISSING_CONTEXT);
  return context;
}

// PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410 §7): the fixed header, then the 32 bytes.
const ED25519_PKCS8_HEADER = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The Ed25519 private key of a derived ed25519 key for `context` (HKDF of the version's seed). */
export function derivedEd25519(m: KeyMaterial, context: Buffer | undefined): KeyObject {
  const seed = Buffer.from(hkdfSync('sha256', Buffer.from(m.key ?? '', 'base64'), Buffer.alloc(0), requireContext(context), 32));
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_HEADER, seed]), format: 'der', type: 'pkcs8' });
}

/**
 * The 12-byte nonce of a convergent encryption: the first bytes of HMAC-SHA256 under the
 * version's HMAC key over the context and the plaintext, so the same pair always gives the
 * same ciphertext and different plaintexts never share a nonce.
 */
export function convergentNonce(m: KeyMaterial, context: Buffer, plaintext: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(context.length);
  return createHmac('sha256', Buffer.from(m.hmac_key, 'base64')).update(len).update(context).update(plaintext).digest().subarray(0, 12);
}
