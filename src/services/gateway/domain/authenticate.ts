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
 * @module
 */
import { verifyPassword } from '../../../kernel/authn/password.js';
import { write } from './collection.js';
import { T, type AccountDoc, type AuthMethodDoc, type UserDoc } from './docs.js';
import { GatewayApiError, resourceNotFound } from './errors.js';
import { Input } from './input.js';
import { newId, PREFIX } from './ids.js';
import { aclResourceOf, authorize } from './resource.js';
import { authMethodKind } from './auth-methods.js';
import { authTokenView } from './auth-tokens.js';
import { ok, type DomainContext, type DomainRoute } from './route.js';
import { mintToken, splitCookie } from './tokens.js';

/** One text for every failed login, so they do not tell which part was wrong. */
const failed = () => new GatewayApiError('unauthenticated', 'Unauthenticated', 'Unable to authenticate: the login name or password is wrong.');

async function authenticate({ d, req, params, caller }: DomainContext) {
  const am = d.state.get<AuthMethodDoc>(T.authMethods, params.id);
  if (!am) throw resourceNotFound();
  authorize(caller, aclResourceOf(d, authMethodKind, am), 'authenticate');
  const input = Input.parse(req.body);
  const command = input.string('command') ?? 'login';
  if (command !== 'login') input.fail('command', 'Only "login" is supported by password auth methods.');
  const type = input.string('type') ?? input.string('token_type') ?? 'token';
  if (type !== 'token' && type !== 'cookie') input.fail('type', 'Must be "token" or "cookie".');
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
      if (!am.is_primary) throw failed();
      const iso = new Date(now).toISOString();
      const id = newId(PREFIX.user);
      user = tx.put<UserDoc>(T.users, id, { id, created_time: iso, updated_time: iso, version: 1, scope_id: am.scope_id, account_ids: [account.id] });
    }
    const t = mintToken({ scopeId: am.scope_id!, userId: user.id, authMethodId: am.id, accountId: account.id, nowMs: now, ttlSeconds: d.tokenTtlSeconds });
    tx.put(T.authTokens, t.doc.id, t.doc);
    return t;
  });
  const attributes = authTokenView(d, d.callerOf(minted.doc.user_id, minted.doc.account_id), minted.doc);
  if (type === 'cookie') return { status: 200, body: { command, attributes }, headers: { 'Set-Cookie': splitCookie(minted.token) } };
  return ok({ command, attributes: { ...attributes, token: minted.token } });
}

/** The `:authenticate` route. */
export function authenticateRoutes(): DomainRoute[] {
  return [{ method: 'POST', pattern: 'auth-methods/:id:authenticate', summary: 'log in with an auth method', handle: authenticate }];
}
