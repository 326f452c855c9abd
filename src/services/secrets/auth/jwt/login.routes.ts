/**
 * `login` of a `jwt`/`oidc` auth mount (reference: vault-plugin-auth-jwt `pathLogin`):
 * unauthenticated; `{role, jwt}` (the role defaults to the config's `default_role`). The
 * JWT is verified by the kernel's validator (signature against the configured keys,
 * time claims with the role's leeways, `bound_issuer`, the role's `bound_audiences`),
 * then `bound_subject`, and the claims become a token ({@link claimsLoginToken}).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { checkBoundSubject } from '../../../../kernel/authn/index.js';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { loginRoute } from '../login-route.js';
import { validatorFor } from './engines.js';
import { claimsLoginToken } from './identity.js';
import { configAndRole } from './roles.js';

const loginPath: SecretsPath = loginRoute({
  synopsis: 'Log in with a signed JWT',
  description: "Needs no token. `role` defaults to the config's `default_role`; the role must be of type `jwt`. Returns an `auth` block.",
  fields: {
    role: Type.String({ description: 'the role to log in against' }),
    jwt: Type.String({ description: 'the signed JWT' }),
  },
  find: async (req) => {
    const found = await configAndRole(req, req.data.role);
    if (found.role.role_type === 'oidc') throw badRequest('role with oidc role_type is not allowed');
    const jwt = req.data.jwt === undefined ? '' : String(req.data.jwt);
    if (!jwt) throw badRequest('missing token');
    return { ...found, jwt };
  },
  boundCidrs: ({ role }) => role.token_bound_cidrs,
  verify: async (req, { config, role, jwt }) => {
    const validator = await validatorFor(
      req.mount.uuid,
      config,
      {
        boundAudiences: role.bound_audiences,
        expirationLeeway: role.expiration_leeway,
        notBeforeLeeway: role.not_before_leeway,
        clockSkewLeeway: role.clock_skew_leeway,
      },
      () => req.core.now().getTime(),
    );
    const claims = await validator.validate(jwt);
    checkBoundSubject(role.bound_subject, claims);
    return claims;
  },
  token: (_req, { name, role }, claims) => claimsLoginToken(name, role, claims, 'login'),
});

/** The login path of the jwt method. */
export const jwtLoginPaths: readonly SecretsPath[] = [loginPath];
