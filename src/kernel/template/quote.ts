/**
 * Go's `strconv.Unquote` and `strconv.Quote` for the template engine: string, raw string
 * and character literals in templates, and `%q` / `printf "%q"`.
 *
 * @module
 */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** The value of a Go literal `"…"`, `` `…` `` or `'…'`; undefined when Go's `Unquote` rejects it (`invalid syntax`). */
export function unquoteGo(lit: string): string | undefined {
  const q = lit[0];
  if (lit.length < 2 || lit[lit.length - 1] !== q) return undefined;
  const body = lit.slice(1, -1);
  if (q === '`') return body.includes('`') ? undefined : body.replace(/\r/g, '');
  if (q !== '"' && q !== "'") return undefined;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === q || c === '\n') return undefined;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    if (Object.hasOwn(SIMPLE_ESCAPES, e)) out += SIMPLE_ESCAPES[e];
    else if (e === q) out += e;
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code < 0xe000)) return undefined;
      // `\xNN` is a byte in Go; as a character here (the same for ASCII).
      out += String.fromCodePoint(code);
      i += n;
    } else if (e >= '0' && e <= '7') {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) return undefined;
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else return undefined;
  }
  if (q === "'" && [...out].length !== 1) return undefined;
  return out;
}

/** Go's `strconv.Quote`: a double-quoted literal with Go escapes, printable Unicode kept. */
export function quoteGo(s: string, quote = '"'): string {
  let out = quote;
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (c === quote || c === '\\') out += `\\${c}`;
    else if (code >= 0x20 && code < 0x7f) out += c;
    else if (c === '\x07') out += '\\a';
    else if (c === '\b') out += '\\b';
    else if (c === '\f') out += '\\f';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c === '\v') out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c) || c === ' ') out += c;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return out + quote;
}
