/**
 * The key rules every {@link Backend} shares (the contract in `backend.ts`, pinned down by
 * `backend.suite.ts`): which keys and `list` prefixes are valid, the byte order `list`
 * sorts in, and the copy taken of a caller's value. Both engines must agree on all of it.
 *
 * @module
 */

import type { Backend } from './backend.js';

/** The client's text for a name or path with a NUL character in it. */
export const NUL_IN_NAME = 'names and paths must not contain NUL characters (U+0000)';

// Lone surrogates have no UTF-8 form (they would not round-trip through SQLite TEXT or
// PostgreSQL), so such keys are refused.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A key that no stored entry can have because of a character in it (NUL, a lone
 * surrogate). Such characters come from request input (a path, a policy name), so the
 * HTTP kernel answers 400 with {@link StoreKeyError.userMessage} instead of a 500.
 */
export class StoreKeyError extends TypeError {
  override readonly name = 'StoreKeyError';

  constructor(
    message: string,
    /** The problem in words for the client, without the internal key. */
    readonly userMessage: string,
  ) {
    super(message);
  }
}

/**
 * Checks a key against the contract of {@link Backend}: a non-empty well-formed string,
 * no leading or trailing `/` (a trailing `/` would be indistinguishable from a folder
 * in `list`), no NUL (PostgreSQL TEXT cannot hold it, and both backends must agree).
 *
 * @throws StoreKeyError for NUL or a lone surrogate, TypeError for the other problems,
 *   naming the problem.
 */
export function checkKey(key: unknown): string {
  if (typeof key !== 'string') throw new TypeError(`store key must be a string, got ${typeof key}`);
  if (key === '') throw new TypeError('store key must not be empty');
  if (key.startsWith('/') || key.endsWith('/')) {
    throw new TypeError(`store key must not start or end with "/": ${JSON.stringify(key)}`);
  }
  if (key.includes('\0')) throw new StoreKeyError(`store key must not contain NUL: ${JSON.stringify(key)}`, NUL_IN_NAME);
  if (LONE_SURROGATE.test(key))
    throw new StoreKeyError(`store key is not valid Unicode: ${JSON.stringify(key)}`, 'names and paths must be valid Unicode (no lone surrogates)');
  return key;
}

/**
 * Checks a `list` prefix: `""` or a well-formed key-like string ending in `/`.
 *
 * @throws TypeError naming the problem.
 */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string') throw new TypeError(`list prefix must be a string, got ${typeof prefix}`);
  if (prefix === '') return prefix;
  if (!prefix.endsWith('/')) throw new TypeError(`list prefix must be "" or end with "/": ${JSON.stringify(prefix)}`);
  if (prefix.startsWith('/')) throw new TypeError(`list prefix must not start with "/": ${JSON.stringify(prefix)}`);
  if (prefix.includes('\0') || LONE_SURROGATE.test(prefix)) {
    throw new TypeError(`list prefix is not a valid key prefix: ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

/**
 * Copies the caller's bytes now: a group commit happens a turn later, and a caller
 * reusing its buffer in between must not change what gets stored.
 *
 * @throws TypeError when `value` is not a Uint8Array.
 */
export function copyValue(value: unknown): Buffer {
  if (!(value instanceof Uint8Array)) throw new TypeError('store value must be a Uint8Array');
  return Buffer.from(value);
}

/**
 * Orders strings by their UTF-8 bytes (= code point order), the order SQLite's BINARY
 * collation and PostgreSQL's `COLLATE "C"` use. Plain `<` on JS strings compares UTF-16
 * units, which puts U+10000 and above (surrogates 0xD800–0xDFFF) *before* U+E000–U+FFFF;
 * this moves them after.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The smallest string sorting after every string that starts with `folder` (which ends
 * in `/`): the `/` becomes `0`, the next byte. Used both as the range end of a `list`
 * scan and as the re-seek point that skips a sub-folder's descendants.
 */
export function folderEnd(folder: string): string {
  return folder.slice(0, -1) + '0';
}
