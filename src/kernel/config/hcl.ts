/**
 * HCL v1 parsing for configuration files and ACL policies (DESIGN.md "Configuration").
 *
 * A thin wrapper around `js-hcl-parser` (a GopherJS build of hashicorp/hcl v1, chosen in
 * reference/ecosystem.md §5): HCL1 semantics like the reference products, repeated
 * labelled blocks kept as lists, JSON input accepted. The library is loaded lazily, and
 * its global side effects (a global `require`, `Error.stackTraceLimit = Infinity`) are
 * undone right after loading; after an exception inside it the instance is replaced
 * (see `discardParser`), so one hostile document cannot break later parses. Only this
 * file knows the library, so it can be replaced by a hand-written HCL1 subset parser
 * without touching callers.
 *
 * Output shape (HCL1 `Unmarshal` into `interface{}`): blocks and nested objects become
 * lists of objects (`path "a" { x = 1 }` → `{"path":[{"a":[{"x":1}]}]}`,
 * `m = {k = "v"}` → `{"m":[{"k":"v"}]}`); a repeated attribute keeps its last value.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { checkDocumentBounds } from './bounds.js';
import { HclSyntaxError } from './hcl-error.js';

export { HclSyntaxError } from './hcl-error.js';

type ParseFn = (text: string) => string;
const require = createRequire(import.meta.url);
let parseFn: ParseFn | undefined;

/** Loads `js-hcl-parser` (a fresh instance after {@link discardParser}) and restores the globals its loader changes. */
function parser(): ParseFn {
  if (parseFn) return parseFn;
  const g = globalThis as { require?: unknown };
  const hadRequire = Object.prototype.hasOwnProperty.call(g, 'require');
  const previousRequire = g.require;
  const previousLimit = Error.stackTraceLimit;
  try {
    const lib = require('js-hcl-parser') as { parse: ParseFn };
    parseFn = lib.parse;
  } finally {
    Error.stackTraceLimit = previousLimit;
    if (hadRequire) g.require = previousRequire;
    else delete g.require;
  }
  return parseFn;
}

/**
 * Drops the loaded instance so the next parse loads a new one (about 70 ms).
 *
 * Why: the library is GopherJS-compiled Go, whose runtime keeps panics and deferred calls
 * on module-level stacks. An exception thrown through it (a stack overflow deep in a
 * nested document) leaves entries behind, and each later parse that runs a deferred call
 * re-throws one of them: 10 deep documents made the next 10 valid ones fail. A thrown
 * exception is the only way that state can go stale (a syntax error is a returned
 * string), so a fresh instance after one restores a clean runtime.
 */
function discardParser(): void {
  parseFn = undefined;
  delete require.cache[require.resolve('js-hcl-parser')];
}

// js-hcl-parser reports `unable to parse JSON: At 4:1: …` (HCL) or `…: 1:4: …` (JSON input).
const FAILURE = /^unable to [a-z]+(?: [A-Z]+)?: ([\s\S]*)$/;
const POSITION = /^(?:At )?(\d+):(\d+): ([\s\S]*)$/;

/**
 * Parses an HCL (v1) or JSON document into plain JSON values (shape: module doc).
 * `file` only names the document in error messages. Every HCL document of every service
 * comes through here: its size and depth are checked first (bounds.ts).
 *
 * @throws {HclSyntaxError} on a syntax error, naming file, line and column; for a document
 *   over 1 MiB or nested deeper than 32 levels (bounds.ts), or one the parser cannot
 *   finish without overflowing the stack (`the document is nested too deeply to parse`).
 */
export function parseHcl(text: string, file: string): unknown {
  checkDocumentBounds(text, file);
  let out: string;
  try {
    out = parser()(text);
  } catch (err) {
    discardParser();
    if (err instanceof RangeError) throw new HclSyntaxError(file, undefined, undefined, 'the document is nested too deeply to parse');
    throw err;
  }
  const failed = FAILURE.exec(out);
  if (failed) {
    const pos = POSITION.exec(failed[1].trim());
    if (pos) throw new HclSyntaxError(file, Number(pos[1]), Number(pos[2]), pos[3]);
    throw new HclSyntaxError(file, undefined, undefined, failed[1].trim());
  }
  return JSON.parse(out) as unknown;
}
