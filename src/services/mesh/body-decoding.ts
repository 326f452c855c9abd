/**
 * How the discovery service decodes a declared request body (issue 25 scope 1; the
 * kernel's Go-struct decoder over the route's TypeBox declaration): fields by their exact
 * names, an absent or `null` field stays absent (an update keeps what it does not name),
 * and a value of the wrong kind is a 400 in the service's wording:
 * `<Field.Path> must be a string` (`a boolean`, `a number`, `a list of strings`,
 * `a duration string`, `a map of strings`, `an object`).
 *
 * One convention differs per route, declared by {@link meshBody}'s `anyCase`: the catalog,
 * agent and session bodies are read as Go's `encoding/json` reads them, field names in any
 * case (`node`, `serviceid`: python3-consul sends them so; the exact spelling wins over
 * another one, as {@link goJsonView} always read them), and a body that is not JSON answers
 * the reference's `Request decode failed: <why>` ({@link ANY_CASE_BODY_KIND}); the ACL
 * routes take exact names and name their kind (`Policy decoding failed: <why>`).
 *
 * @module
 */
import { Type, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { badRequest, type ApiContext } from '../../kernel/http/index.js';
import { Go, goStructOf } from '../../kernel/util/go-schema.js';
import { decodeGoStruct, type GoDecodeOptions, type GoKind, type GoMismatch } from '../../kernel/util/go-struct.js';
import { goJsonView } from '../../kernel/util/go-json.js';

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

/** The decoder options of a declared discovery-service body: exact names. */
const EXACT_NAMES: GoDecodeOptions = { typePrefix: '', exactNames: true, keepAbsent: true, error: badRequest, describe };
/** The decoder options of a body declared `anyCase`. */
const ANY_CASE: GoDecodeOptions = { ...EXACT_NAMES, exactNames: false, exactKeyFirst: true };

/** The option key that marks a body declared `anyCase`. */
const ANY_CASE_KEY = 'x-go-any-case';

/**
 * The operation `bodyKind` of a body declared `anyCase`: its not-JSON text is
 * `Request decode failed: <why>` (the reference's for catalog, agent and session bodies).
 */
export const ANY_CASE_BODY_KIND = 'Request decode';

/**
 * The service's text for a body that is not JSON: `Request decode failed: <why>` for
 * {@link ANY_CASE_BODY_KIND}, `<kind> decoding failed: <why>` for another kind (`Policy`),
 * `Failed to decode request body: <why>` without one.
 */
export function meshDecodeError(why: string, kind: string | undefined): string {
  if (kind === ANY_CASE_BODY_KIND) return `${kind} failed: ${why}`;
  return kind ? `${kind} decoding failed: ${why}` : `Failed to decode request body: ${why}`;
}

/**
 * Decodes a declared discovery body (the service's `decodeBody`): exact names, or any case
 * for a body declared `anyCase`. @throws 400 `<Field> must be <phrase>`.
 */
export function decodeMeshBody(schema: TObject, value: unknown): Record<string, unknown> {
  return decodeGoStruct(value, goStructOf(schema), (schema as unknown as Record<string, unknown>)[ANY_CASE_KEY] === true ? ANY_CASE : EXACT_NAMES);
}

/**
 * A discovery request body: {@link Go.struct} with every field optional, as
 * the decoder leaves an absent or `null` field absent (so the handler's
 * typed input says so, and the OpenAPI document requires none). `goType` names the body
 * (`Policy`); a field whose check has its own text is declared `Go.any()` and checked by the
 * handler. `anyCase`: names match in any case, the exact spelling first, each field read in
 * declaration order (so list them in the order the handler checked them); the operation then
 * declares `bodyKind: ANY_CASE_BODY_KIND`. Nested values declared `Go.any()`/`Go.object()`
 * keep their keys as sent: a handler reads them through {@link goJsonView}.
 */
export function meshBody<P extends Record<string, TSchema>>(
  goType: string,
  fields: P,
  o: { readonly anyCase?: boolean } = {},
): TObject<{ [K in keyof P]: TOptional<P[K]> }> {
  const optional = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, Type.Optional(field)]));
  const schema = Go.struct(goType, optional) as unknown as TObject<{ [K in keyof P]: TOptional<P[K]> }>;
  return o.anyCase ? Object.assign(schema, { [ANY_CASE_KEY]: true }) : schema;
}

/**
 * The decoded body of an operation declared `anyCase` (`{}` when empty), its nested values
 * (declared `Go.any()`/`Go.object()`) read in any case too, through {@link goJsonView}.
 * @throws the declared body's 400 (`<Field> must be …`, `Request decode failed: …`).
 */
export function anyCaseInput(ctx: Pick<ApiContext<unknown>, 'input'>): Readonly<Record<string, unknown>> {
  return goJsonView(ctx.input<Record<string, unknown>>() ?? {});
}
