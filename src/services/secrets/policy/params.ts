/**
 * Parameter constraints of a policy rule: `allowed_parameters`, `denied_parameters` and
 * `required_parameters` (the reference's `policy.go` parsing and `acl.go`
 * `AllowOperation` / `NewACL` merging), checked against a request's data:
 *
 * ```hcl
 * path "secret/data/app" {
 *   capabilities        = ["create", "update"]
 *   allowed_parameters  = { "data" = [] "options" = [] }
 *   denied_parameters   = { "version" = ["0", "prod-*"] }
 *   required_parameters = ["data"]
 * }
 * ```
 *
 * Semantics as the reference: parameter names are case-insensitive; an empty value list
 * matches any value; a string value in a list may begin or end with `*` (suffix/prefix
 * glob); a list value (or a comma-separated string) is allowed when every element is and
 * denied when any element is; `"*"` in `denied_parameters` refuses any data, in
 * `allowed_parameters` it admits keys that are not listed (without checking their values);
 * denied wins over allowed; required names must be present.
 *
 * @module
 */
import { isObject } from '../../../kernel/util/is-object.js';

/** A value a constraint lists: JSON scalars only (Cairn refuses nested lists and objects). */
type ParamValue = string | number | boolean;

/** The constraints of one rule, or of the same pattern merged across policies. */
export interface ParamConstraints {
  /** Lower-cased name → allowed values (empty: any value); undefined: no restriction. */
  readonly allowed?: ReadonlyMap<string, readonly ParamValue[]>;
  /** Lower-cased name → denied values (empty: any value); undefined: none denied. */
  readonly denied?: ReadonlyMap<string, readonly ParamValue[]>;
  /** Names that must be present in the data (as written; looked up lower-cased). */
  readonly required: readonly string[];
}

type Obj = Record<string, unknown>;
const isValue = (v: unknown): v is ParamValue => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** The keys of a `path` block this module parses. */
export const PARAM_KEYS: readonly string[] = ['allowed_parameters', 'denied_parameters', 'required_parameters'];

/**
 * Reads the constraints of a `path` block body `b` (HCL gives a map as a one-element list
 * of objects, JSON as an object). Returns undefined when the block has none, so rules
 * without constraints cost nothing when checked.
 *
 * @throws {Error} with a message naming the field and the problem (the caller prefixes
 *   the path), e.g. `"allowed_parameters.ttl" must be a list of strings, numbers or booleans`.
 */
export function parseConstraints(b: Obj): ParamConstraints | undefined {
  const allowed = valueMap(b, 'allowed_parameters');
  const denied = valueMap(b, 'denied_parameters');
  let required: string[] = [];
  if (b.required_parameters !== undefined) {
    if (!Array.isArray(b.required_parameters) || !b.required_parameters.every((k) => typeof k === 'string'))
      throw new Error('"required_parameters" must be a list of strings');
    required = [...new Set(b.required_parameters as string[])];
  }
  if (!allowed && !denied && !required.length) return undefined;
  return { allowed, denied, required };
}

function valueMap(b: Obj, field: string): Map<string, ParamValue[]> | undefined {
  const raw = b[field];
  if (raw === undefined) return undefined;
  const obj = isObject(raw) ? raw : Array.isArray(raw) && raw.length === 1 && isObject(raw[0]) ? raw[0] : undefined;
  if (!obj) throw new Error(`"${field}" must be a map of parameter name to a list of values: ${field} = { "name" = [] }`);
  const out = new Map<string, ParamValue[]>();
  for (const [name, values] of Object.entries(obj)) {
    if (!Array.isArray(values) || !values.every(isValue))
      throw new Error(`"${field}.${name}" must be a list of strings, numbers or booleans (an empty list matches any value)`);
    const key = name.toLowerCase();
    out.set(key, mergeValues(out.get(key), values));
  }
  // An empty map restricts nothing (the reference tests the map's length).
  return out.size ? out : undefined;
}

/** Two value lists for one name: an empty list (any value) absorbs the other, else both are kept. */
function mergeValues(a: readonly ParamValue[] | undefined, b: readonly ParamValue[]): ParamValue[] {
  if (a === undefined) return [...b];
  return a.length === 0 || b.length === 0 ? [] : [...b, ...a];
}

function mergeMaps(a: ReadonlyMap<string, readonly ParamValue[]> | undefined, b: ReadonlyMap<string, readonly ParamValue[]> | undefined) {
  if (!a || !b) return a ?? b;
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, mergeValues(out.get(k), v));
  return out;
}

/**
 * The constraints of one pattern granted by several policies (reference `NewACL`): value
 * lists are appended per name (an empty list wins), required names unioned.
 */
export function mergeConstraints(a: ParamConstraints | undefined, b: ParamConstraints | undefined): ParamConstraints | undefined {
  if (!a || !b) return a ?? b;
  return { allowed: mergeMaps(a.allowed, b.allowed), denied: mergeMaps(a.denied, b.denied), required: [...new Set([...a.required, ...b.required])] };
}

/**
 * Whether `data` (a request's top-level body fields, or query parameters for a read)
 * satisfies `c` (reference `AllowOperation`, in its order: required, empty data, denied,
 * allowed).
 */
export function permits(c: ParamConstraints, data: Readonly<Obj>): boolean {
  for (const name of c.required) if (!Object.hasOwn(data, name.toLowerCase())) return false;
  const names = Object.keys(data);
  if (names.length === 0) return true;
  if (c.denied) {
    if (c.denied.has('*')) return false;
    for (const name of names) {
      const list = c.denied.get(name.toLowerCase());
      if (list && deniedValue(data[name], list)) return false;
    }
  }
  if (!c.allowed) return true;
  const anyName = c.allowed.has('*');
  if (anyName && c.allowed.size === 1) return true;
  for (const name of names) {
    const list = c.allowed.get(name.toLowerCase());
    if (list ? !allowedValue(data[name], list) : !anyName) return false;
  }
  return true;
}

/** Allowed: the value itself matches, or every element of a list / comma-separated string does. */
function allowedValue(v: unknown, list: readonly ParamValue[]): boolean {
  if (list.length === 0 || inList(v, list)) return true;
  const parts = elements(v);
  return parts !== undefined && parts.every((e) => inList(e, list));
}

/** Denied: the value itself matches, or any element of a list / comma-separated string does. */
function deniedValue(v: unknown, list: readonly ParamValue[]): boolean {
  if (list.length === 0 || inList(v, list)) return true;
  const parts = elements(v);
  return parts !== undefined && parts.some((e) => inList(e, list));
}

/**
 * The elements of a list value, or of a string read as a comma-separated list (the
 * reference assumes any string may be one). Cairn does not read `""` as the empty list
 * (the reference would, which admits an empty string for any allowed list).
 */
function elements(v: unknown): readonly unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && v.includes(',')) return v.split(',').map((s) => s.trim());
  return undefined;
}

function inList(v: unknown, list: readonly ParamValue[]): boolean {
  return list.some((el) => (typeof el === 'string' && typeof v === 'string' ? globMatch(el, v) : el === v));
}

/** The reference's `GlobbedStringsMatch`: a leading and/or trailing `*` on patterns of 2+ characters. */
function globMatch(pattern: string, v: string): boolean {
  if (pattern.length < 2) return pattern === v;
  const pre = pattern.startsWith('*');
  const suf = pattern.endsWith('*');
  if (pre && suf) return v.includes(pattern.slice(1, -1));
  if (pre) return v.endsWith(pattern.slice(1));
  if (suf) return v.startsWith(pattern.slice(0, -1));
  return v === pattern;
}
