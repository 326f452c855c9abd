/**
 * How the scheduler decodes a route's declared request body (issue 25 scope 1; its
 * `decodeBody` convention, http.ts): Go's `encoding/json` decoding into the declared struct,
 * with the decoder's texts (reference/sched.md §1.1; kernel/util/go-struct.ts): field names
 * in any case, unknown fields ignored, absent and `null` fields their zero value (`""`,
 * `false`, `0`, `null`).
 *
 * @module
 */
import type { TObject } from '@sinclair/typebox';
import { badRequest } from '../../kernel/http/index.js';
import { goStructOf } from '../../kernel/util/go-schema.js';
import { decodeGoStruct } from '../../kernel/util/go-struct.js';

/** The declared bodies whose JSON `null` decodes as `{}` ({@link nullAsEmpty}). */
const NULL_AS_EMPTY = new WeakSet<TObject>();

/**
 * Marks the declared body `schema` so that a JSON `null` body decodes as `{}` (every field
 * its zero value), as Go decodes `null` into a struct: the auth-method, binding-rule and
 * login bodies, the allocation restart and signal bodies, the job evaluate body. Other
 * bodies answer `null` with 400 `json: cannot unmarshal null into Go value of type <Type>`,
 * as they did before their bodies were declared. Returns `schema`.
 */
export function nullAsEmpty<S extends TObject>(schema: S): S {
  NULL_AS_EMPTY.add(schema);
  return schema;
}

/**
 * Decodes the JSON value `value` into the struct declared by `schema` (built with the kernel's
 * `Go.struct`), every field present. @throws 400 `json: cannot unmarshal <kind> into Go value
 * of type <prefix><Type>` for a body that is not an object; `json: cannot unmarshal <kind>
 * into Go struct field <Type>.<Field> of type <go type>` for a field of the wrong kind; Go's
 * duration texts (`time: invalid duration "x"`).
 */
export function decodeSchedBody(schema: TObject, value: unknown): Record<string, unknown> {
  return decodeGoStruct(value === null && NULL_AS_EMPTY.has(schema) ? {} : value, goStructOf(schema), { typePrefix: '', error: badRequest });
}
