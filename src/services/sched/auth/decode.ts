/**
 * Request-body decoding of the scheduler's ACL objects the way Go's `encoding/json`
 * decodes into the reference's structs (reference/sched.md §1.1), by the kernel's
 * {@link decodeGoStruct}: errors name `structs.<Type>` and are 400s with the decoder's
 * text. Durations take a Go duration string (`""` is 0) or a number of nanoseconds (§2.2).
 *
 * @module
 */
import { decodeGoStruct, type GoStruct } from '../../../kernel/util/go-struct.js';
import { invalidRequest } from './errors.js';

/** A Go struct of the reference's `structs` package: its type name and fields. */
export type StructSchema = GoStruct;

/**
 * Decodes the JSON object `body` into `schema`'s fields, every field present (zero when
 * absent).
 * @throws 400 `json: cannot unmarshal <kind> into Go value of type structs.<Type>` for a non-object body;
 *   `json: cannot unmarshal <kind> into Go struct field <Type>.<path> of type <go type>` for a wrong kind;
 *   `time: invalid duration "x"` (and Go's other duration texts) for a bad duration string.
 */
export function decodeStruct(body: unknown, schema: StructSchema): Record<string, unknown> {
  return decodeGoStruct(body, schema, { typePrefix: 'structs.', error: invalidRequest });
}
