/**
 * Decoding JSON values the way Go's `encoding/json` decodes them into a struct, with its
 * error texts (reference/sched.md §1.1): request bodies (request.ts reads them) and the
 * allocation, node, job and volume documents the domain modules decode. No request context:
 * domain code imports this, never the request layer.
 *
 * @module
 */
import { schedBadRequest } from './http.js';

/** A canonical UUID (any case), the reference's node, allocation and secret ID shape. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A body field's Go type: string, bool, int64, `map[string]string`, an object (struct/map), or anything (kept as is). */
export type GoKind = 'string' | 'bool' | 'int' | 'map' | 'object' | 'any';

const GO_TYPE_NAME: Readonly<Record<GoKind, string>> = { string: 'string', bool: 'bool', int: 'int64', map: 'map[string]string', object: 'struct', any: 'interface {}' };

/** A JSON value's kind as Go's decoder names it in its errors (`null`, `array`, `bool`, `number`, `string`, `object`). */
function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Decodes the JSON object `body` into `fields` the way Go's `encoding/json` decodes into a
 * struct (reference/sched.md §1.1): names match case-insensitively (an exact match is
 * preferred, a later key overwrites an earlier one), unknown fields are ignored, absent and
 * `null` fields take the zero value (`""`, `false`, `0`, `null`). `goType` is the full Go
 * type name (`structs.Node`). @throws 400 `json: cannot unmarshal <kind> into Go value of
 * type <goType>` for a non-object, `json: cannot unmarshal <kind> into Go struct field
 * <goType>.<Field> of type <type>` for a value of the wrong kind.
 */
export function decodeGoStruct(body: unknown, goType: string, fields: Readonly<Record<string, GoKind>>): Record<string, unknown> {
  if (!isObject(body)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(body)} into Go value of type ${goType}`);
  const names = Object.keys(fields);
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const kind = fields[name]!;
    out[name] = kind === 'string' ? '' : kind === 'bool' ? false : kind === 'int' ? 0 : null;
  }
  for (const [key, value] of Object.entries(body)) {
    const name = names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
    if (name === undefined || value === null || value === undefined) continue;
    out[name] = goValue(value, fields[name]!, `${goType}.${name}`);
  }
  return out;
}

function goValue(v: unknown, kind: GoKind, path: string): unknown {
  const mismatch = () => schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type ${GO_TYPE_NAME[kind]}`);
  switch (kind) {
    case 'string':
      if (typeof v !== 'string') throw mismatch();
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw mismatch();
      return v;
    case 'int':
      if (typeof v !== 'number') throw mismatch();
      if (!Number.isSafeInteger(v)) throw schedBadRequest(`json: cannot unmarshal number ${v} into Go struct field ${path} of type int64`);
      return v;
    case 'map':
      if (!isObject(v)) throw mismatch();
      for (const [k, s] of Object.entries(v)) {
        if (typeof s !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(s)} into Go struct field ${path}.${k} of type string`);
      }
      return { ...v };
    case 'object':
      if (!isObject(v)) throw mismatch();
      return v;
    case 'any':
      return v;
  }
}

/**
 * The value of field `name` of a JSON object as Go's `encoding/json` finds it: keys match in
 * any case and a later key overwrites an earlier one (reference/sched.md §1.1). Undefined when
 * absent, `null`, or `obj` is not an object.
 */
export function fieldOf(obj: unknown, name: string): unknown {
  if (!isObject(obj)) return undefined;
  const lower = name.toLowerCase();
  let found: unknown;
  for (const [key, value] of Object.entries(obj)) if (key.toLowerCase() === lower && value !== null) found = value;
  return found;
}

/**
 * A list of link objects (a token's `Roles: [{ID, Name}]`, a role's `Policies: [{Name}]`)
 * decoded as Go decodes `[]*structs.<linkType>`: absent (undefined) → `[]`, `null` elements
 * skipped, each of `keys` a string (absent → `""`), other fields ignored.
 * @throws 400 `json: cannot unmarshal <kind> into Go struct field <owner>.<field> of type <go type>`.
 */
export function decodeLinks<K extends string>(v: unknown, o: { owner: string; field: string; linkType: string; keys: readonly K[] }): Record<K, string>[] {
  const mismatch = (got: unknown, path: string, goType: string) =>
    schedBadRequest(`json: cannot unmarshal ${jsonKind(got)} into Go struct field ${o.owner}.${path} of type ${goType}`);
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw mismatch(v, o.field, `[]*structs.${o.linkType}`);
  return v.flatMap((item) => {
    if (item === null) return [];
    if (!isObject(item)) throw mismatch(item, o.field, `structs.${o.linkType}`);
    const link = {} as Record<K, string>;
    for (const key of o.keys) {
      const value = fieldOf(item, key) ?? '';
      if (typeof value !== 'string') throw mismatch(value, `${o.field}.${key}`, 'string');
      link[key] = value;
    }
    return [link];
  });
}
