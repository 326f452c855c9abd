/**
 * The reference's wire form of ciphertexts, signatures and HMACs: `vault:v<N>:<base64>`
 * (reference/secrets-engines.md §6 "Ciphertext format"). Cairn writes the `vault:` prefix
 * that the reference's clients parse and accepts `cairn:` as well (docs/compatibility.md).
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { MAX_INPUT_BYTES } from './limits.js';

/** The prefix Cairn writes. */
const WRITTEN = 'vault';
const ACCEPTED = ['vault:', 'cairn:'];

/** `vault:v<version>:<body>` (`body` already encoded: base64, or base64url for JWS signatures). */
export const formatVersioned = (version: number, body: string): string => `${WRITTEN}:v${version}:${body}`;

/** A parsed value: its key version and its encoded body. */
export interface Versioned {
  readonly version: number;
  readonly body: string;
}

/**
 * Splits `value` into version and body; 400 with the reference's texts (`invalid ciphertext:
 * no prefix`, `… wrong number of fields`, `… version number could not be decoded`). Version 0
 * reads as 1, as the reference's first implementation wrote it.
 */
export function parseVersioned(value: string): Versioned {
  if (value.length > MAX_INPUT_BYTES * 2) throw badRequest('invalid ciphertext: too long');
  const prefix = ACCEPTED.find((p) => value.startsWith(p));
  if (!prefix) throw badRequest('invalid ciphertext: no prefix');
  const rest = value.slice(prefix.length);
  const colon = rest.indexOf(':');
  if (colon < 0) throw badRequest('invalid ciphertext: wrong number of fields');
  const v = rest.slice(0, colon);
  if (!/^v\d{1,9}$/.test(v)) throw badRequest('invalid ciphertext: version number could not be decoded');
  return { version: Number(v.slice(1)) || 1, body: rest.slice(colon + 1) };
}

/** Strict base64 (standard alphabet, padding optional) of a field; 400 naming `what` otherwise. */
export function decodeBase64(value: string, what: string): Buffer {
  if (value.length > MAX_INPUT_BYTES * 2) throw badRequest(`${what}: larger than the maximum of ${MAX_INPUT_BYTES} bytes`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.replace(/=+$/, '').length % 4 === 1) {
    throw badRequest(`failed to base64-decode ${what}`);
  }
  const b = Buffer.from(value, 'base64');
  if (b.length > MAX_INPUT_BYTES) throw badRequest(`${what}: larger than the maximum of ${MAX_INPUT_BYTES} bytes`);
  return b;
}
