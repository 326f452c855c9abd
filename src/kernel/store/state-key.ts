/**
 * The key a discovery or scheduler agent encrypts its state with (aead-codec.ts), and which
 * key a shared table belongs to (issue 14 item 1).
 *
 * - The key comes from the config (`encrypt` in the discovery agent, `server.encrypt` in
 *   the scheduler, as the reference products take their gossip keys: base64 of 32 bytes,
 *   usually `env://…` or `file://…`) or from the key file in the data directory, made on
 *   first start.
 * - The storage remembers which key it belongs to: a **fingerprint** row (an HMAC of a
 *   fixed text under the key, which reveals nothing of the key), written once, first
 *   writer wins. Agents started at the same moment on an empty PostgreSQL table each make a
 *   key; the database decides whose key the table has, and the other agent refuses to
 *   start, saying which file to copy where, instead of failing every request afterwards.
 *
 * @module
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KEY_BYTES } from './aead-codec.js';

/** The storage key of the fingerprint row (outside every state table). */
export const STATE_KEY_ROW = '_meta/state-key';

/**
 * The key in `text`: base64 (standard or URL alphabet) of exactly 32 bytes, surrounding
 * white space ignored. @throws Error `expected a base64 32-byte key` (callers add where).
 */
export function decodeStateKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(t) ? Buffer.from(t, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) throw new Error(`expected a base64 ${KEY_BYTES}-byte key (e.g. \`openssl rand -base64 ${KEY_BYTES}\`)`);
  return key;
}

/** A new random key and its file text (base64 and a newline). */
export function newStateKey(): { key: Buffer; text: string } {
  const key = randomBytes(KEY_BYTES);
  return { key, text: key.toString('base64') + '\n' };
}

/**
 * The key in file `path`, or undefined when there is no such file.
 * @throws Error naming the file when it cannot be read or holds no 32-byte key.
 */
export function readStateKeyFile(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: cannot read the state key: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return decodeStateKey(text);
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}

/**
 * The fingerprint of `key`: `hmac-sha256:` and the first 16 bytes (hex) of an HMAC-SHA256 of
 * a fixed text under the key. Equal keys give equal fingerprints; it cannot be turned back
 * into the key, so it may be stored beside the state and logged.
 */
export function stateKeyFingerprint(key: Uint8Array): string {
  return `hmac-sha256:${createHmac('sha256', key).update('cairn state key fingerprint v1').digest('hex').slice(0, 32)}`;
}
