/**
 * Request-body decoding the way Go's `encoding/json` decodes into the reference's structs
 * (reference/sched.md §1.1): field names match case-insensitively (an exact match wins,
 * a later key overwrites an earlier one), unknown fields are ignored, `null` and absent
 * fields leave the zero value, and a value of the wrong JSON kind is a 400 with the Go
 * decoder's text. Durations take a Go duration string (`""` is 0) or a number of nanoseconds (§2.2).
 *
 * @module
 */
import { jsonGoDurationNs } from '../../../kernel/util/go-duration.js';
import { invalidRequest } from './errors.js';
import { isObject } from '../../../kernel/util/is-object.js';

/** A field's Go type: string, bool, `[]string`, `map[string]string`, `time.Duration`, or a nested struct pointer. */
export type FieldKind = 'string' | 'bool' | 'strings' | 'map' | 'duration' | StructSchema;

/** A Go struct: its type name (for error texts) and its fields in declaration order. */
export interface StructSchema {
  readonly goType: string;
  readonly fields: Readonly<Record<string, FieldKind>>;
}

/** Decoded values: `""`, `false`, `null` (nil slice, map or pointer) and `0` are the zero values. */
export type Decoded = Record<string, unknown>;

const GO_TYPE: Readonly<Record<Exclude<FieldKind, StructSchema>, string>> = {
  string: 'string', bool: 'bool', strings: '[]string', map: 'map[string]string', duration: 'time.Duration',
};

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}

/** The zero value of `kind`, as Go leaves it for an absent field. */
function zero(kind: FieldKind): unknown {
  return kind === 'string' ? '' : kind === 'bool' ? false : kind === 'duration' ? 0 : null;
}

/**
 * Decodes the JSON object `body` into `schema`'s fields, every field present (zero when
 * absent).
 * @throws 400 `json: cannot unmarshal <kind> into Go value of type structs.<Type>` for a non-object body;
 *   `json: cannot unmarshal <kind> into Go struct field <Type>.<path> of type <go type>` for a wrong kind;
 *   `time: invalid duration "x"` (and Go's other duration texts) for a bad duration string.
 */
export function decodeStruct(body: unknown, schema: StructSchema): Decoded {
  if (!isObject(body)) throw invalidRequest(`json: cannot unmarshal ${jsonKind(body)} into Go value of type structs.${schema.goType}`);
  return decodeFields(body, schema, schema.goType, []);
}

function decodeFields(obj: Record<string, unknown>, schema: StructSchema, root: string, path: string[]): Decoded {
  const out: Decoded = {};
  const names = Object.keys(schema.fields);
  for (const name of names) out[name] = zero(schema.fields[name]);
  for (const [key, value] of Object.entries(obj)) {
    const lower = key.toLowerCase();
    const name = names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === lower);
    if (name === undefined || value === null || value === undefined) continue;
    out[name] = decodeValue(value, schema.fields[name], root, [...path, name]);
  }
  return out;
}

function decodeValue(v: unknown, kind: FieldKind, root: string, path: string[]): unknown {
  const mismatch = (got: unknown, goType: string) =>
    invalidRequest(`json: cannot unmarshal ${jsonKind(got)} into Go struct field ${root}.${path.join('.')} of type ${goType}`);
  if (typeof kind === 'object') {
    if (!isObject(v)) throw mismatch(v, `structs.${kind.goType}`);
    return decodeFields(v, kind, root, path);
  }
  switch (kind) {
    case 'string':
    case 'bool':
      if (typeof v !== (kind === 'bool' ? 'boolean' : 'string')) throw mismatch(v, GO_TYPE[kind]);
      return v;
    case 'strings':
      if (!Array.isArray(v)) throw mismatch(v, '[]string');
      return v.map((s) => {
        if (s !== null && typeof s !== 'string') throw mismatch(s, 'string');
        return s ?? '';
      });
    case 'map':
      if (!isObject(v)) throw mismatch(v, 'map[string]string');
      return Object.fromEntries(
        Object.entries(v).map(([k, s]) => {
          if (s !== null && typeof s !== 'string') throw mismatch(s, 'string');
          return [k, s ?? ''];
        }),
      );
    case 'duration': {
      // The reference's custom unmarshaller: a string goes through time.ParseDuration, a number is nanoseconds.
      if (typeof v !== 'number' && typeof v !== 'string') throw mismatch(v, GO_TYPE.duration);
      if (v === '') return 0; // what the reference writes for 0, so a read value can be sent back
      const ns = jsonGoDurationNs(v);
      if (typeof ns === 'string') throw invalidRequest(typeof v === 'number' ? `${root}.${path.join('.')}: ${ns}` : ns);
      return ns;
    }
  }
}
