/**
 * Claims → login token, shared by the JWT login and the OIDC callback (reference:
 * vault-plugin-auth-jwt `createIdentity` then `validateBoundClaims`): the `user_claim`
 * names the user (the token's display name), `claim_mappings` and the role name become
 * token metadata, the `groups_claim` list is recorded as metadata `groups`
 * (comma-separated; Cairn has no identity groups), then the role's `bound_claims` are
 * checked and the token is issued with the role's `token_*` settings.
 *
 * @module
 */
import { AuthnError, checkBoundClaims, getClaim, identityFromClaims, type Claims } from '../../../../kernel/authn/index.js';
import { badRequest } from '../../../../kernel/http/index.js';
import type { LoginTokenOptions } from '../login.js';
import type { JwtRole } from './roles.js';

/**
 * The login token to issue ({@link issueLoginToken}) for validated `claims` of role `roleName`.
 * Errors (400): `claim "<c>" not found in token`, `claim "<c>" could not be converted to string`,
 * `failed to fetch groups: "<g>" claim not found in token`, `"<g>" list claim could not be converted to string list`,
 * `error validating claims: claim "<c>" does not match any associated bound claim values`.
 */
export function claimsLoginToken(roleName: string, role: JwtRole, claims: Claims, loginPath: string): LoginTokenOptions {
  const user = role.user_claim.startsWith('/') ? getClaim(claims, role.user_claim) : claims[role.user_claim];
  if (user === undefined || user === null) throw badRequest(`claim "${role.user_claim}" not found in token`);
  if (typeof user !== 'string') throw badRequest(`claim "${role.user_claim}" could not be converted to string`);
  const meta: Record<string, string> = {};
  try {
    const identity = identityFromClaims(claims, role.claim_mappings, role.groups_claim ? { [role.groups_claim]: 'groups' } : {});
    Object.assign(meta, (identity.selectable as { value: Record<string, string> }).value);
    if (role.groups_claim) {
      const groups = (identity.selectable as { list: Record<string, string[]> }).list.groups;
      if (!groups) throw badRequest(`failed to fetch groups: "${role.groups_claim}" claim not found in token`);
      meta.groups = groups.join(',');
    }
    meta.role = roleName;
    checkBoundClaims(role.bound_claims, claims, role.bound_claims_type);
  } catch (err) {
    if (!(err instanceof AuthnError)) throw err;
    throw badRequest(err.message.startsWith('claim "') ? `error validating claims: ${err.message}` : err.message);
  }
  return { settings: role, meta, name: user, loginPath };
}
