/**
 * HCL v1 parsing for configuration files and ACL policies (DESIGN.md "Configuration").
 *
 * A thin wrapper around `js-hcl-parser` (a GopherJS build of hashicorp/hcl v1, chosen in
 * reference/ecosystem.md §5): HCL1 semantics like the reference products, repeated
 * labelled blocks kept as lists, JSON input accepted. The library is loaded lazily, once,
 * and its global side effects (a global `require`, `Error.stackTraceLimit = Infinity`)
 * are undone right after loading. Only this file knows the library, so it can be
 * replaced by a hand-written HCL1 subset parser without touching callers.
 *
 * Output shape (HCL1 `Unmarshal` into `interface{}`): blocks and nested objects become
 * lists of objects (`path "a" { x = 1 }` → `{"path":[{"a":[{"x":1}]}]}`,
 * `m = {k = "v"}` → `{"m":[{"k":"v"}]}`); a repeated attribute keeps its last value.
 *
 * @module
 */
import { createRequire } from 'node:module';

/**
 * A syntax error in an HCL or JSON document. The message is
 * `<file>:<line>:<column>: <reason>` (e.g. `policy.hcl:4:1: object expected closing
 * RBRACE got: EOF`), or `<file>: <reason>` when the parser gave no position.
 */
export class HclSyntaxError extends Error {
  override readonly name = 'HclSyntaxError';

  constructor(
    /** The name the caller gave the document (a file path, `policy "web"`, …). */
    readonly file: string,
    /** 1-based line, when known. */
    readonly line: number | undefined,
    /** 1-based column, when known. */
    readonly column: number | undefined,
    /** The parser's own description of the problem. */
    readonly reason: string,
  ) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${line}:${column}: ${reason}`);
  }
}

type ParseFn = (text: string) => string;
let parseFn: ParseFn | undefined;

/** Loads `js-hcl-parser` once and restores the globals its loader changes. */
function parser(): ParseFn {
  if (parseFn) return parseFn;
  const g = globalThis as { require?: unknown };
  const hadRequire = Object.prototype.hasOwnProperty.call(g, 'require');
  const previousRequire = g.require;
  const previousLimit = Error.stackTraceLimit;
  try {
    const lib = createRequire(import.meta.url)('js-hcl-parser') as { parse: ParseFn };
    parseFn = lib.parse;
  } finally {
    Error.stackTraceLimit = previousLimit;
    if (hadRequire) g.require = previousRequire;
    else delete g.require;
  }
  return parseFn;
}

// js-hcl-parser reports `unable to parse JSON: At 4:1: …` (HCL) or `…: 1:4: …` (JSON input).
const FAILURE = /^unable to [a-z]+(?: [A-Z]+)?: ([\s\S]*)$/;
const POSITION = /^(?:At )?(\d+):(\d+): ([\s\S]*)$/;

/**
 * Parses an HCL (v1) or JSON document into plain JSON values (shape: module doc).
 * `file` only names the document in error messages.
 *
 * @throws {HclSyntaxError} on a syntax error, naming file, line and column.
 */
export function parseHcl(text: string, file: string): unknown {
  const out = parser()(text);
  const failed = FAILURE.exec(out);
  if (failed) {
    const pos = POSITION.exec(failed[1].trim());
    if (pos) throw new HclSyntaxError(file, Number(pos[1]), Number(pos[2]), pos[3]);
    throw new HclSyntaxError(file, undefined, undefined, failed[1].trim());
  }
  return JSON.parse(out) as unknown;
}
