/**
 * Statement fields of the database engine (reference/secrets-engines.md §5 "Role fields"):
 * what a client may send (a semicolon-separated string, base64 of it, a JSON string array,
 * base64 of a JSON array, or a real JSON array), how one stored statement splits into the
 * queries run, and how `{{name}}`, `{{username}}`, `{{password}}`, `{{expiration}}` are
 * substituted (the reference's `dbtxn.ExecuteTxQuery` query helper; PostgreSQL plugin
 * `containsMultilineStatement`).
 *
 * @module
 */
import { InputError } from '../../../kernel/util/duration.js';

/** Most statements one field may hold, and most characters in all of them (a bound on untrusted input). */
const MAX_STATEMENTS = 64;
const MAX_STATEMENT_CHARS = 64 * 1024;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `s` decoded when it is base64 of printable UTF-8 text (the reference accepts base64 statements); otherwise `s`. */
function maybeBase64(s: string): string {
  const t = s.trim();
  if (t.length % 4 !== 0 || !BASE64.test(t)) return s;
  const text = Buffer.from(t, 'base64').toString('utf8');
  return /^[^\u0000-\u0008\u000e-\u001f\ufffd]*$/.test(text) && text.trim() !== '' ? text : s;
}

/**
 * A statements field as stored: the list of statements (each may hold several queries
 * separated by `;`). Accepts a JSON array of strings, or a string that is a JSON array,
 * base64 of one, base64 of text, or the text itself (the reference's `strutil.ParseArbitraryStringSlice`).
 * Errors (400 naming `field`): not a string or string array, too many or too long.
 */
export function parseStatements(v: unknown, field: string): string[] {
  let list: string[];
  if (Array.isArray(v)) {
    if (!v.every((s) => typeof s === 'string')) throw new InputError(`${field}: must be a string or an array of strings`);
    list = v.flatMap((s: string) => parseStatements(s, field));
  } else if (typeof v === 'string') {
    const text = maybeBase64(v);
    let parsed: unknown;
    if (text.trim().startsWith('[')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    list = Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? (parsed as string[]) : [text];
  } else if (v === undefined || v === null) {
    list = [];
  } else {
    throw new InputError(`${field}: must be a string or an array of strings`);
  }
  list = list.map((s) => s.trim()).filter((s) => s !== '');
  if (list.length > MAX_STATEMENTS) throw new InputError(`${field}: at most ${MAX_STATEMENTS} statements`);
  if (list.reduce((n, s) => n + s.length, 0) > MAX_STATEMENT_CHARS) throw new InputError(`${field}: at most ${MAX_STATEMENT_CHARS} characters`);
  return list;
}

/**
 * Whether `stmt` is one multi-line block (a `DO $$ … END $$` or function body) that must
 * run whole instead of being split at `;`: the word END outside quotes (the PostgreSQL plugin's rule).
 */
function isMultiline(stmt: string): boolean {
  const bare = stmt.replace(/"[^"]*"/g, '').replace(/'[^']*'/g, '');
  return /\bEND\b/.test(bare);
}

/** The queries to run for `statements`, in order: each split at `;` unless it is a multi-line block. */
export function queriesOf(statements: readonly string[]): string[] {
  return statements.flatMap((s) =>
    isMultiline(s)
      ? [s]
      : s
          .split(';')
          .map((q) => q.trim())
          .filter((q) => q !== ''),
  );
}

/** Values substituted into statements. */
export interface StatementValues {
  readonly name?: string;
  readonly password?: string;
  readonly expiration?: string;
}

/**
 * `query` with `{{name}}` / `{{username}}`, `{{password}}` and `{{expiration}}` replaced
 * (spaces inside the braces allowed). Each value has the quote characters of the
 * canonical statements doubled (`"` in names, `'` in passwords and expirations), so a
 * value can never end the quoted identifier or literal it sits in.
 */
export function renderQuery(query: string, v: StatementValues): string {
  return query.replace(/\{\{\s*(name|username|password|expiration)\s*\}\}/g, (whole, key: string) => {
    if (key === 'name' || key === 'username') return v.name === undefined ? whole : v.name.replaceAll('"', '""');
    const value = key === 'password' ? v.password : v.expiration;
    return value === undefined ? whole : value.replaceAll("'", "''");
  });
}

/** `d` in the reference's `{{expiration}}` layout (Go `2006-01-02 15:04:05-0700`), in UTC. */
export function formatExpiration(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ') + '+0000';
}

/** A PostgreSQL identifier in double quotes (`pq.QuoteIdentifier`: `"` doubled, cut at NUL). */
export function quoteIdent(s: string): string {
  const cut = s.indexOf('\u0000');
  return `"${(cut >= 0 ? s.slice(0, cut) : s).replaceAll('"', '""')}"`;
}
