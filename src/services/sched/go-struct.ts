/**
 * Decoding JSON values the way Go's `encoding/json` decodes them into a struct, with its
 * error texts (reference/sched.md §1.1), on the kernel's decoder (kernel/util/go-struct.ts):
 * the structs nested in declared request bodies whose texts name their own Go type (a node,
 * a job, a volume, a node event) and the allocation, node, job and volume documents the
 * domain modules decode. No request context: domain code imports this, never the
 * request layer.
 *
 * @module
 */
import { decodeGoStruct as kernelDecodeGoStruct, goField, jsonKind, type GoKind as KernelGoKind } from '../../kernel/util/go-struct.js';
import { isObject } from '../../kernel/util/is-object.js';
import { schedBadRequest } from './http.js';

/** A canonical UUID (any case), the reference's node, allocation and secret ID shape. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A body field's Go type (the kernel's {@link GoKind}). */
export type GoKind = KernelGoKind;

/**
 * Decodes the JSON object `body` into `fields` the way Go's `encoding/json` decodes into a
 * struct (reference/sched.md §1.1, the kernel's {@link kernelDecodeGoStruct}). `goType` is
 * the full Go type name (`structs.Node`). @throws 400 `json: cannot unmarshal <kind> into Go
 * value of type <goType>` for a non-object, `json: cannot unmarshal <kind> into Go struct
 * field <goType>.<Field> of type <type>` for a value of the wrong kind.
 */
export function decodeGoStruct(body: unknown, goType: string, fields: Readonly<Record<string, GoKind>>): Record<string, unknown> {
  return kernelDecodeGoStruct(body, { goType, fields }, { typePrefix: '', error: schedBadRequest });
}

/** The value of field `name` of a JSON object as Go's decoder finds it (the kernel's {@link goField}). */
export const fieldOf = goField;

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
