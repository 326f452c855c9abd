/**
 * The OIDC browser flow of a `jwt`/`oidc` auth mount (reference: vault-plugin-auth-jwt
 * `oidc/auth_url`, `oidc/callback`), on the kernel's {@link createOidcFlow}:
 * `auth_url {role, redirect_uri, client_nonce}` checks the redirect URI against the
 * role's `allowed_redirect_uris` and answers `{auth_url}` with fresh state and nonce;
 * the provider sends the browser back to the redirect URI, whose owner (e.g. the CLI)
 * calls `callback?state&code&client_nonce` (or POSTs them): the state is used up, the code exchanged, the
 * ID token verified, and the claims (merged with UserInfo) become a token.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { checkAudience, checkBoundSubject } from '../../../../kernel/authn/index.js';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { readConfig } from './config.js';
import { flowFor } from './engines.js';
import { rethrowAuthn } from '../authn-errors.js';
import { loginHandler } from '../login-route.js';
import { claimsLoginToken } from './identity.js';
import { configAndRole, jwtRolesOf } from './roles.js';

const NOT_CONFIGURED = 'OIDC login is not configured for this mount';
const now = (req: SecretsRequest) => () => req.core.now().getTime();

const authUrlPath: SecretsPath = {
  pattern: 'oidc/auth_url',
  synopsis: 'Start an OIDC login: the provider URL to send the browser to',
  description:
    "Needs no token. `redirect_uri` must be one of the role's `allowed_redirect_uris` (loopback URIs match any port). The state is valid for 10 minutes on this server.",
  fields: {
    role: Type.String({ description: "the OIDC role; defaults to the config's default_role" }),
    redirect_uri: Type.String({ description: 'where the provider sends the browser back' }),
    client_nonce: Type.String({ description: 'optional nonce the callback must present again' }),
  },
  unauthenticated: true,
  operations: {
    update: {
      summary: 'Get an auth URL',
      handle: async (req) => {
        const { config, name, role } = await configAndRole(req, req.data.role);
        if (!config.oidc_client_id) throw badRequest(NOT_CONFIGURED);
        if (role.role_type !== 'oidc') throw badRequest(`role "${name}" is not an OIDC role`);
        try {
          const flow = await flowFor(req.mount.uuid, config, now(req), req.core.log);
          const auth_url = await flow.authUrl({
            redirectUri: req.data.redirect_uri === undefined ? '' : String(req.data.redirect_uri),
            clientNonce: req.data.client_nonce === undefined ? undefined : String(req.data.client_nonce),
            payload: { role: name },
            allowedRedirectUris: role.allowed_redirect_uris,
            scopes: role.oidc_scopes,
          });
          return { data: { auth_url } };
        } catch (err) {
          rethrowAuthn(err);
        }
      },
    },
  },
};

/** Completes a login (GET with a query, or POST with a body: the same fields). */
const completeLogin = loginHandler({
  find: async (req) => {
    const config = await readConfig(req.storage);
    if (!config?.oidc_client_id) throw badRequest(NOT_CONFIGURED);
    return config;
  },
  tokenErrorPrefix: '',
  verify: async (req, config) => {
    const flow = await flowFor(req.mount.uuid, config, now(req), req.core.log);
    const s = (k: string) => (req.data[k] === undefined ? '' : String(req.data[k]));
    const done = await flow.callback({ state: s('state'), code: s('code'), clientNonce: s('client_nonce') || undefined });
    return { claims: done.claims, roleName: done.payload.role };
  },
  token: async (req, _config, { claims, roleName }) => {
    const role = await jwtRolesOf(req).get(roleName);
    if (!role) throw badRequest(`role "${roleName}" could not be found`);
    try {
      checkAudience(role.bound_audiences, claims.aud, false);
      checkBoundSubject(role.bound_subject, claims);
    } catch (err) {
      rethrowAuthn(err);
    }
    return claimsLoginToken(roleName, role, claims, 'oidc/callback');
  },
});

const callbackPath: SecretsPath = {
  pattern: 'oidc/callback',
  synopsis: "Complete an OIDC login with the provider's state and code",
  description: 'Needs no token. Each state works once. Returns an `auth` block like `login`.',
  fields: {
    state: Type.String({ description: "the state of the provider's redirect" }),
    code: Type.String({ description: "the authorization code of the provider's redirect" }),
    client_nonce: Type.String({ description: 'the nonce given to auth_url, if any' }),
  },
  unauthenticated: true,
  operations: {
    read: { summary: 'Complete a login', handle: completeLogin },
    // POST reaches the active server behind HA performance standbys (they serve GETs
    // themselves), where the state made by auth_url (itself a POST) is held.
    update: { summary: 'Complete a login (same fields in the body; forwarded to the active server behind standbys)', handle: completeLogin },
  },
};

/** The OIDC browser-flow paths of the jwt method. */
export const jwtOidcPaths: readonly SecretsPath[] = [authUrlPath, callbackPath];
