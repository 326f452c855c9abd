/**
 * The `KEY=value` lines of an `env = true` template (reference/integration.md §3; the
 * reference reads them with hashicorp/go-envparse), restated:
 *
 * - one assignment per line; blank lines and lines starting with `#` are skipped; an
 *   `export ` prefix is allowed;
 * - keys are `[A-Za-z_][A-Za-z0-9_]*`; spaces around `=` are allowed;
 * - a value is made of segments: unquoted text (no escapes, ends at `#`, `"`, `'` or the end
 *   of the line, trimmed), single-quoted text (literal) and double-quoted text (JSON escapes
 *   `\uXXXX \n \r \t \\ \" \/ \b \f`); a `#` outside quotes starts a comment.
 *
 * ```text
 * export DB_USER = app        # comment
 * DB_PASS="s3cr\"et\n"        →  { DB_USER: 'app', DB_PASS: 's3cr"et\n' }
 * ```
 *
 * Bounded: at most {@link MAX_ENV_BYTES} of text and {@link MAX_ENV_VARS} variables.
 *
 * @module
 */

/** Largest env template parsed (bytes of UTF-16 text, a bound on untrusted rendered data). */
const MAX_ENV_BYTES = 1024 * 1024;
/** Most variables one env template may set. */
const MAX_ENV_VARS = 1024;

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '\\': '\\', '"': '"', '/': '/' };

/** A double-quoted segment starting after its `"` at `i` of `s`: its text and the index after the closing quote. @throws Error on a bad escape or no closing quote. */
function doubleQuoted(s: string, i: number, line: number): { text: string; next: number } {
  let text = '';
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"') return { text, next: i + 1 };
    if (c !== '\\') {
      text += c;
      i++;
      continue;
    }
    const e = s[i + 1];
    if (e === 'u') {
      const hex = s.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Error(`line ${line}: invalid unicode escape "\\u${hex}"`);
      text += String.fromCharCode(parseInt(hex, 16));
      i += 6;
    } else if (e !== undefined && ESCAPES[e] !== undefined) {
      text += ESCAPES[e];
      i += 2;
    } else {
      throw new Error(`line ${line}: invalid escape "\\${e ?? ''}"`);
    }
  }
  throw new Error(`line ${line}: missing closing double quote`);
}

/** The value of one line after its `=` (module doc). @throws Error on an unterminated quote or a bad escape. */
function parseValue(s: string, line: number): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '#') break;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error(`line ${line}: missing closing single quote`);
      out += s.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const q = doubleQuoted(s, i + 1, line);
      out += q.text;
      i = q.next;
    } else {
      let j = i;
      while (j < s.length && !'#"\''.includes(s[j]!)) j++;
      const raw = s.slice(i, j);
      // Unquoted text is trimmed where it meets the end of the value (its start already is), kept between quoted parts.
      out += j === s.length || s[j] === '#' ? raw.trimEnd() : raw;
      i = j;
    }
  }
  return out;
}

/**
 * The variables of an env template's rendered `text` (module doc), later lines winning.
 * @throws Error `line N: …` naming the first bad line (no `=`, a bad key, an unterminated
 *   quote, a bad escape), or the bound that was passed.
 */
export function parseEnvFile(text: string): Record<string, string> {
  if (text.length > MAX_ENV_BYTES) throw new Error(`env template larger than ${MAX_ENV_BYTES} bytes`);
  const out: Record<string, string> = {};
  let count = 0;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    let l = lines[n]!.replace(/\r$/, '').trim();
    if (l === '' || l.startsWith('#')) continue;
    if (/^export\s/.test(l)) l = l.slice(6).trimStart();
    const eq = l.indexOf('=');
    if (eq < 0) throw new Error(`line ${n + 1}: expected KEY=value`);
    const key = l.slice(0, eq).trim();
    if (!KEY.test(key)) throw new Error(`line ${n + 1}: invalid key "${key.slice(0, 64)}"`);
    if (!Object.hasOwn(out, key) && ++count > MAX_ENV_VARS) throw new Error(`more than ${MAX_ENV_VARS} variables`);
    out[key] = parseValue(l.slice(eq + 1).trimStart(), n + 1);
  }
  return out;
}
