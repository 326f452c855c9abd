/**
 * Encryption and decryption with one key version (reference/secrets-engines.md §6
 * `encrypt`, `decrypt`): AEAD types seal `nonce(12) ‖ ciphertext ‖ tag(16)` with Node's
 * AES-GCM or ChaCha20-Poly1305 (`associated_data` authenticated, not encrypted); RSA types
 * use OAEP with SHA-256. The result is `vault:v<N>:<base64>` (ciphertext.ts).
 *
 * @module
 */
import { constants, createCipheriv, createDecipheriv, privateDecrypt, publicEncrypt } from 'node:crypto';
import { badRequest } from '../../../kernel/http/index.js';
import { NONCE_BYTES, randomNonce } from '../../../kernel/util/random-nonce.js';
import { decodeBase64, formatVersioned, parseVersioned } from './ciphertext.js';
import { aeadKey, convergentNonce, requireContext } from './derive.js';
import { typeInfo } from './key-types.js';
import { decryptionMaterial, material, type TransitKey } from './policy.js';

/** What one encryption or decryption is given besides the key (decoded from base64). */
export interface CryptOptions {
  readonly context?: Buffer;
  readonly associatedData?: Buffer;
  /** `padding_scheme` for RSA keys: only `oaep` (docs/compatibility.md). */
  readonly paddingScheme?: string;
}

const TAG_BYTES = 16;
/** Go's AEAD error, the reference's text for a wrong key, context, AAD or a damaged ciphertext (reference §6 "Errors"). */
const AUTH_FAILED = 'cipher: message authentication failed';

function checkPadding(key: TransitKey, scheme: string | undefined): void {
  if (scheme === undefined || scheme === '') return;
  if (typeInfo(key.type).kind !== 'rsa') throw badRequest(`padding_scheme: not supported for keys of type ${key.type}`);
  if (scheme !== 'oaep') throw badRequest(`padding_scheme: unsupported padding scheme "${scheme}" (only oaep)`);
}

/** `plaintext` sealed under version `version` of `key` (an encryption version, policy.ts `encryptionVersion`). Throws 400 for bad input. */
export function encryptWith(key: TransitKey, version: number, plaintext: Buffer, o: CryptOptions = {}): string {
  const info = typeInfo(key.type);
  const m = material(key, version);
  checkPadding(key, o.paddingScheme);
  if (info.kind === 'rsa') {
    const sealed = publicEncrypt({ key: m.public_key ?? '', padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, plaintext);
    return formatVersioned(version, sealed.toString('base64'));
  }
  if (info.kind !== 'aead') throw badRequest(`encryption not supported for key type ${key.type}`);
  const k = aeadKey(key, m, o.context);
  const nonce = key.convergent_encryption ? convergentNonce(m, requireContext(o.context), plaintext) : randomNonce();
  const c =
    info.cipher === 'chacha20-poly1305'
      ? createCipheriv(info.cipher, k, nonce, { authTagLength: TAG_BYTES })
      : createCipheriv(info.cipher ?? 'aes-256-gcm', k, nonce);
  if (o.associatedData?.length) c.setAAD(o.associatedData, { plaintextLength: plaintext.length });
  const body = Buffer.concat([nonce, c.update(plaintext), c.final(), c.getAuthTag()]);
  return formatVersioned(version, body.toString('base64'));
}

/** The plaintext of `ciphertext` and the version it was sealed under. Throws 400 with the reference's texts. */
export function decryptWith(key: TransitKey, ciphertext: string, o: CryptOptions = {}): { plaintext: Buffer; version: number } {
  const info = typeInfo(key.type);
  if (info.kind !== 'aead' && info.kind !== 'rsa') throw badRequest(`decryption not supported for key type ${key.type}`);
  checkPadding(key, o.paddingScheme);
  const { version, body } = parseVersioned(ciphertext);
  const m = decryptionMaterial(key, version);
  const sealed = decodeBase64(body, 'ciphertext');
  if (info.kind === 'rsa') {
    try {
      return { plaintext: privateDecrypt({ key: m.private_key ?? '', padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, sealed), version };
    } catch {
      throw badRequest('invalid ciphertext: unable to decrypt');
    }
  }
  const k = aeadKey(key, m, o.context);
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw badRequest('invalid ciphertext: too short');
  const nonce = sealed.subarray(0, NONCE_BYTES);
  const d =
    info.cipher === 'chacha20-poly1305'
      ? createDecipheriv(info.cipher, k, nonce, { authTagLength: TAG_BYTES })
      : createDecipheriv(info.cipher ?? 'aes-256-gcm', k, nonce, { authTagLength: TAG_BYTES });
  d.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const inner = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
  if (o.associatedData?.length) d.setAAD(o.associatedData, { plaintextLength: inner.length });
  try {
    return { plaintext: Buffer.concat([d.update(inner), d.final()]), version };
  } catch {
    throw badRequest(AUTH_FAILED);
  }
}
