/**
 * Request-body decoding the way Go's `encoding/json` decodes into a struct, with the
 * decoder's error texts, for the services whose reference products answer with them
 * (reference/sched.md §1.1). Field names match case-insensitively (an exact name wins;
 * a later key overwrites an earlier one), unknown fields are ignored, absent and `null`
 * fields keep the zero value. {@link goJsonView} is the lazy alternative for bodies read
 * field by field.
 *
 * @module
 */
import { jsonGoDurationNs } from './go-duration.js';
import { isObject } from './is-object.js';

/**
 * A field's Go type: `string`, `bool`, `int64`, `[]string`, `time.Duration` (a Go duration
 * string, `""` for 0, or nanoseconds), a struct field kept as sent (`object`), anything
 * (`any`), a nested struct, or one of two `map[string]string` readings: `map` refuses a
 * non-string value, `null` included, and names its key (`<field>.<key>`), as the
 * scheduler's node and job bodies answer; `lenient-map` reads a `null` value as `""` (Go's
 * rule) and names the map, as its ACL objects answer.
 */
export type GoKind = 'string' | 'bool' | 'int' | 'strings' | 'duration' | 'object' | 'any' | 'map' | 'lenient-map' | GoStruct;

/** A Go struct: its type name (`ACLToken`) and its fields in declaration order. */
export interface GoStruct {
  readonly goType: string;
  readonly fields: Readonly<Record<string, GoKind>>;
  /** This struct's {@link GoDecodeOptions.typePrefix}, overriding the options' (a declared body names its own). */
  readonly typePrefix?: string;
}

/** How errors are worded and raised. */
export interface GoDecodeOptions {
  /**
   * The package printed before a struct's type name where Go prints it (`structs.` gives
   * `Go value of type structs.ACLToken`, `of type structs.JobACL`; a field path starts
   * with the bare name: `Go struct field ACLToken.Name`). `''` when `goType` carries it.
   */
  readonly typePrefix: string;
  /** The error a caller answers with (a 400 of its service). */
  readonly error: (message: string) => Error;
  /**
   * True: a field matches its exact name only (the discovery service's reading); default:
   * Go's, any case, the exact name first.
   */
  readonly exactNames?: boolean;
  /**
   * True (with any-case names): each field is read in declaration order from the key
   * spelled exactly as it when the body has one (even `null`), else from the last key equal
   * to it ignoring case ({@link goJsonView}'s reading, which the discovery service's catalog,
   * agent and session bodies have always had; Go's decoder takes the later key instead), so
   * the first bad field named is the first the declaration lists. Default: the body's keys
   * in order, a later one overwriting.
   */
  readonly exactKeyFirst?: boolean;
  /** True: an absent or `null` field stays absent instead of taking its zero value. */
  readonly keepAbsent?: boolean;
  /** Words a value of the wrong kind; default Go's `json: cannot unmarshal …` text. */
  readonly describe?: (m: GoMismatch) => string;
}

/** A value of the wrong kind met by the decoder, for {@link GoDecodeOptions.describe}. */
export interface GoMismatch {
  /** Field names from the body's root to the field, e.g. `['Check', 'Interval']`. */
  readonly path: readonly string[];
  /** The field's declared kind. */
  readonly want: GoKind;
  /** The value that came (the element, for a bad element of a list or map). */
  readonly got: unknown;
  /** True: `got` is an element of the field's list or map, not the field itself. */
  readonly element: boolean;
}

const GO_TYPE: Readonly<Record<Exclude<GoKind, GoStruct>, string>> = {
  string: 'string',
  bool: 'bool',
  int: 'int64',
  strings: '[]string',
  duration: 'time.Duration',
  object: 'struct',
  any: 'interface {}',
  map: 'map[string]string',
  'lenient-map': 'map[string]string',
};

/** A JSON value's kind as Go's decoder names it in its errors (`null`, `array`, `bool`, `number`, `string`, `object`). */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * The value of field `name` of a JSON object as Go's decoder finds it: keys match in any
 * case and a later key overwrites an earlier one. Undefined when absent, `null`, or `obj`
 * is not an object.
 */
export function goField(obj: unknown, name: string): unknown {
  if (!isObject(obj)) return undefined;
  const lower = name.toLowerCase();
  let found: unknown;
  for (const [key, value] of Object.entries(obj)) if (key.toLowerCase() === lower && value !== null) found = value;
  return found;
}

/**
 * Decodes the JSON object `body` into `schema`'s fields, every field present (`""`,
 * `false`, `0` or `null` when absent).
 * @throws `o.error` with `json: cannot unmarshal <kind> into Go value of type <prefix><Type>`
 *   for a non-object body; `json: cannot unmarshal <kind> into Go struct field
 *   <Type>.<path> of type <go type>` for a value of the wrong kind (`number <n>` for an
 *   int out of range); Go's duration texts (`time: invalid duration "x"`) for a bad duration.
 */
export function decodeGoStruct(body: unknown, schema: GoStruct, o: GoDecodeOptions): Record<string, unknown> {
  const opts = schema.typePrefix === undefined ? o : { ...o, typePrefix: schema.typePrefix };
  if (!isObject(body)) throw opts.error(`json: cannot unmarshal ${jsonKind(body)} into Go value of type ${opts.typePrefix}${schema.goType}`);
  return decodeFields(body, schema, { root: schema.goType, o: opts, path: [] });
}

/** Where a value being decoded sits: the root struct's Go type, the decoder's options, the field path to it. */
interface DecodePosition {
  readonly root: string;
  readonly o: GoDecodeOptions;
  readonly path: readonly string[];
}

function decodeFields(obj: Record<string, unknown>, schema: GoStruct, { root, o, path }: DecodePosition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = Object.keys(schema.fields);
  if (!o.keepAbsent) for (const name of names) out[name] = zero(schema.fields[name]!);
  if (o.exactKeyFirst && !o.exactNames) {
    for (const name of names) {
      const value = viewField(obj, name);
      if (value !== null && value !== undefined) out[name] = decodeValue(value, schema.fields[name]!, { root, o, path: [...path, name] });
    }
    return out;
  }
  for (const [key, value] of Object.entries(obj)) {
    const lower = key.toLowerCase();
    const name = names.find((n) => n === key) ?? (o.exactNames ? undefined : names.find((n) => n.toLowerCase() === lower));
    if (name === undefined || value === null || value === undefined) continue;
    out[name] = decodeValue(value, schema.fields[name]!, { root, o, path: [...path, name] });
  }
  return out;
}

/** Field `name` of `obj` as {@link GoDecodeOptions.exactKeyFirst} reads it: the exact key, else the last one equal to it ignoring case. */
function viewField(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  let found: unknown;
  for (const [key, value] of Object.entries(obj)) if (key.toLowerCase() === lower) found = value;
  return found;
}

/** The zero value Go leaves for an absent field. */
function zero(kind: GoKind): unknown {
  return kind === 'string' ? '' : kind === 'bool' ? false : kind === 'int' || kind === 'duration' ? 0 : null;
}

function decodeValue(v: unknown, kind: GoKind, { root, o, path }: DecodePosition): unknown {
  const at = `${root}.${path.join('.')}`;
  const mismatch = (got: unknown, goType: string, where = at) =>
    o.error(
      o.describe
        ? o.describe({ path, want: kind, got, element: where !== at || (goType === 'string' && kind !== 'string') })
        : `json: cannot unmarshal ${jsonKind(got)} into Go struct field ${where} of type ${goType}`,
    );
  if (typeof kind === 'object') {
    if (!isObject(v)) throw mismatch(v, `${o.typePrefix}${kind.goType}`);
    return decodeFields(v, kind, { root, o, path });
  }
  switch (kind) {
    case 'string':
    case 'bool':
      if (typeof v !== (kind === 'bool' ? 'boolean' : 'string')) throw mismatch(v, GO_TYPE[kind]);
      return v;
    case 'int':
      if (typeof v !== 'number') throw mismatch(v, GO_TYPE.int);
      if (!Number.isSafeInteger(v))
        throw o.describe ? mismatch(v, GO_TYPE.int) : o.error(`json: cannot unmarshal number ${v} into Go struct field ${at} of type int64`);
      return v;
    case 'strings':
      if (!Array.isArray(v)) throw mismatch(v, GO_TYPE.strings);
      return v.map((s) => {
        if (s !== null && typeof s !== 'string') throw mismatch(s, 'string');
        return s ?? '';
      });
    case 'map':
      if (!isObject(v)) throw mismatch(v, GO_TYPE.map);
      for (const [k, s] of Object.entries(v)) if (typeof s !== 'string') throw mismatch(s, 'string', `${at}.${k}`);
      return { ...v };
    case 'lenient-map':
      if (!isObject(v)) throw mismatch(v, GO_TYPE.map);
      return Object.fromEntries(
        Object.entries(v).map(([k, s]) => {
          if (s !== null && typeof s !== 'string') throw mismatch(s, 'string');
          return [k, s ?? ''];
        }),
      );
    case 'object':
      if (!isObject(v)) throw mismatch(v, GO_TYPE.object);
      return v;
    case 'any':
      return v;
    case 'duration': {
      // The reference's custom unmarshaller: a string goes through time.ParseDuration, a number is nanoseconds.
      if (typeof v !== 'number' && typeof v !== 'string') throw mismatch(v, GO_TYPE.duration);
      if (v === '') return 0; // what the reference writes for 0, so a read value can be sent back
      const ns = jsonGoDurationNs(v);
      if (typeof ns === 'string') throw o.describe ? mismatch(v, GO_TYPE.duration) : o.error(typeof v === 'number' ? `${at}: ${ns}` : ns);
      return ns;
    }
    default: {
      const never: never = kind;
      return never;
    }
  }
}
