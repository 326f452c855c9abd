/**
 * The error of every HCL/JSON document that cannot be read: a syntax error, or a document
 * over the bounds of bounds.ts. Its own file so that hcl.ts and bounds.ts share it
 * without importing each other.
 *
 * @module
 */

/**
 * A syntax error in an HCL or JSON document, or a document too large or too deeply
 * nested to parse. The message is `<file>:<line>:<column>: <reason>` (e.g. `policy.hcl:4:1:
 * object expected closing RBRACE got: EOF`), or `<file>: <reason>` when there is no position.
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
