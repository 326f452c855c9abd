/**
 * Syntax tree of a filter expression, as built by grammar.peggy (reference/sched.md §1.8,
 * go-bexpr `grammar/ast.go`). Plain objects, created once per compile and never mutated.
 * @module
 */

/** A field path: `a.b["c"].0` is `['a', 'b', 'c', '0']`; a quoted `"/a/b"` sets `pointer`. */
export interface Selector {
  readonly pointer: boolean;
  readonly path: readonly string[];
}

/** Operators of one comparison; `contains` parses as `in`, as in the reference. */
export type MatchOp = 'eq' | 'ne' | 'in' | 'notIn' | 'empty' | 'notEmpty' | 'matches' | 'notMatches' | 'nil' | 'notNil';

/** `Sel op Value` (or `Value in Sel`); `value` is the literal's text ('' for unary operators). */
export interface MatchNode {
  readonly type: 'match';
  readonly selector: Selector;
  readonly op: MatchOp;
  readonly value: string;
}

/**
 * `all|any Sel as …  { inner }`: `name` alone binds the element of a list or the key of a
 * map; `index`/`value` (either may be absent for `_`) bind the position or key and the element.
 */
export interface CollectionNode {
  readonly type: 'collection';
  readonly op: 'all' | 'any';
  readonly selector: Selector;
  readonly name?: string;
  readonly index?: string;
  readonly value?: string;
  readonly inner: Node;
}

export type Node =
  { readonly type: 'and' | 'or'; readonly left: Node; readonly right: Node } | { readonly type: 'not'; readonly operand: Node } | MatchNode | CollectionNode;
