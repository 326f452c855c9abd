/**
 * Evaluation of a parsed filter against a plain JSON-like value, following go-bexpr
 * v0.1.x `evaluate.go` and `coerce.go` (reference/sched.md §1.8). A literal is coerced to
 * the kind of the value it meets; objects are taken as maps, arrays as slices, `null` as a
 * nil map or slice. Literal coercions and regular expressions are prepared once per
 * compile, so evaluation allocates nothing outside `all`/`any` loops.
 * @module
 */
import { RE2JS } from 're2js';
import type { CollectionNode, MatchNode, MatchOp, Node, Selector } from './ast.js';
import { evaluationError } from './errors.js';
import { parseGoBool } from '../util/go-bool.js';

/** A match node with its literal coerced ahead of time (undefined: no such reading). */
interface PreparedMatch extends MatchNode {
  readonly text: string;
  readonly int: number | undefined; // strconv.ParseInt(raw, 0, 64)
  readonly float: number | undefined; // strconv.ParseFloat(raw, 64)
  readonly bool: boolean | undefined; // strconv.ParseBool(raw)
  readonly re: RE2JS | string | undefined; // compiled pattern, or the compile error to raise
}

/** A tree ready for {@link evaluate}; build it with {@link prepare}. */
export type Prepared =
  | { readonly type: 'and' | 'or'; readonly left: Prepared; readonly right: Prepared }
  | { readonly type: 'not'; readonly operand: Prepared }
  | PreparedMatch
  | (Omit<CollectionNode, 'inner'> & { readonly text: string; readonly inner: Prepared });

/** A name bound by `all`/`any`: either a path into the datum or a known value (key, index). */
interface Local {
  readonly name: string;
  readonly path?: readonly string[];
  readonly value?: unknown;
  readonly next: Local | undefined;
}

const ABSENT = Symbol('absent');

/** Result of each operator on a map key that is not there (go-bexpr `NotPresentDisposition`). */
const NOT_PRESENT: Record<MatchOp, boolean> = {
  eq: false,
  ne: true,
  in: false,
  notIn: true,
  empty: true,
  notEmpty: false,
  matches: false,
  notMatches: true,
  nil: true,
  notNil: false,
};

const GO_INT = /^[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO]?[0-7]+|[1-9][0-9]*|0)$/;
const GO_FLOAT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

function parseGoInt(raw: string): number | undefined {
  if (!GO_INT.test(raw)) return undefined;
  const sign = raw[0] === '-' ? -1 : 1;
  const digits = raw.replace(/^[+-]/, '');
  const prefix = digits.slice(0, 2).toLowerCase();
  if (prefix === '0x' || prefix === '0b' || prefix === '0o') return sign * Number(digits.slice(0, 1) + prefix[1] + digits.slice(2));
  return sign * (digits.length > 1 && digits[0] === '0' ? parseInt(digits, 8) : Number(digits));
}

function parseGoFloat(raw: string): number | undefined {
  if (GO_FLOAT.test(raw)) return Number(raw);
  const word = raw.replace(/^[+-]/, '').toLowerCase();
  if (word === 'inf' || word === 'infinity') return raw[0] === '-' ? -Infinity : Infinity;
  return word === 'nan' ? NaN : undefined;
}

export const selectorText = (s: Selector): string => (s.pointer ? '/' + s.path.join('/') : s.path.join('.'));

/** Prepares a parsed tree for evaluation: literal coercions and regular expressions, once. */
export function prepare(node: Node): Prepared {
  switch (node.type) {
    case 'and':
    case 'or':
      return { type: node.type, left: prepare(node.left), right: prepare(node.right) };
    case 'not':
      return { type: 'not', operand: prepare(node.operand) };
    case 'collection':
      return { ...node, text: selectorText(node.selector), inner: prepare(node.inner) };
    case 'match': {
      let re: RE2JS | string | undefined;
      if (node.op === 'matches' || node.op === 'notMatches') {
        // Go's regexp is RE2; re2js is its port, so syntax and linear-time matching agree.
        try {
          re = RE2JS.compile(node.value);
        } catch (e) {
          re = `Failed to compile regular expression ${JSON.stringify(node.value)}: ${(e as Error).message}`;
        }
      }
      const raw = node.value;
      return { ...node, text: selectorText(node.selector), int: parseGoInt(raw), float: parseGoFloat(raw), bool: parseGoBool(raw), re };
    }
    default:
      return node satisfies never;
  }
}

/**
 * Whether `datum` matches `node`. `and`/`or` short-circuit left to right, as in the reference.
 * @throws {FilterError} kind 'evaluation' with go-bexpr's reason (missing struct-level
 *   field, wrong kind for the operator, literal not coercible, bad regular expression).
 */
export function evaluate(node: Prepared, datum: unknown): boolean {
  return evalNode(node, datum, undefined);
}

function evalNode(node: Prepared, datum: unknown, locals: Local | undefined): boolean {
  switch (node.type) {
    case 'and':
      return evalNode(node.left, datum, locals) && evalNode(node.right, datum, locals);
    case 'or':
      return evalNode(node.left, datum, locals) || evalNode(node.right, datum, locals);
    case 'not':
      return !evalNode(node.operand, datum, locals);
    case 'match': {
      const v = lookup(datum, node.selector, locals);
      return v === ABSENT ? NOT_PRESENT[node.op] : match(node, v);
    }
    case 'collection':
      return collection(node as Extract<Prepared, { type: 'collection' }>, datum, locals);
    default:
      return node satisfies never;
  }
}

function match(node: PreparedMatch, v: unknown): boolean {
  switch (node.op) {
    case 'eq':
      return equal(node, v);
    case 'ne':
      return !equal(node, v);
    case 'in':
      return contains(node, v);
    case 'notIn':
      return !contains(node, v);
    case 'empty':
      return isEmpty(node, v);
    case 'notEmpty':
      return !isEmpty(node, v);
    case 'matches':
      return matches(node, v);
    case 'notMatches':
      return !matches(node, v);
    case 'nil':
      return v == null;
    case 'notNil':
      return v != null;
    default:
      return node.op satisfies never;
  }
}

function kindOf(v: unknown): string {
  if (v == null) return 'nil';
  if (Array.isArray(v)) return 'slice';
  return typeof v === 'object' ? 'map' : typeof v === 'boolean' ? 'bool' : typeof v;
}

/** The literal read as a number for `v` (a Go int field for whole numbers, else a float). */
function number(node: PreparedMatch, v: number): number | undefined {
  return Number.isInteger(v) ? (node.int ?? node.float) : node.float;
}

function equal(node: PreparedMatch, v: unknown): boolean {
  switch (typeof v) {
    case 'string':
      return v === node.value;
    case 'number': {
      const n = number(node, v);
      if (n === undefined) throw coercionError(node, 'ParseFloat');
      return n === v;
    }
    case 'boolean':
      if (node.bool === undefined) throw coercionError(node, 'ParseBool');
      return node.bool === v;
    default:
      throw evaluationError(`unable to find suitable primitive comparison function for matching: ${node.text} is a ${kindOf(v)}`);
  }
}

const coercionError = (node: PreparedMatch, fn: string) =>
  evaluationError(`error getting match value in expression: strconv.${fn}: parsing ${JSON.stringify(node.value)}: invalid syntax`);

function contains(node: PreparedMatch, v: unknown): boolean {
  if (typeof v === 'string') return v.includes(node.value);
  if (v === null || v === undefined) return false; // a nil slice or map holds nothing
  if (Array.isArray(v)) {
    // Like an []interface{}: each element takes the literal in its own kind; elements the
    // literal cannot be read as are skipped (go-bexpr skips strconv syntax errors).
    for (const el of v) {
      switch (typeof el) {
        case 'string':
          if (el === node.value) return true;
          break;
        case 'number':
          if (number(node, el) === el) return true;
          break;
        case 'boolean':
          if (node.bool === el) return true;
          break;
        default:
          if (el != null) {
            throw evaluationError(`unable to find suitable primitive comparison function for "in" comparison in interface slice: ${kindOf(el)}`);
          }
      }
    }
    return false;
  }
  if (typeof v === 'object') return Object.hasOwn(v, node.value);
  throw evaluationError(`Cannot perform in/contains operations on type ${kindOf(v)} for selector: "${node.text}"`);
}

function isEmpty(node: PreparedMatch, v: unknown): boolean {
  if (v === null || v === undefined) return true; // a nil slice or map has length 0
  if (typeof v === 'string' || Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') {
    for (const key in v) if (Object.hasOwn(v, key)) return false;
    return true;
  }
  throw evaluationError(`Cannot check emptiness of type ${kindOf(v)} for selector: "${node.text}"`);
}

function matches(node: PreparedMatch, v: unknown): boolean {
  if (typeof v !== 'string') throw evaluationError(`Value of type ${kindOf(v)} is not convertible to []byte`);
  if (typeof node.re === 'string') throw evaluationError(node.re);
  return node.re!.test(v);
}

/**
 * The value a selector names, or ABSENT when only its last key is missing from a map
 * (go-bexpr `evaluateNotPresent`). A missing top-level field, a missing intermediate key,
 * an index out of range or a step into a scalar is an error, as in pointerstructure.
 */
function lookup(datum: unknown, selector: Selector, locals: Local | undefined): unknown {
  let path = selector.path;
  for (let l = locals; l !== undefined; l = l.next) {
    if (path.length === 0 || path[0] !== l.name) continue;
    if (l.path === undefined) {
      if (path.length > 1) throw evaluationError(`/${l.name} references a ${kindOf(l.value)} so /${path.join('/')} is invalid`);
      return l.value;
    }
    path = [...l.path, ...path.slice(1)];
  }
  let cur = datum;
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    if (Array.isArray(cur)) {
      if (!/^[+-]?[0-9]+$/.test(part)) throw notFound(path, i, `couldn't parse index "${part}"`);
      const index = Number(part);
      if (index < 0 || index >= cur.length) throw notFound(path, i, `index ${index} is out of range (length = ${cur.length})`);
      cur = cur[index];
    } else if (cur !== null && typeof cur === 'object') {
      const value = Object.hasOwn(cur, part) ? (cur as Record<string, unknown>)[part] : undefined;
      if (value === undefined) {
        if (i > 0 && i === path.length - 1) return ABSENT;
        throw notFound(path, i, `couldn't find key ${JSON.stringify(part)}`);
      }
      cur = value;
    } else {
      throw notFound(path, i, `invalid value kind: ${kindOf(cur)}`);
    }
  }
  return cur;
}

const notFound = (path: readonly string[], part: number, why: string) =>
  evaluationError(`error finding value in datum: /${path.join('/')}: at part ${part}, ${why}`);

/** `all`/`any`: an absent or nil collection has no elements (all: true, any: false). */
function collection(
  node: Omit<CollectionNode, 'inner'> & { readonly text: string; readonly inner: Prepared },
  datum: unknown,
  locals: Local | undefined,
): boolean {
  const all = node.op === 'all';
  const v = lookup(datum, node.selector, locals);
  if (v === ABSENT || v === null || v === undefined) return all;
  if (typeof v !== 'object') throw evaluationError(`${node.text} is not a list or a map`);
  const base = node.selector.path;
  const isList = Array.isArray(v);
  const keys = isList ? undefined : Object.keys(v);
  const n = isList ? v.length : keys!.length;
  for (let i = 0; i < n; i++) {
    if (node.index !== undefined && node.index === node.value) {
      throw evaluationError(`"${node.index}" cannot be used as a placeholder for both the index and the value`);
    }
    const key = isList ? String(i) : keys![i];
    const at = [...base, key];
    let scope = locals;
    // A list binds its element by path; a map binds its key by value (there is no path to a key).
    if (node.name !== undefined) scope = isList ? { name: node.name, path: at, next: scope } : { name: node.name, value: key, next: scope };
    if (node.index !== undefined) scope = { name: node.index, value: isList ? i : key, next: scope };
    if (node.value !== undefined) scope = { name: node.value, path: at, next: scope };
    if (evalNode(node.inner, datum, scope) === !all) return !all;
  }
  return all;
}
