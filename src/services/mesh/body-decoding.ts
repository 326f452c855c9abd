/**
 * How the discovery service decodes a declared request body (issue 25 scope 1; the
 * kernel's Go-struct decoder over the route's TypeBox declaration): fields by their exact
 * names, an absent or `null` field stays absent (an update keeps what it does not name),
 * and a value of the wrong kind is a 400 in the service's wording:
 * `<Field.Path> must be a string` (`a boolean`, `a number`, `a list of strings`,
 * `a duration string`, `a map of strings`, `an object`).
 *
 * @module
 */
import { Type, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { badRequest } from '../../kernel/http/index.js';
import { Go } from '../../kernel/util/go-schema.js';
import type { GoDecodeOptions, GoKind, GoMismatch } from '../../kernel/util/go-struct.js';

const PHRASE: Readonly<Record<Exclude<GoKind, object>, string>> = {
  string: 'a string',
  bool: 'a boolean',
  int: 'a number',
  strings: 'a list of strings',
  duration: 'a duration string',
  map: 'a map of strings',
  'lenient-map': 'a map of strings',
  object: 'an object',
  any: 'a JSON value',
};

/** The text of a value of the wrong kind: `<path> must be <phrase>`. */
function describe(m: GoMismatch): string {
  return `${m.path.join('.')} must be ${typeof m.want === 'object' ? 'an object' : PHRASE[m.want]}`;
}

/** The decoder options of every declared discovery-service body. */
export const MESH_BODY_DECODING: GoDecodeOptions = { typePrefix: '', exactNames: true, keepAbsent: true, error: badRequest, describe };

/**
 * A discovery request body: {@link Go.struct} with every field optional, as
 * {@link MESH_BODY_DECODING} leaves an absent or `null` field absent (so the handler's
 * typed input says so, and the OpenAPI document requires none). `goType` names the body
 * (`Policy`); a field whose check has its own text is declared `Go.any()` and checked by the
 * handler.
 */
export function meshBody<P extends Record<string, TSchema>>(goType: string, fields: P): TObject<{ [K in keyof P]: TOptional<P[K]> }> {
  const optional = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, Type.Optional(field)]));
  return Go.struct(goType, optional) as unknown as TObject<{ [K in keyof P]: TOptional<P[K]> }>;
}
