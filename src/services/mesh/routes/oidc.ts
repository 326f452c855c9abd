/**
 * The OIDC login endpoints (spec 001; reference/mesh.md §5), enterprise only:
 * `POST /acl/oidc/auth-url` → `{AuthURL}` for an `oidc` auth method, and
 * `POST /acl/oidc/callback` with the provider's `State` and `Code` → a token made like a
 * login's (`token created via OIDC login`). The state is single use and expires after
 * 10 minutes; the callback's `ClientNonce` and namespace must match the auth-url request's.
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { PUBLIC, withBody } from '../../../kernel/http/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { authenticatorsOf, statusOf, identityOf } from '../authenticators.js';
import type { MeshRouteSpec } from '../access.js';
import { meshBody } from '../body-decoding.js';
import { requireLocalTokens, type Ctx } from '../deps.js';
import { aclDisabled, meshBadRequest, type MeshReply } from '../http.js';
import { createLoginToken } from '../login-token.js';
import { authMethodOf, loginNamespace } from './login.js';
import { renderToken } from './tokens.js';

/**
 * The body of both OIDC endpoints (reference/mesh.md §5): `RedirectURI` for auth-url,
 * `State` and `Code` for callback; `Namespace` keeps its own check (namespace.ts).
 */
const OidcBody = meshBody('OIDC', {
  AuthMethod: Go.string("the oidc auth method's name"),
  RedirectURI: Go.string('auth-url: where the provider sends the browser back'),
  State: Go.string("callback: the provider's state"),
  Code: Go.string("callback: the provider's authorization code"),
  ClientNonce: Go.string('the same on both requests'),
  Meta: Go.map("shown in the new token's description"),
  Namespace: Go.any('enterprise: the namespace (a string)'),
});
type OidcInput = Static<typeof OidcBody>;

/** The body, its auth method and namespace. @throws 401 ACLs disabled; 400 empty body; 403 unknown method. */
function common(ctx: Ctx, input: OidcInput | undefined) {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
  if (input === undefined) throw meshBadRequest('Invalid request: Missing auth parameters');
  const namespace = loginNamespace(ctx, input.Namespace);
  const method = authMethodOf(ctx, input.AuthMethod ?? '', namespace);
  return { input, namespace, method, meta: input.Meta ?? {}, clientNonce: input.ClientNonce ?? '' };
}

/**
 * `POST /acl/oidc/auth-url`: `{AuthMethod, RedirectURI, ClientNonce?, Meta?, Namespace?}` → `{AuthURL}`.
 * @throws 400 `GetAuthCodeURL is incompatible with type "<t>"`, `missing redirect_uri`,
 *   `unauthorized redirect_uri: <uri>`; 403 unknown method; 500 provider unreachable.
 */
async function authUrl(ctx: Ctx, body: OidcInput | undefined): Promise<MeshReply> {
  const { input, namespace, method, meta, clientNonce } = common(ctx, body);
  const redirectUri = input.RedirectURI ?? '';
  const flow = await authenticatorsOf(ctx.deps).oidc(method);
  try {
    return { body: { AuthURL: await flow.authUrl({ redirectUri, clientNonce, payload: { meta, namespace } }) } };
  } catch (err) {
    throw statusOf(err);
  }
}

/**
 * `POST /acl/oidc/callback`: `{AuthMethod, State, Code, ClientNonce?, Meta?, Namespace?}` →
 * the new token with its SecretID. `Meta` defaults to the auth-url request's.
 * @throws 403 `Provider login failed: Expired or missing OAuth state.` (also on replay),
 *   `Provider login failed: invalid client_nonce`, `Token verification failed: …`,
 *   `Permission denied` (nothing bound); 400 namespace mismatch; 500 code exchange failed.
 */
async function callback(ctx: Ctx, body: OidcInput | undefined): Promise<MeshReply> {
  const { input, namespace, method, meta, clientNonce } = common(ctx, body);
  requireLocalTokens(ctx);
  const flow = await authenticatorsOf(ctx.deps).oidc(method);
  let result;
  try {
    result = await flow.callback({ state: input.State ?? '', code: input.Code ?? '', clientNonce });
  } catch (err) {
    throw statusOf(err);
  }
  if (result.payload.namespace !== namespace) {
    throw meshBadRequest(`Namespace "${namespace}" does not match the namespace "${result.payload.namespace}" of the auth-url request`);
  }
  const identity = identityOf(method.Config, result.claims);
  const chosen = Object.keys(meta).length > 0 ? meta : result.payload.meta;
  const token = await createLoginToken(ctx.deps, method, identity, { prefix: 'token created via OIDC login', meta: chosen });
  return { body: renderToken(ctx.deps.state, token, true, ctx.deps.config.enterprise) };
}

/** The OIDC routes (registered only with the enterprise switch, routes/index.ts): anyone may start and complete a login. */
export const oidcRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/oidc/auth-url',
    synopsis: 'Start an OIDC login: the provider authorization URL',
    methods: { POST: withBody(OidcBody, { access: PUBLIC, handle: authUrl }) },
  },
  {
    pattern: 'acl/oidc/callback',
    synopsis: 'Complete an OIDC login: exchange the code for an ACL token',
    methods: { POST: withBody(OidcBody, { access: PUBLIC, handle: callback }) },
  },
];
