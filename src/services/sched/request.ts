/**
 * Reading a scheduler request the way the reference reads it: a declared JSON body's input
 * (reference/sched.md §1.1; the kernel decodes it, body.ts) and the query parameters several
 * routes share (`?prefix=` with the UUID rule of §1.9, Go-bool flags). Nested structs whose
 * texts name their own Go type are decoded with go-struct.ts (domain code uses it too).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { ApiQuery } from '../../kernel/http/index.js';
import type { Ctx } from './deps.js';
import { parseGoBool } from '../../kernel/util/go-bool.js';
import { schedBadRequest } from './http.js';

// ---------------------------------------------------------------------------------------
// Body

/**
 * A declared body's decoded input (the handler's `input`, `ctx.input()`): the kernel decodes
 * only a non-empty body. @throws 400 `Request body is empty` (reference/sched.md §1.1) when it was empty.
 */
export function requireInput<T>(input: T | undefined): T {
  if (input === undefined) throw schedBadRequest('Request body is empty');
  return input;
}

// ---------------------------------------------------------------------------------------
// Query

/** The `prefix` query parameter of the lists that take it ({@link queryPrefix}, {@link queryUuidPrefix}). */
export const PREFIX_QUERY: ApiQuery = { prefix: Type.String({ description: 'Only the objects whose ID (or name) starts with this.' }) };

/** The paging and filtering query parameters of the paged lists (reference/sched.md §1.7, paginate.ts). */
export const PAGED_QUERY: ApiQuery = {
  per_page: Type.Integer({ minimum: 0, description: 'Page size: at most this many objects, with `X-Sched-NextToken` naming the next page.' }),
  next_token: Type.String({ description: 'The `X-Sched-NextToken` of the previous page.' }),
  filter: Type.String({ description: 'A boolean expression (go-bexpr) over the objects’ fields.' }),
};

/** `?prefix=` as given; `''` when absent. */
export function queryPrefix(ctx: Ctx): string {
  return ctx.query.get('prefix') ?? '';
}

/**
 * `?prefix=` under the reference's UUID prefix rule (reference/sched.md §1.9, go-memdb
 * `UUIDFieldIndex`), in lower case; `''` when absent. The node, allocation and token lists.
 * @throws 400 (the reference: 500) `index error: Invalid UUID length. UUID have 36
 * characters; got <n>`, `index error: UUID should have maximum of 4 "-"; got <n>`, `index
 * error: Input (without hyphens) must be even length`, `index error: Invalid UUID:
 * encoding/hex: invalid byte: U+0067 'g'`.
 */
export function queryUuidPrefix(ctx: Ctx): string {
  const prefix = queryPrefix(ctx);
  const fail = (why: string) => schedBadRequest(`index error: ${why}`);
  if (prefix.length > 36) throw fail(`Invalid UUID length. UUID have 36 characters; got ${prefix.length}`);
  const hyphens = prefix.split('-').length - 1;
  if (hyphens > 4) throw fail(`UUID should have maximum of 4 "-"; got ${hyphens}`);
  const hex = prefix.replaceAll('-', '');
  if (hex.length % 2 !== 0) throw fail('Input (without hyphens) must be even length');
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) throw fail(`Invalid UUID: encoding/hex: invalid byte: U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${bad[0]}'`);
  return prefix.toLowerCase();
}

/** `?name=` as Go's ParseBool, the way the reference's `parseBool` reads it; false when absent. @throws 400 naming the parameter. */
export function queryBool(ctx: Ctx, name: string): boolean {
  const raw = ctx.query.get(name);
  if (raw === null) return false;
  const v = parseGoBool(raw);
  if (v === undefined) throw schedBadRequest(`Failed to parse value of "${name}" (${raw}) as a bool: strconv.ParseBool: parsing "${raw}": invalid syntax`);
  return v;
}

/**
 * `?per_page=` (reference/sched.md §1.7): 0 when absent (no paging) unless `required`.
 * @throws 400 ``Expect a number for `per_page` query string parameter`` (the reference's text);
 *   400 `per_page must not be negative`; with `required`, 400 `missing per_page: this endpoint
 *   needs a page size` when absent or 0 (spec 002 "Limits": required on `/volumes/external`
 *   and `GET /volumes/snapshot`).
 */
export function queryPerPage(ctx: Ctx, required = false): number {
  const raw = ctx.query.get('per_page');
  if (raw === null || raw === '') {
    if (required) throw schedBadRequest('missing per_page: this endpoint needs a page size');
    return 0;
  }
  if (!/^[+-]?\d+$/.test(raw) || Math.abs(Number(raw)) > 2 ** 31 - 1) throw schedBadRequest('Expect a number for `per_page` query string parameter');
  const n = Number(raw);
  if (n < 0) throw schedBadRequest('per_page must not be negative');
  if (n === 0 && required) throw schedBadRequest('missing per_page: this endpoint needs a page size');
  return n;
}

/**
 * A `node_id` / `plugin_id` prefix under spec 002's rule ("even number of hex characters",
 * reference/README.md rule 1): a value made only of hex characters (for `uuid`, hyphens
 * aside, as node IDs are UUIDs) must have an even length. A plugin ID with other characters
 * (`hostpath`) is a name and passes as given; a `uuid` value with other characters is refused.
 * `''` when absent. @throws 400 `invalid <name> "<v>": a prefix of hex characters must have an
 * even length`; for `uuid`, 400 `invalid <name> "<v>": must be hex characters of a node ID`.
 */
export function queryHexPrefix(ctx: Ctx, name: string, o: { uuid?: boolean } = {}): string {
  const value = ctx.query.get(name) ?? '';
  const hex = o.uuid ? value.replaceAll('-', '') : value;
  if (!/^[0-9a-fA-F]*$/.test(hex)) {
    if (o.uuid) throw schedBadRequest(`invalid ${name} "${value}": must be hex characters of a node ID`);
    return value;
  }
  if (hex.length % 2 !== 0) throw schedBadRequest(`invalid ${name} "${value}": a prefix of hex characters must have an even length`);
  return value;
}

/** `?name=`, which must be given and not empty. @throws 400 `missing <name>: <why>`. */
export function requireQuery(ctx: Ctx, name: string, why: string): string {
  const v = ctx.query.get(name);
  if (v === null || v === '') throw schedBadRequest(`missing ${name}: ${why}`);
  return v;
}
