/**
 * `POST /acl/login` and `POST /acl/logout` (spec 001; reference/mesh.md §3, §8). Neither
 * needs a privilege: login proves an identity with a bearer token (`jwt`: JWKS, discovery
 * or static keys; `kubernetes`: TokenReview), logout possesses the token's secret. An
 * invalid bearer token is 403 with the validator's text (the reference answers 500;
 * reference/README.md rule 3).
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { CairnError, PUBLIC, withBody } from '../../../kernel/http/index.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import type { AuthMethodDoc } from '../auth-docs.js';
import { authenticatorsOf } from '../authenticators.js';
import type { MeshRouteSpec } from '../access.js';
import { meshBody } from '../body-decoding.js';
import { requireLocalTokens, type Ctx } from '../deps.js';
import { aclDisabled, meshBadRequest, meshForbidden, type MeshReply } from '../http.js';
import { createLoginToken } from '../login-token.js';
import { requestNamespace } from '../namespace.js';
import { authMethodKey, nsOf, T, type TokenDoc } from '../state.js';
import { renderToken } from './tokens.js';

/** The body of `POST /acl/login` (reference/mesh.md §8); `Namespace` keeps its own check (namespace.ts). */
const LoginBody = meshBody('Login', {
  AuthMethod: Go.string("the auth method's name"),
  BearerToken: Go.string('the token the auth method validates (a JWT, a service-account token)'),
  Meta: Go.map("shown in the new token's description"),
  Namespace: Go.any('enterprise: the namespace (a string)'),
});

/**
 * The namespace of a login-like request (spec 001's five levels; level 4 is the namespace
 * of the token the request carries, if it is a valid one: login needs none). A namespace
 * that does not exist holds no auth method, so {@link authMethodOf} answers for it.
 */
export function loginNamespace(ctx: Ctx, body: unknown): string {
  const token = ctx.secret === undefined ? undefined : ctx.deps.acl.lookup(ctx.secret);
  return requestNamespace(ctx, !!ctx.deps.config.enterprise, body, token && nsOf(token));
}

/**
 * The auth method `name` in namespace `ns`.
 * @throws 403 `ACL not found: auth method "<name>" not found` (reference/mesh.md §3.2 step 4).
 */
export function authMethodOf(ctx: Ctx, name: string, ns: string): AuthMethodDoc & Indexed {
  const m = ctx.deps.state.get<AuthMethodDoc>(T.authMethods, authMethodKey(ns, name));
  if (!m) throw meshForbidden(`ACL not found: auth method "${name}" not found`);
  return m;
}

/**
 * `POST /acl/login`: `{AuthMethod, BearerToken, Meta?, Namespace?}` → the new token with
 * its SecretID, made in the auth method's namespace (reference/mesh.md §7). @throws 401 ACLs disabled; 400 bad body (`Invalid Login request: Missing
 * auth parameters` without one); 403 unknown method, invalid bearer token, nothing bound.
 */
async function login(ctx: Ctx, input: Static<typeof LoginBody> | undefined): Promise<MeshReply> {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
  requireLocalTokens(ctx);
  if (input === undefined) throw meshBadRequest('Invalid Login request: Missing auth parameters');
  const name = input.AuthMethod ?? '';
  const bearer = input.BearerToken ?? '';
  const meta = input.Meta ?? {};
  const ns = loginNamespace(ctx, input.Namespace);
  const method = authMethodOf(ctx, name, ns);
  const identity = await authenticatorsOf(ctx.deps).login(method, bearer);
  const token = await createLoginToken(ctx.deps, method, identity, { prefix: 'token created via login', meta });
  return { body: renderToken(ctx.deps.state, token, true, ctx.deps.config.enterprise) };
}

/**
 * `POST /acl/logout`: deletes the request's own token when a login made it; `true`.
 * @throws 401 `Supplied token does not exist` without a token; 403 `ACL not found` for an
 *   unknown one; 403 `Permission denied: token wasn't created via login`.
 */
async function logout(ctx: Ctx): Promise<MeshReply> {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
  requireLocalTokens(ctx);
  requestNamespace(ctx, !!ctx.deps.config.enterprise);
  // The reference falls back to the agent's default token here, so an anonymous logout
  // could try to delete it; only the request's own secret is used.
  if (ctx.secret === undefined) throw new CairnError('unauthenticated', 'Supplied token does not exist');
  const token = ctx.deps.acl.lookup(ctx.secret);
  if (!token) throw meshForbidden('ACL not found');
  if (token.AuthMethod === undefined) throw meshForbidden("Permission denied: token wasn't created via login");
  await ctx.deps.state.txn((tx) => {
    if (tx.get<TokenDoc>(T.tokens, token.AccessorID)) tx.delete(T.tokens, token.AccessorID);
  });
  return { body: true };
}

/**
 * The login routes: anyone may call them (login proves an identity with a bearer token,
 * logout possesses the token's secret), with ACLs on.
 */
export const loginRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/login',
    synopsis: 'Exchange an auth-method bearer token for an ACL token',
    methods: { POST: withBody(LoginBody, { access: PUBLIC, handle: login }) },
  },
  { pattern: 'acl/logout', synopsis: 'Delete a token created by login', methods: { POST: { access: PUBLIC, handle: logout } } },
];
