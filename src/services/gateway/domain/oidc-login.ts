/**
 * The OIDC login of the gateway (reference: Boundary `internal/auth/oidc` StartAuth,
 * Callback, TokenRequest), on the kernel's OIDC code flow (kernel/authn/oidc.ts):
 *
 * 1. `start` makes the provider URL (state and nonce kept by the kernel flow) and a
 *    `token_id`, a random secret the client polls with;
 * 2. the provider sends the browser to the callback with `code` and `state`: the state
 *    names the pending login (single use, {@link ATTEMPT_TTL_MS}); the code is exchanged,
 *    the ID token checked (and `allowed_audiences`), the account made or updated from the
 *    claims, its user found (or made when the method is its scope's primary one) and an
 *    auth token minted;
 * 3. `token` with the `token_id` answers pending (the caller sends 202) until then, the
 *    token once, and refuses it afterwards.
 *
 * Pending logins and minted-but-unfetched tokens live in this controller's memory,
 * bounded in number ({@link MAX_PENDING}) and time, like the kernel's OIDC states: on a
 * shared PostgreSQL state every `:authenticate` request and the callback are served by
 * the leader (its route forwards them: routes.ts), so one controller sees the whole login.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { AuthnBuilds, AuthnError, checkAudience, createOidcFlow, getClaim, PendingStates, type OidcFlow } from '../../../kernel/authn/index.js';
import { sha256Hex } from '../../../kernel/util/sha256.js';
import { write } from './collection.js';
import { T, type AccountDoc, type AuthMethodDoc, type AuthTokenDoc, type OidcAccountDoc, type OidcAuthMethodDoc, type UserDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { GatewayApiError } from './errors.js';
import { newId, PREFIX } from './ids.js';
import { callbackUrlOf, claimFor, flowConfigOf } from './oidc-method.js';
import { isPrimary } from './primary.js';
import { mintToken } from './tokens.js';

/** How long a started login may take to come back through the callback, in ms (the reference's `AttemptExpiration`, 2 minutes). */
const ATTEMPT_TTL_MS = 2 * 60_000;
/** How long a finished login's token waits to be fetched, in ms. */
const FETCH_TTL_MS = 5 * 60_000;
/** Most logins held at once (started or finished); the oldest go first when full. */
const MAX_PENDING = 10_000;

/** What the kernel flow carries from start to callback. */
interface Started {
  readonly authMethodId: string;
  readonly tokenKey: string;
}

/** A login as the `token` command sees it. */
type Attempt =
  | { readonly status: 'pending'; readonly authMethodId: string; readonly expiresAt: number }
  | { readonly status: 'done'; readonly authMethodId: string; readonly doc: AuthTokenDoc; readonly token: string }
  | { readonly status: 'failed'; readonly authMethodId: string; readonly message: string };

/** The answer of a `token` poll. */
export type Poll = { readonly status: 'pending' } | { readonly status: 'done'; readonly doc: AuthTokenDoc; readonly token: string };

/** One controller's OIDC logins; see the module doc. */
export class OidcLogins {
  /** Flows per auth method, rebuilt when its version changes. */
  private readonly flows = new AuthnBuilds<OidcFlow<Started>>();
  /** state → auth method (the callback path names no method). */
  private readonly states: PendingStates<string>;
  /** sha256(token_id) → the login. */
  private readonly attempts: PendingStates<Attempt>;

  constructor(private readonly d: GatewayDomain) {
    this.states = new PendingStates({ now: d.now, ttlMs: ATTEMPT_TTL_MS, maxEntries: MAX_PENDING });
    this.attempts = new PendingStates({ now: d.now, ttlMs: FETCH_TTL_MS, maxEntries: MAX_PENDING });
  }

  /**
   * The kernel flow of `am` (discovery read once per version).
   * @throws {AuthnError} kind `unreachable` or `config` when the provider cannot be used.
   */
  flowOf(am: OidcAuthMethodDoc): Promise<OidcFlow<Started>> {
    // A failed discovery is tried again on the next login.
    return this.flows.get(am.id, am.version, () =>
      createOidcFlow<Started>(flowConfigOf(am.attributes), { now: this.d.now, logger: this.d.log, stateTtlMs: ATTEMPT_TTL_MS, maxPendingStates: MAX_PENDING }),
    );
  }

  /**
   * `start`: the provider URL and the `token_id` to poll with.
   * @throws {AuthnError} when the provider cannot be reached.
   */
  async start(am: OidcAuthMethodDoc): Promise<{ authUrl: string; tokenId: string }> {
    const flow = await this.flowOf(am);
    const tokenId = randomBytes(32).toString('base64url');
    const tokenKey = sha256Hex(tokenId);
    const maxAge = am.attributes.max_age;
    const authUrl = await flow.authUrl({
      redirectUri: callbackUrlOf(am.attributes)!,
      payload: { authMethodId: am.id, tokenKey },
      maxAgeSeconds: maxAge === undefined ? undefined : maxAge === -1 ? 0 : maxAge,
    });
    this.states.put(new URL(authUrl).searchParams.get('state')!, am.id);
    this.attempts.put(tokenKey, { status: 'pending', authMethodId: am.id, expiresAt: this.d.now() + ATTEMPT_TTL_MS });
    return { authUrl, tokenId };
  }

  /**
   * The callback: completes the login `state` names.
   * @returns the auth method's API URL prefix (for the final redirect), or undefined for an unknown state.
   * @throws {AuthnError} or {@link GatewayApiError} when the login fails (the pollers are told too).
   */
  async callback(state: string, code: string): Promise<{ apiUrlPrefix?: string; error?: string }> {
    const amId = this.states.take(state);
    const am = amId === undefined ? undefined : this.d.state.get<AuthMethodDoc>(T.authMethods, amId);
    if (!am || am.type !== 'oidc') return { error: 'Provider login failed: Expired or missing OAuth state.' };
    const flow = await this.flowOf(am).catch(() => undefined);
    let started: Started | undefined;
    try {
      if (!flow) throw new AuthnError('unreachable', 'the OIDC provider cannot be reached');
      const { claims, payload } = await flow.callback({ state, code });
      started = payload;
      if (am.attributes.allowed_audiences?.length) checkAudience(am.attributes.allowed_audiences, claims.aud, false);
      const issued = await this.completeLogin(am, claims);
      this.attempts.put(payload.tokenKey, { status: 'done', authMethodId: am.id, ...issued });
      return { apiUrlPrefix: am.attributes.api_url_prefix };
    } catch (err) {
      const message = err instanceof AuthnError || err instanceof GatewayApiError ? err.message : 'Callback validation failed.';
      if (!(err instanceof AuthnError || err instanceof GatewayApiError))
        this.d.log.warn({ err: (err as Error).message, authMethod: am.id }, 'OIDC callback failed');
      if (started) this.attempts.put(started.tokenKey, { status: 'failed', authMethodId: am.id, message });
      return { apiUrlPrefix: am.attributes.api_url_prefix, error: message };
    }
  }

  /**
   * `token`: the login's state for `tokenId` of method `amId`. A finished login is
   * answered once.
   * @throws 403 `PermissionDenied` for an unknown, expired, fetched or other method's token id;
   *   401 `Unauthenticated` naming the failure when the callback failed.
   */
  poll(amId: string, tokenId: string): Poll {
    const key = sha256Hex(tokenId);
    const a = this.attempts.take(key);
    if (!a || a.authMethodId !== amId) throw new GatewayApiError('forbidden', 'PermissionDenied', 'Forbidden.');
    if (a.status === 'failed') throw new GatewayApiError('unauthenticated', 'Unauthenticated', `Unable to authenticate: ${a.message}`);
    if (a.status === 'done') return a;
    if (a.expiresAt <= this.d.now()) throw new GatewayApiError('forbidden', 'PermissionDenied', 'Forbidden.');
    this.attempts.put(key, a);
    return { status: 'pending' };
  }

  /** Makes or updates the account of `claims`, finds or makes its user, mints a token. */
  private async completeLogin(am: OidcAuthMethodDoc, claims: Record<string, unknown>): Promise<{ doc: AuthTokenDoc; token: string }> {
    const text = (to: 'sub' | 'name' | 'email') => {
      const v = getClaim(claims, claimFor(am.attributes, to));
      return typeof v === 'string' && v !== '' ? v : undefined;
    };
    const subject = text('sub');
    if (!subject) throw new GatewayApiError('unauthenticated', 'Unauthenticated', 'Unable to authenticate: the ID token has no subject.');
    const issuer = typeof claims.iss === 'string' ? claims.iss : am.attributes.issuer!;
    const now = this.d.now();
    const iso = new Date(now).toISOString();
    return write(this.d, (tx) => {
      const key = `${am.id}/${issuer}#${subject}`;
      const found = tx.getBy<AccountDoc>(T.accounts, 'login', key) as OidcAccountDoc | undefined;
      const attributes = { issuer, subject, full_name: text('name'), email: text('email') };
      let account: OidcAccountDoc;
      if (!found) {
        const id = newId(PREFIX.oidcAccount);
        account = tx.put<OidcAccountDoc>(T.accounts, id, {
          id,
          scope_id: am.scope_id,
          auth_method_id: am.id,
          type: 'oidc',
          attributes: compact(attributes),
          created_time: iso,
          updated_time: iso,
          version: 1,
        });
      } else if (found.attributes.full_name !== attributes.full_name || found.attributes.email !== attributes.email) {
        const { CreateIndex: _c, ModifyIndex: _m, ...rest } = found as OidcAccountDoc & { CreateIndex: number; ModifyIndex: number };
        account = tx.put<OidcAccountDoc>(T.accounts, found.id, { ...rest, attributes: compact(attributes), version: found.version + 1, updated_time: iso });
      } else account = found;
      let user = tx.list<UserDoc>(T.users).find((u) => u.account_ids.includes(account.id));
      if (!user) {
        if (!isPrimary(this.d, am))
          throw new GatewayApiError(
            'unauthenticated',
            'Unauthenticated',
            "Unable to authenticate: the account has no user and the auth method is not its scope's primary one.",
          );
        const id = newId(PREFIX.user);
        user = tx.put<UserDoc>(T.users, id, { id, created_time: iso, updated_time: iso, version: 1, scope_id: am.scope_id, account_ids: [account.id] });
      }
      const t = mintToken({
        scopeId: am.scope_id!,
        userId: user.id,
        authMethodId: am.id,
        accountId: account.id,
        nowMs: now,
        ttlSeconds: this.d.tokenTtlSeconds,
      });
      tx.put(T.authTokens, t.doc.id, t.doc);
      return t;
    });
  }
}

/** `attrs` without undefined values. */
function compact<T extends object>(attrs: T): T {
  return Object.fromEntries(Object.entries(attrs).filter(([, v]) => v !== undefined)) as T;
}

const logins = new WeakMap<GatewayDomain, OidcLogins>();

/** The OIDC logins of domain `d` (one per controller). */
export function oidcLogins(d: GatewayDomain): OidcLogins {
  let l = logins.get(d);
  if (!l) logins.set(d, (l = new OidcLogins(d)));
  return l;
}
