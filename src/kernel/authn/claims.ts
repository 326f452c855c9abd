/**
 * Claims → identity for `jwt` and `oidc` auth methods (reference/mesh.md §3.5, §4.4;
 * reference/sched.md §2.4): mapped claims become `value.<key>` (strings) and `list.<key>`
 * (string lists). Both are selectable by binding-rule selectors; only `value.<key>` is
 * projected into bind names.
 *
 * @module
 */
import { AuthnError } from './errors.js';

/**
 * An authenticated identity, ready for binding ({@link bindIdentity}):
 * - `selectable`: the data binding-rule selectors are evaluated against, nested by field
 *   (`{ value: { sub: 'alice' }, list: { groups: ['admins'] } }` makes `value.sub` and
 *   `"admins" in list.groups` work); only claims actually present appear;
 * - `projected`: flat `${var}` values for bind names (`'value.sub' → 'alice'`).
 */
export interface Identity {
  readonly selectable: Record<string, unknown>;
  readonly projected: Record<string, string>;
}

/**
 * Maps `claims` through `claimMappings` and `listClaimMappings` (claim name or JSON Pointer
 * → key), per reference/mesh.md §4.4: values are stringified (string as is, booleans
 * `true`/`false`, numbers truncated to integer text); a list claim also accepts a scalar
 * and drops empty strings; absent or null claims are skipped. Every `value.<key>` of
 * `claimMappings` is pre-populated with `""` in `projected` (§3.5).
 *
 * @throws {AuthnError} kind `claims`: `error converting claim '<c>' to string from unknown type <T>`
 *   or `"<c>" list claim could not be converted to string list`.
 */
export function identityFromClaims(
  claims: Record<string, unknown>,
  claimMappings: Readonly<Record<string, string>> = {},
  listClaimMappings: Readonly<Record<string, string>> = {},
): Identity {
  const values: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const projected: Record<string, string> = {};
  for (const key of Object.values(claimMappings)) projected[`value.${key}`] = '';
  for (const [claim, key] of Object.entries(claimMappings)) {
    const raw = getClaim(claims, claim);
    if (raw === undefined || raw === null) continue;
    const s = stringify(raw);
    if (s === undefined) {
      throw new AuthnError('claims', `error converting claim '${claim}' to string from unknown type ${goType(raw)}`);
    }
    values[key] = s;
    projected[`value.${key}`] = s;
  }
  for (const [claim, key] of Object.entries(listClaimMappings)) {
    const raw = getClaim(claims, claim);
    if (raw === undefined || raw === null) continue;
    const items = Array.isArray(raw) ? raw : stringify(raw) !== undefined ? [raw] : undefined;
    if (!items) throw new AuthnError('claims', `"${claim}" list claim could not be converted to string list`);
    const list: string[] = [];
    for (const item of items) {
      const s = stringify(item);
      if (s === undefined) {
        throw new AuthnError('claims', `error converting claim '${claim}' to string from unknown type ${goType(item)}`);
      }
      if (s !== '') list.push(s);
    }
    lists[key] = list;
  }
  return { selectable: { value: values, list: lists }, projected };
}

/** A top-level claim, or the value at a JSON Pointer (RFC 6901) when `claim` starts with `/`; undefined when absent. */
export function getClaim(claims: Record<string, unknown>, claim: string): unknown {
  if (!claim.startsWith('/')) return Object.hasOwn(claims, claim) ? claims[claim] : undefined;
  let cur: unknown = claims;
  for (const token of claim.slice(1).split('/')) {
    const part = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(part)) return undefined;
      cur = cur[Number(part)];
    } else if (typeof cur === 'object' && cur !== null && Object.hasOwn(cur, part)) {
      cur = (cur as Record<string, unknown>)[part];
    } else {
      return undefined;
    }
  }
  return cur;
}

function stringify(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? String(Math.trunc(v)) : undefined;
    default:
      return undefined;
  }
}

/** How Go's `%T` names a decoded JSON value the reference could not convert. */
function goType(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object' && v !== null) return 'map[string]interface {}';
  return typeof v;
}
