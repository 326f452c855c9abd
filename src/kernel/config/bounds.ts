/**
 * Size and nesting bounds for HCL and JSON documents (policies of every service, config
 * files, volume specs), checked before any parser sees the text.
 *
 * Why: `js-hcl-parser` (hcl.ts) recurses once per nesting level, many JS frames deep each,
 * and overflows V8's stack at about 160 nested blocks (measured at an empty stack; less
 * inside a request); its output grows with the square of the depth, and it parses about
 * 0.3 MB per second. Cairn's own walkers over parsed documents (positions.ts,
 * validate.ts) recurse too. No document any service accepts nests deeper than 5 levels
 * (`namespace "x" { variables { path "y" { capabilities = […] } } }`), so
 * {@link MAX_DOCUMENT_DEPTH} leaves ample room; {@link MAX_DOCUMENT_BYTES} bounds the time
 * one parse can hold the event loop (about 3.5 s for 1 MiB of policy text).
 *
 * The scan is one loop over the text, no recursion: it counts `{` and `[` outside strings,
 * comments and heredocs with the lexical rules of hashicorp/hcl v1's two scanners (HCL, or
 * JSON when the first non-space character is `{`, as the parser decides). hcl.ts also
 * turns a stack overflow inside the parser into the same error, so a document this scan
 * reads differently from the parser still gets a 400, never a 500.
 *
 * @module
 */
import { HclSyntaxError } from './hcl-error.js';

/** Largest document accepted, in bytes of UTF-8 (1 MiB). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** Deepest nesting of `{`/`[` accepted (a block and its object value count one each). */
export const MAX_DOCUMENT_DEPTH = 32;

/** The two lexical syntaxes: `hcl` (comments, heredocs, `${…}` in strings) and `json`. */
export type DocumentSyntax = 'hcl' | 'json';

// Go's unicode.IsSpace, which hashicorp/hcl's lexMode skips before looking for `{`.
const LEADING_SPACE = /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*/;

/** The syntax hashicorp/hcl v1 reads `text` with: JSON when it starts with `{` after spaces. */
function documentSyntax(text: string): DocumentSyntax {
  return text.charCodeAt(LEADING_SPACE.exec(text)![0].length) === 0x7b ? 'json' : 'hcl';
}

/**
 * Checks `text` against {@link MAX_DOCUMENT_BYTES} and {@link MAX_DOCUMENT_DEPTH}; `file`
 * names the document in the error, `syntax` defaults to what the HCL parser would pick.
 *
 * @throws {HclSyntaxError} `<file>: the document is larger than 1048576 bytes`, or
 *   `<file>:<line>:<column>: nesting deeper than 32 levels` at the first bracket too deep.
 */
export function checkDocumentBounds(text: string, file: string, syntax: DocumentSyntax = documentSyntax(text)): void {
  // UTF-16 length ≤ UTF-8 length ≤ 3 × UTF-16 length: count bytes only when it matters.
  if (text.length > MAX_DOCUMENT_BYTES || (text.length * 3 > MAX_DOCUMENT_BYTES && Buffer.byteLength(text) > MAX_DOCUMENT_BYTES)) {
    throw new HclSyntaxError(file, undefined, undefined, `the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const at = tooDeep(text, syntax);
  if (at === undefined) return;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  throw new HclSyntaxError(file, line, at - before.lastIndexOf('\n'), `nesting deeper than ${MAX_DOCUMENT_DEPTH} levels`);
}

/** Offset of the first `{`/`[` that opens level MAX_DOCUMENT_DEPTH + 1, or undefined. */
function tooDeep(text: string, syntax: DocumentSyntax): number | undefined {
  const hcl = syntax === 'hcl';
  let depth = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '{' || c === '[') {
      if (++depth > MAX_DOCUMENT_DEPTH) return i;
      i++;
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (c === '"') {
      i = skipString(text, i + 1, hcl);
    } else if (hcl && (c === '#' || (c === '/' && text[i + 1] === '/'))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
    } else if (hcl && c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (hcl && c === '<' && text[i + 1] === '<') {
      i = skipHeredoc(text, i + 2);
    } else {
      i++;
    }
  }
  return undefined;
}

/**
 * The offset after a string opened just before `i`. Both scanners end a string at an
 * unescaped `"` or a newline (an unterminated literal: they report it and go on after it);
 * HCL's ignores quotes and newlines inside `${…}`. A backslash takes the next character.
 */
function skipString(text: string, i: number, hcl: boolean): number {
  let braces = 0;
  while (i < text.length) {
    const c = text[i++];
    if (c === '\n' && braces === 0) return i;
    if (c === '"' && (braces === 0 || !hcl)) return i;
    if (c === '\\') i++;
    else if (!hcl) continue;
    else if (braces === 0 && c === '$' && text[i] === '{') {
      braces = 1;
      i++;
    } else if (braces > 0 && c === '{') braces++;
    else if (braces > 0 && c === '}') braces--;
  }
  return i;
}

/**
 * The offset after a heredoc whose `<<` ends just before `i`: `<<[-]ANCHOR` and a newline,
 * then lines up to one holding only the anchor (leading spaces allowed). Not a heredoc
 * (no anchor or no newline after it): the scanner reports an error and goes on at `i`.
 */
function skipHeredoc(text: string, i: number): number {
  const anchor = /^-?([\p{L}\p{Nd}_]+)\r?\n/u.exec(text.slice(i, i + 256));
  if (!anchor) return i;
  let lineStart = i + anchor[0].length;
  // hashicorp/hcl: `^[[:space:]]*ANCHOR\r*\z` on each line.
  const closing = new RegExp(`^[\\t\\n\\v\\f\\r ]*${anchor[1]}\\r*$`, 'u');
  for (;;) {
    const end = text.indexOf('\n', lineStart);
    if (end < 0) return text.length;
    if (closing.test(text.slice(lineStart, end))) return end + 1;
    lineStart = end + 1;
  }
}
