/**
 * Request bodies declared in TypeBox for the services whose reference products decode them
 * into Go structs (issue 25 scope 1; reference/mesh.md §0, reference/sched.md §1.1): each
 * builder returns a plain TypeBox schema (so the route's OpenAPI document shows it) marked
 * with the Go kind the decoder (go-struct.ts) reads, and {@link goStructOf} turns a
 * declared struct into the decoder's {@link GoStruct}, once per schema.
 *
 * ```ts
 * const PolicyBody = Go.struct('ACLPolicy', { Name: Go.string(), Datacenters: Go.strings() });
 * ```
 *
 * @module
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { GoKind, GoStruct } from './go-struct.js';

/** The option key that carries a schema's Go kind. */
const GO_KIND = 'x-go-kind';
/** The option key that carries a struct's Go type name. */
const GO_TYPE = 'x-go-type';
/** The option key that carries a struct's type prefix. */
const GO_PREFIX = 'x-go-type-prefix';

const kind = <S extends TSchema>(schema: S, k: Exclude<GoKind, GoStruct>): S => Object.assign(schema, { [GO_KIND]: k });

/**
 * The field types of a declared Go struct, each a TypeBox schema: `string`, `bool`, `int`
 * (int64, a safe integer), `strings` (`[]string`), `duration` (a Go duration string, `""`,
 * or nanoseconds), `map` / `lenientMap` (`map[string]string`: see {@link GoKind}), `object`
 * (a struct field kept as sent), `any`, and a nested `struct`.
 */
export const Go = {
  string: (description?: string) => kind(Type.String({ description }), 'string'),
  bool: (description?: string) => kind(Type.Boolean({ description }), 'bool'),
  int: (description?: string) => kind(Type.Integer({ description }), 'int'),
  strings: (description?: string) => kind(Type.Array(Type.String(), { description }), 'strings'),
  /** Decoded to nanoseconds (a number), hence its static type. */
  duration: (description?: string) =>
    kind(Type.Unsafe<number>(Type.Union([Type.String(), Type.Integer()], { description: description ?? 'a Go duration ("10s") or nanoseconds' })), 'duration'),
  map: (description?: string) => kind(Type.Record(Type.String(), Type.String(), { description }), 'map'),
  lenientMap: (description?: string) => kind(Type.Record(Type.String(), Type.String(), { description }), 'lenient-map'),
  object: (description?: string) => kind(Type.Object({}, { additionalProperties: true, description }), 'object'),
  any: (description?: string) => kind(Type.Unknown({ description }), 'any'),
  /**
   * A struct named `goType` (the reference's type name, e.g. `ACLPolicy`) with `fields` in
   * declaration order; `typePrefix` is the package Go prints before it in a whole-value error
   * (`structs.`: go-struct.ts `GoDecodeOptions.typePrefix`).
   */
  struct: <P extends Record<string, TSchema>>(goType: string, fields: P, o: { readonly description?: string; readonly typePrefix?: string } = {}): TObject<P> =>
    Object.assign(Type.Object(fields, { additionalProperties: true, description: o.description }), {
      [GO_TYPE]: goType,
      ...(o.typePrefix !== undefined && { [GO_PREFIX]: o.typePrefix }),
    }),
};

const structs = new WeakMap<TObject, GoStruct>();

/**
 * The decoder's view of a struct declared with {@link Go.struct}, built once per schema.
 * @throws Error (a programming error, at start-up) when `schema` or one of its fields was not
 *   built with {@link Go}, naming the field.
 */
export function goStructOf(schema: TObject): GoStruct {
  const known = structs.get(schema);
  if (known) return known;
  const goType = (schema as unknown as Record<string, unknown>)[GO_TYPE];
  if (typeof goType !== 'string') throw new Error('a Go body must be declared with Go.struct');
  const fields: Record<string, GoKind> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const own = field as unknown as Record<string, unknown>;
    if (typeof own[GO_TYPE] === 'string') fields[name] = goStructOf(field as TObject);
    else if (typeof own[GO_KIND] === 'string') fields[name] = own[GO_KIND] as GoKind;
    else throw new Error(`${goType}.${name}: a field of a Go body must be declared with Go.*`);
  }
  const prefix = (schema as unknown as Record<string, unknown>)[GO_PREFIX];
  const struct: GoStruct = { goType, fields, ...(typeof prefix === 'string' && { typePrefix: prefix }) };
  structs.set(schema, struct);
  return struct;
}
