/**
 * The errors of the template engine, in Go's wording: parse errors
 * `template: <name>:<line>: <problem>`, execution errors
 * `template: <name>:<line>:<col>: executing "<template>" at <<node>>: <problem>`.
 *
 * @module
 */

/** A template that cannot be parsed or executed; `message` is Go's text (module doc), `line` 1-based. */
export class TemplateError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Line (1-based) and column (0-based offset in the line, as Go's `ErrorContext`) of offset `pos` in `text`. */
export function lineCol(text: string, pos: number): { line: number; col: number } {
  const before = text.slice(0, pos);
  const nl = before.lastIndexOf('\n');
  let line = 1;
  for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) line++;
  return { line, col: nl < 0 ? pos : pos - nl - 1 };
}
