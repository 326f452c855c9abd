/**
 * Bound claims and bound subject: the per-role claim constraints of the secrets service's
 * `jwt`/`oidc` method (reference: vault-plugin-auth-jwt `bound_claims`, `bound_claims_type`,
 * `bound_subject`). A bound claim names a claim (or a JSON Pointer) and the values it may
 * have; a list claim matches when any of its items does. With type `glob`, `*` in an
 * expected value matches any run of characters.
 *
 * @module
 */
import { getClaim } from './claims.js';
import { AuthnError } from './errors.js';

/** How expected values are compared: exactly, or as globs (`*` = any run of characters). */
export type BoundClaimsType = 'string' | 'glob';

/**
 * Checks `claims` against `bound` (claim → one expected value or a list of them).
 *
 * @throws {AuthnError} kind `claims`: `claim "<c>" is missing` or
 *   `claim "<c>" does not match any associated bound claim values`.
 */
export function checkBoundClaims(bound: Readonly<Record<string, unknown>>, claims: Record<string, unknown>, type: BoundClaimsType = 'string'): void {
  for (const [claim, expected] of Object.entries(bound)) {
    const actual = getClaim(claims, claim);
    if (actual === undefined || actual === null) throw new AuthnError('claims', `claim "${claim}" is missing`);
    const wanted = (Array.isArray(expected) ? expected : [expected]).map(String);
    const have = (Array.isArray(actual) ? actual : [actual]).map((v) => (typeof v === 'object' ? undefined : String(v)));
    const ok = have.some((h) => h !== undefined && wanted.some((w) => (type === 'glob' ? globMatch(w, h) : w === h)));
    if (!ok) throw new AuthnError('claims', `claim "${claim}" does not match any associated bound claim values`);
  }
}

/** Whether `value` matches `pattern`, where `*` matches any run of characters (none included). */
export function globMatch(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
  return re.test(value);
}

/**
 * Checks `sub` against a role's bound subject (empty = any).
 * @throws {AuthnError} kind `token`: `invalid subject (sub) claim`.
 */
export function checkBoundSubject(bound: string, claims: Record<string, unknown>): void {
  if (bound && claims.sub !== bound) throw new AuthnError('token', 'invalid subject (sub) claim');
}
