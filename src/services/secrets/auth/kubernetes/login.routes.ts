/**
 * `login` of a `kubernetes` auth mount (reference: vault-plugin-auth-kubernetes
 * `pathLogin`): unauthenticated; `{role, jwt}`. The kernel's
 * {@link reviewServiceAccountToken} sends the JWT to the API server's TokenReview (with
 * the role's `audience`); a refused or failed review is 403 `permission denied`. The
 * reviewed service account must match the role's names and namespaces (403 `service
 * account name not authorized` / `namespace not authorized`). The token's metadata names
 * the service account; its display name is `<namespace>-<name>`.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { globMatch, reviewServiceAccountToken } from '../../../../kernel/authn/index.js';
import { badRequest, forbidden } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { loginRoute } from '../login-route.js';
import { kernelConfig, readK8sConfig } from './config.js';
import { k8sRolesOf } from './roles.js';

const allowed = (patterns: readonly string[], value: string) => patterns.some((p) => globMatch(p, value));

const loginPath: SecretsPath = loginRoute({
  synopsis: 'Log in with a Kubernetes service-account token',
  description: 'Needs no token. The JWT is reviewed by the configured API server (TokenReview). Returns an `auth` block.',
  fields: {
    role: Type.String({ description: 'the role to log in against' }),
    jwt: Type.String({ description: 'the service-account JWT' }),
  },
  find: async (req) => {
    const roleName = req.data.role === undefined ? '' : String(req.data.role);
    if (!roleName) throw badRequest('missing role');
    const jwt = req.data.jwt === undefined ? '' : String(req.data.jwt);
    if (!jwt) throw badRequest('missing jwt');
    const role = await k8sRolesOf(req).get(roleName);
    if (!role) throw badRequest(`invalid role name "${roleName}"`);
    return { roleName, jwt, role };
  },
  boundCidrs: ({ role }) => role.token_bound_cidrs,
  tokenErrorPrefix: '',
  verify: async (req, { jwt, role }) => {
    // Read here, after the CIDR check: a client outside it gets 403 whatever the config.
    const config = await readK8sConfig(req.storage);
    if (!config) throw badRequest('could not load backend configuration');
    try {
      return await reviewServiceAccountToken(kernelConfig(config), jwt, {
        skipAccountLookup: true,
        audiences: role.audience ? [role.audience] : undefined,
      });
    } catch (err) {
      req.core.log.debug({ error: (err as Error).message }, 'kubernetes login refused by the token review');
      throw err;
    }
  },
  token: (_req, { roleName, role }, sa) => {
    if (!allowed(role.bound_service_account_names, sa.name)) throw forbidden('service account name not authorized');
    if (!allowed(role.bound_service_account_namespaces, sa.namespace)) throw forbidden('namespace not authorized');
    return {
      settings: role,
      meta: {
        role: roleName,
        service_account_name: sa.name,
        service_account_namespace: sa.namespace,
        service_account_uid: sa.uid,
        service_account_secret_name: '',
      },
      name: `${sa.namespace}-${sa.name}`,
      loginPath: 'login',
    };
  },
});

/** The login path of the kubernetes method. */
export const k8sLoginPaths: readonly SecretsPath[] = [loginPath];
