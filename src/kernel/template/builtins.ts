/**
 * The predefined functions of Go's `text/template` (Go's `text/template/funcs.go`,
 * restated): `and or not len index slice print printf println html js urlquery call eq ne
 * lt le gt ge`, with Go's error texts (`error calling index: index out of range: 5`).
 * `and` and `or` are evaluated lazily by exec.ts; their entries here carry the arity.
 *
 * Difference from Go: numbers compare as one kind (Go refuses `eq` of an `int` and a
 * `float64`, which `parseJSON` numbers would otherwise hit).
 *
 * @module
 */
import { sprint, sprintf, sprintln } from './fmt.js';
import { isMap, mapGet, truth, typeName, type Value } from './values.js';

/** A function a template may call: `fn` with at least `minArgs` and at most `maxArgs` (undefined: any number) arguments. */
export interface TemplateFunc {
  readonly fn: (...args: Value[]) => Value;
  readonly minArgs: number;
  readonly maxArgs: number | undefined;
}

/** The functions of a template by name. */
export type FuncMap = Readonly<Record<string, TemplateFunc>>;

/** A {@link TemplateFunc} of `fn`: `fn.length` arguments, or `minArgs` to `maxArgs` (`'variadic'`: no upper bound). */
export function templateFunc(fn: (...args: Value[]) => Value, minArgs = fn.length, maxArgs: number | 'variadic' = minArgs): TemplateFunc {
  return { fn, minArgs, maxArgs: maxArgs === 'variadic' ? undefined : maxArgs };
}

const variadic = (fn: (...args: Value[]) => Value, minArgs = 0): TemplateFunc => ({ fn, minArgs, maxArgs: undefined });

/** Go's `evalArgs`: one string argument as it is, else `fmt.Sprint` of all. */
function evalArgs(args: readonly Value[]): string {
  return args.length === 1 && typeof args[0] === 'string' ? args[0] : sprint(args);
}

/** Go's `template.HTMLEscapeString`. */
function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** Go's `template.JSEscapeString`. */
function jsEscape(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (c === '\\') out += '\\\\';
    else if (c === "'") out += "\\'";
    else if (c === '"') out += '\\"';
    else if (c === '<') out += '\\u003C';
    else if (c === '>') out += '\\u003E';
    else if (c === '&') out += '\\u0026';
    else if (c === '=') out += '\\u003D';
    else if (code < 0x20) out += `\\u00${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (code < 0x80 || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c)) out += c;
    else out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out;
}

/** Go's `url.QueryEscape`. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function indexArg(index: Value, len: number, cap = len): number {
  if (index === null || index === undefined) throw new Error('cannot index slice/array with nil');
  if (typeof index !== 'number' || !Number.isInteger(index)) throw new Error(`cannot index slice/array with type ${typeName(index)}`);
  if (index < 0 || index >= cap) throw new Error(`index out of range: ${index}`);
  return index;
}

function index(item: Value, ...indexes: Value[]): Value {
  if (item === null || item === undefined) throw new Error('index of untyped nil');
  let cur: Value = item;
  for (const i of indexes) {
    if (cur === null || cur === undefined) throw new Error('index of nil pointer');
    if (typeof cur === 'string') {
      const bytes = Buffer.from(cur, 'utf8');
      cur = bytes[indexArg(i, bytes.length)];
    } else if (Array.isArray(cur)) cur = cur[indexArg(i, cur.length)];
    else if (isMap(cur)) cur = mapGet(cur, i);
    else throw new Error(`can't index item of type ${typeName(cur)}`);
  }
  return cur;
}

function slice(item: Value, ...indexes: Value[]): Value {
  if (item === null || item === undefined) throw new Error('slice of untyped nil');
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`);
  if (typeof item === 'string' && indexes.length === 3) throw new Error('cannot 3-index slice a string');
  const isString = typeof item === 'string';
  if (!isString && !Array.isArray(item)) throw new Error(`can't slice item of type ${typeName(item)}`);
  const bytes = isString ? Buffer.from(item, 'utf8') : undefined;
  const len = bytes ? bytes.length : (item as unknown[]).length;
  const idx = [0, len];
  for (const [k, i] of indexes.entries()) idx[k] = indexArg(i, len, len + 1);
  if (idx[0]! > idx[1]!) throw new Error(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  return bytes ? bytes.subarray(idx[0], idx[1]).toString('utf8') : (item as unknown[]).slice(idx[0], idx[1]);
}

function length(item: Value): number {
  if (item === null || item === undefined) throw new Error('len of nil pointer');
  if (typeof item === 'string') return Buffer.byteLength(item, 'utf8');
  if (Array.isArray(item)) return item.length;
  if (item instanceof Map) return item.size;
  if (isMap(item)) return Object.keys(item).length;
  throw new Error(`len of type ${typeName(item)}`);
}

type Kind = 'bool' | 'number' | 'string' | 'invalid' | 'other';
const kindOf = (v: Value): Kind =>
  v === undefined || v === null ? 'invalid' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : 'other';

function eq(a: Value, ...rest: Value[]): boolean {
  if (rest.length === 0) throw new Error('missing argument for comparison');
  const k1 = kindOf(a);
  for (const b of rest) {
    const k2 = kindOf(b);
    if (k1 !== k2) {
      if (k1 !== 'invalid' && k2 !== 'invalid') throw new Error('incompatible types for comparison');
      continue;
    }
    if (k1 === 'other') {
      if (Array.isArray(a) || isMap(a) || typeof a === 'function') throw new Error(`non-comparable type ${typeName(a)}`);
      if (a === b) return true;
    } else if (a === b || (k1 === 'invalid' && k2 === 'invalid')) return true;
  }
  return false;
}

function lt(a: Value, b: Value): boolean {
  const k1 = kindOf(a);
  const k2 = kindOf(b);
  if (k1 === 'invalid' || k1 === 'other' || k2 === 'invalid' || k2 === 'other' || k1 === 'bool' || k2 === 'bool')
    throw new Error('invalid type for comparison');
  if (k1 !== k2) throw new Error('incompatible types for comparison');
  return (a as number | string) < (b as number | string);
}

function call(fn: Value, ...args: Value[]): Value {
  if (fn === null || fn === undefined) throw new Error('call of nil');
  if (typeof fn !== 'function') throw new Error(`non-function of type ${typeName(fn)}`);
  return (fn as (...a: Value[]) => Value)(...args);
}

/** The predefined functions (module doc). */
export const BUILTINS: FuncMap = {
  and: variadic((...args) => args.at(-1), 1),
  or: variadic((...args) => args.at(-1), 1),
  not: templateFunc((v) => !truth(v)),
  len: templateFunc(length),
  index: variadic(index, 1),
  slice: variadic(slice, 1),
  print: variadic((...args) => sprint(args)),
  printf: variadic((format, ...args) => {
    if (typeof format !== 'string') throw new Error(`wrong type for value; expected string; got ${typeName(format)}`);
    return sprintf(format, args);
  }, 1),
  println: variadic((...args) => sprintln(args)),
  html: variadic((...args) => htmlEscape(evalArgs(args))),
  js: variadic((...args) => jsEscape(evalArgs(args))),
  urlquery: variadic((...args) => queryEscape(evalArgs(args))),
  call: variadic(call, 1),
  eq: variadic(eq, 1),
  ne: templateFunc((a, b) => !eq(a, b)),
  lt: templateFunc(lt),
  le: templateFunc((a, b) => lt(a, b) || eq(a, b)),
  gt: templateFunc((a, b) => !lt(a, b) && !eq(a, b)),
  ge: templateFunc((a, b) => !lt(a, b)),
};
