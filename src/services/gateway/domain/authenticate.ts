/**
 * `POST /v1/auth-methods/<id>:authenticate` (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/auth-methods and the
 * API's `AuthenticateRequest`): body `{"command":"login","type":"token"|"cookie",
 * "attributes":{"login_name","password"}}`; the caller needs `authenticate` on the auth
 * method (the anonymous user has it through the bootstrap role). On success: a new auth
 * token, answered as `{"command":"login","attributes":{…token fields…, "token"}}`; with
 * `"type":"cookie"` the token is left out of the body and sent as the split cookie
 * (tokens.ts). A login whose account has no user gets one when the auth method is its
 * scope's primary one (the reference's primary auth method rule).
 *
 * OIDC auth methods (oidc-login.ts) take `{"command":"start"}` → `{"command":"start",
 * "attributes":{"auth_url","token_id"}}` (400 `FailedPrecondition` while `inactive`) and
 * `{"command":"token","type"?,"attributes":{"token_id"}}` → 202
 * `{"command":"token","attributes":{"status":"unknown"}}` until the provider's callback
 * completed the login, then the token as a password login answers it. The callback is
 * `GET /v1/auth-methods/oidc:authenticate:callback?code&state` (or `?error&error_description`
 * from the provider): a 302 to `<api_url_prefix>/authentication-complete`, or to
 * `/authentication-error?error=<JSON API error>` (pages declared in routes.ts).
 *
 * @module
 */
import { verifyPassword } from '../../../kernel/authn/password.js';
import { AuthnError } from '../../../kernel/authn/index.js';
import { write } from './collection.js';
import { T, type AccountDoc, type AuthMethodDoc, type AuthTokenDoc, type OidcAuthMethodDoc, type PasswordAuthMethodDoc, type UserDoc } from './docs.js';
import { GatewayApiError, invalidFields, resourceNotFound } from './errors.js';
import type { Input } from './input.js';
import { newId, PREFIX } from './ids.js';
import { grantOn } from './resource.js';
import { authMethodKind } from './auth-methods.js';
import { authTokenView } from './auth-tokens.js';
import { oidcLogins } from './oidc-login.js';
import { COMPLETE_PATH, ERROR_PATH } from './oidc-method.js';
import { isPrimary } from './primary.js';
import { ok, type Grant, type RouteContext, type RouteReply } from '../route.js';
import { mintToken, splitCookie } from './tokens.js';

/** One text for every failed login, so they do not tell which part was wrong. */
const failed = () => new GatewayApiError('unauthenticated', 'Unauthenticated', 'Unable to authenticate: the login name or password is wrong.');

/** The `type` of an authenticate request (`token_type` is its deprecated name): `token` or `cookie`. */
function tokenType(input: Input): 'token' | 'cookie' {
  const type = input.string('type') ?? input.string('token_type') ?? 'token';
  if (type !== 'token' && type !== 'cookie') input.fail('type', 'The only accepted types are "token" and "cookie".');
  return type === 'cookie' ? 'cookie' : 'token';
}

/** The reply carrying a new token: in the body, or (cookie) split between the body's absence and `Set-Cookie`. */
function tokenReply(ctx: RouteContext, command: string, type: 'token' | 'cookie', minted: { doc: AuthTokenDoc; token: string }): RouteReply {
  const { d, req } = ctx;
  const attributes = authTokenView(d, d.callerOf(minted.doc.user_id, minted.doc.account_id), minted.doc);
  if (type === 'cookie') return { status: 200, body: { command, attributes }, headers: { 'Set-Cookie': splitCookie(minted.token, req.tls) } };
  return ok({ command, attributes: { ...attributes, token: minted.token } });
}

async function authenticatePassword(ctx: RouteContext, am: PasswordAuthMethodDoc, input: Input): Promise<RouteReply> {
  const { d } = ctx;
  const command = input.string('command') ?? 'login';
  if (command !== 'login') input.fail('command', 'Only "login" is supported by password auth methods.');
  const type = tokenType(input);
  const attrs = input.object('attributes');
  const login = attrs.string('login_name', { required: true });
  const password = attrs.string('password', { required: true });
  input.done();
  const account = d.state.getBy<AccountDoc>(T.accounts, 'login', `${am.id}/${login}`);
  // Unknown login names cost a hash too (verifyPassword's dummy entry).
  if (!(await verifyPassword(password!, account?.password_hash)) || !account) throw failed();
  const now = d.now();
  const minted = await write(d, (tx) => {
    let user = tx.list<UserDoc>(T.users).find((u) => u.account_ids.includes(account.id));
    if (!user) {
      if (!isPrimary(d, am)) throw failed();
      const iso = new Date(now).toISOString();
      const id = newId(PREFIX.user);
      user = tx.put<UserDoc>(T.users, id, { id, created_time: iso, updated_time: iso, version: 1, scope_id: am.scope_id, account_ids: [account.id] });
    }
    const t = mintToken({ scopeId: am.scope_id!, userId: user.id, authMethodId: am.id, accountId: account.id, nowMs: now, ttlSeconds: d.tokenTtlSeconds });
    tx.put(T.authTokens, t.doc.id, t.doc);
    return t;
  });
  return tokenReply(ctx, command, type, minted);
}

async function authenticateOidc(ctx: RouteContext, am: OidcAuthMethodDoc, input: Input): Promise<RouteReply> {
  const command = input.string('command', { required: true });
  if (command === 'start') {
    input.object('attributes');
    input.done('attributes.roundtrip_payload');
    if (am.attributes.state === 'inactive')
      throw new GatewayApiError('bad_request', 'FailedPrecondition', 'Cannot start authentication against an inactive OIDC auth method');
    try {
      const { authUrl, tokenId } = await oidcLogins(ctx.d).start(am);
      return ok({ command, attributes: { auth_url: authUrl, token_id: tokenId } });
    } catch (err) {
      if (!(err instanceof AuthnError)) throw err;
      ctx.d.log.warn({ authMethod: am.id, err: err.message }, 'error starting the OIDC authentication flow');
      throw new GatewayApiError('internal', 'Internal', `Error generating parameters for starting the OIDC flow: ${err.message}`);
    }
  }
  if (command === 'token') {
    const type = tokenType(input);
    const attrs = input.object('attributes');
    const tokenId = attrs.string('token_id', { required: true });
    input.done();
    const r = oidcLogins(ctx.d).poll(am.id, tokenId!);
    if (r.status === 'pending') return { status: 202, body: { command, attributes: { status: 'unknown' } } };
    return tokenReply(ctx, command, type, r);
  }
  if (typeof command === 'string') input.fail('command', 'Invalid command for this auth method type.');
  input.done();
  throw invalidFields({});
}

/** The auth method `id`, or 404. */
function authMethod({ d, params }: RouteContext): AuthMethodDoc {
  const am = d.state.get<AuthMethodDoc>(T.authMethods, params.id);
  if (!am) throw resourceNotFound();
  return am;
}

/** The access rule of `:authenticate`: the `authenticate` grant on the auth method (404 first). */
export const authenticateAccess = (ctx: RouteContext): Grant => grantOn(ctx.d, authMethodKind, authMethod(ctx), 'authenticate');

/** `POST /v1/auth-methods/<id>:authenticate`; see the module doc. */
export async function authenticate(ctx: RouteContext): Promise<RouteReply> {
  const am = authMethod(ctx);
  const input = ctx.input();
  return am.type === 'oidc' ? authenticateOidc(ctx, am, input) : authenticatePassword(ctx, am, input);
}

/**
 * `GET /v1/auth-methods/oidc:authenticate:callback`: completes the login the `state`
 * names and redirects the browser (302) to the completion page, or to the error page with
 * the reference's `?error=<JSON>`. Needs no token and no grant: the state is the credential.
 */
export async function oidcCallback({ d, req }: RouteContext): Promise<RouteReply> {
  const state = req.query.get('state') ?? '';
  const code = req.query.get('code') ?? '';
  const providerError = req.query.get('error');
  let result: { apiUrlPrefix?: string; error?: string };
  if (providerError) result = { error: `Error: ${JSON.stringify(providerError)}, Details: ${JSON.stringify(req.query.get('error_description') ?? '')}` };
  else if (!state || !code) result = { error: !state ? 'State field not supplied in callback request.' : 'Code field not supplied in callback request.' };
  else result = await oidcLogins(d).callback(state, code);
  // Relative when the method is unknown: the browser stays on this controller.
  const base = (result.apiUrlPrefix ?? '').replace(/\/+$/, '');
  if (!result.error) return { status: 302, headers: { Location: base + COMPLETE_PATH, 'Cache-Control': 'no-store' } };
  const error = JSON.stringify({ kind: 'InvalidArgument', message: `Callback validation failed: ${result.error}` });
  return { status: 302, headers: { Location: `${base}${ERROR_PATH}?${new URLSearchParams({ error })}`, 'Cache-Control': 'no-store' } };
}
