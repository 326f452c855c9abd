/**
 * The filter-expression language of the reference products (hashicorp/go-bexpr v0.1.x),
 * shared by the scheduler's `filter` parameter (reference/sched.md §1.7–§1.8) and binding
 * rule selectors of both services (reference/mesh.md §3.4–§3.5, §6.6; sched.md §2.4).
 * Compile once, evaluate many:
 * ```ts
 * const f = compileFilter('"admins" in list.groups and value.sub matches "^u-"');
 * f.matches({ value: { sub: 'u-1' }, list: { groups: ['admins'] } }); // true
 * ```
 * Deliberate differences from go-bexpr are listed in docs/compatibility.md.
 * @module
 */
import type { Node } from './ast.js';
import { checkTree } from './check.js';
import { FilterError } from './errors.js';
import { evaluate, prepare, type Prepared } from './evaluate.js';
import { parse as generatedParse, SyntaxError as GeneratedSyntaxError } from './parser.generated.js';

export { FilterError };

/** A compiled filter expression. */
export interface Filter {
  readonly source: string;
  /**
   * Whether `value` (a plain JSON-like object: Go field names for structs, nested objects
   * for maps) matches.
   * @throws {FilterError} kind 'evaluation' (e.g. a selector naming a top-level field that
   *   does not exist, comparing a list with ==), following go-bexpr.
   */
  matches(value: unknown): boolean;
}

const parse = generatedParse as (input: string) => Node;

class CompiledFilter implements Filter {
  readonly #prepared: Prepared;
  constructor(
    readonly source: string,
    readonly root: Node,
  ) {
    this.#prepared = prepare(root);
  }
  matches(value: unknown): boolean {
    return evaluate(this.#prepared, value);
  }
}

/**
 * Parses `expression` once (an empty expression is a syntax error: callers that treat an
 * empty selector as "match all" check for it first).
 * @throws {FilterError} kind 'syntax', message `line:column: Expected … but … found.` or the
 *   reference's own wording (`Unmatched parentheses`, `Invalid number literal`, …).
 */
export function compileFilter(expression: string): Filter {
  let root: Node;
  try {
    root = parse(expression);
  } catch (e) {
    // The parser recurses once per nesting level or `and`/`or` term: a hostile expression
    // must be a 400, not a crash of the request with a stack overflow.
    if (e instanceof RangeError) throw new FilterError('syntax', 'expression is nested too deeply or has too many terms');
    if (!(e instanceof GeneratedSyntaxError)) throw e;
    const { line, column } = (e as unknown as { location: { start: { line: number; column: number } } }).location.start;
    throw new FilterError('syntax', `${line}:${column}: ${(e as Error).message}`, line, column);
  }
  return new CompiledFilter(expression, root);
}

/**
 * Write-time check that every selector of `filter` names a field that exists in `sample`
 * (the reference compiles binding-rule selectors against the auth method's blank identity,
 * so unknown field names are rejected when the rule is written; mesh.md §6.6). In `sample`,
 * a non-empty object is a struct whose keys are the only fields and an empty object is a
 * map that takes any key, so pass map-valued fields empty (`{ value: {}, list: {} }`).
 * @throws {FilterError} kind 'evaluation' naming the unknown selector.
 */
export function checkSelectors(filter: Filter, sample: unknown): void {
  const root = filter instanceof CompiledFilter ? filter.root : (compileFilter(filter.source) as CompiledFilter).root;
  checkTree(root, sample);
}
