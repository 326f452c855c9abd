/**
 * Loading a configuration file (DESIGN.md "Configuration"): HCL (v1, through
 * `parseHcl`) or JSON, validated against a declared schema (schema.ts) into typed
 * values. Every error names the file and line, and the key when there is one:
 *
 * ```text
 * secrets.hcl:7: unknown key "adress" in listener "tcp"
 * secrets.hcl:3: "tls_disable" must be a boolean
 * secrets.hcl:1: missing required block "storage"
 * secrets.hcl:4: syntax error at column 1: object expected closing RBRACE got: EOF
 * ```
 *
 * A key missing from the top level is reported at line 1 (where the top-level body
 * starts); a key missing from a block at the block's line.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { checkDocumentBounds } from './bounds.js';
import { HclSyntaxError, parseHcl } from './hcl.js';
import { scanPositions } from './positions.js';
import { ConfigError, type ConfigOf, type Keys } from './schema.js';
import { validateConfig } from './validate.js';

/** The two accepted syntaxes. */
type ConfigFormat = 'hcl' | 'json';

/** JSON when the file name ends in `.json` or the text starts with `{`; HCL otherwise. */
function detectFormat(file: string, text: string): ConfigFormat {
  return file.toLowerCase().endsWith('.json') || text.trimStart().startsWith('{') ? 'json' : 'hcl';
}

/**
 * Parses and validates config `text`; `file` names it in errors (give the path as the
 * user wrote it).
 *
 * @throws {ConfigError} on a syntax error or any schema violation (message: the first
 *   issue as `file:line: …`; `issues`: all of them).
 */
export function parseConfig<K extends Keys>(text: string, file: string, keys: K): ConfigOf<K> {
  const source = text.replace(/^\uFEFF/, '');
  const format = detectFormat(file, source);
  const doc = format === 'json' ? parseJson(source, file) : parseHclDoc(source, file);
  return validateConfig(doc, keys, { file, format, positions: scanPositions(source, format) });
}

/**
 * Reads `path` (UTF-8) and validates it with {@link parseConfig}.
 *
 * @throws {ConfigError} when the file cannot be read (no line), on a syntax error, or
 *   on any schema violation.
 */
export function loadConfigFile<K extends Keys>(path: string, keys: K): ConfigOf<K> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new ConfigError([{ file: path, line: undefined, key: undefined, message: `cannot read the configuration file: ${reason}` }]);
  }
  return parseConfig(text, path, keys);
}

function syntaxError(file: string, line: number | undefined, column: number | undefined, reason: string): ConfigError {
  const where = column === undefined ? '' : ` at column ${column}`;
  return new ConfigError([{ file, line, key: undefined, message: `syntax error${where}: ${reason}`, syntax: { column, reason } }]);
}

function parseHclDoc(text: string, file: string): unknown {
  try {
    return parseHcl(text, file);
  } catch (err) {
    if (err instanceof HclSyntaxError) throw syntaxError(file, err.line ?? 1, err.column, err.reason);
    throw err;
  }
}

/**
 * `JSON.parse`, with the error placed by line and column (V8 gives an offset for most
 * errors), after the bounds every document gets (bounds.ts): the walks after it recurse.
 */
function parseJson(text: string, file: string): unknown {
  try {
    checkDocumentBounds(text, file, 'json');
  } catch (err) {
    if (err instanceof HclSyntaxError) throw syntaxError(file, err.line ?? 1, err.column, err.reason);
    throw err;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const reason = (err as Error).message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
    const m = / at position (\d+)/.exec((err as Error).message);
    if (m) {
      const before = text.slice(0, Number(m[1]));
      const line = before.split('\n').length;
      throw syntaxError(file, line, before.length - before.lastIndexOf('\n'), reason);
    }
    // No offset in V8's message: the HCL parser (which reads JSON too) locates it.
    try {
      parseHcl(text, file);
    } catch (hclErr) {
      if (hclErr instanceof HclSyntaxError) throw syntaxError(file, hclErr.line ?? 1, hclErr.column, reason);
    }
    throw syntaxError(file, text.split('\n').length, undefined, reason);
  }
}
