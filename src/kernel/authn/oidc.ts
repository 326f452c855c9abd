/**
 * The OIDC authorization-code flow of `oidc` auth methods (reference/mesh.md §4.5, §5;
 * reference/sched.md §2.5), on `openid-client` (OpenID certified). `authUrl` checks the
 * redirect URI, makes and remembers state and nonce (and a PKCE verifier when
 * configured); `callback` consumes the state, exchanges the code, validates the ID token
 * (signature against the provider's JWKS, issuer, audience = the client id, expiry,
 * nonce) and merges UserInfo claims. Claims then go through {@link identityFromClaims}.
 *
 * Creating a flow reads the provider's discovery document, as the reference does when an
 * OIDC auth method is written (`error checking OIDCDiscoveryURL: …`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Logger } from '../log/logger.js';
import { validateAuthMethodConfig, type AuthMethodConfig } from './config.js';
import { AuthnError, messageOf } from './errors.js';
import { fetchTrusting } from './fetch.js';
import type { Claims } from './jwt.js';
import { PendingStates } from './oidc-state.js';
import { isAllowedRedirectUri } from './redirect.js';

/** Options of {@link createOidcFlow}. */
export interface OidcFlowOptions {
  /** The clock, in milliseconds since the epoch (pending-state expiry). */
  readonly now: () => number;
  /** Where a failed UserInfo call is reported (the reference only logs it). */
  readonly logger?: Logger;
  /** Lifetime of a pending login; 0 or absent means the reference's 10 minutes. */
  readonly stateTtlMs?: number;
  /** Most pending logins held in memory; 0 or absent means 10,000. */
  readonly maxPendingStates?: number;
  /**
   * Redirect URIs are allow-listed per request ({@link AuthUrlRequest.allowedRedirectUris},
   * e.g. per role in the secrets service) instead of by the config, which then need not list any.
   */
  readonly redirectUrisPerRequest?: boolean;
}

/** `authUrl` input: the browser's redirect URI, the client's optional nonce, and what the service wants back at callback. */
interface AuthUrlRequest<P> {
  readonly redirectUri: string;
  readonly clientNonce?: string;
  readonly payload: P;
  /** The allowed redirect URIs when the flow was made with `redirectUrisPerRequest`; ignored otherwise. */
  readonly allowedRedirectUris?: readonly string[];
  /** Scopes requested after `openid` for this request, instead of the config's (per-role scopes). */
  readonly scopes?: readonly string[];
  /**
   * OIDC `max_age` in seconds: sent to the provider, and the ID token's `auth_time` must
   * then be at most this old (0: the provider must authenticate the user again).
   */
  readonly maxAgeSeconds?: number;
}

/** `callback` input, as the provider's redirect (and the client) deliver it. */
interface CallbackRequest {
  readonly state: string;
  readonly code: string;
  readonly clientNonce?: string;
}

/** One OIDC auth method's flow; `P` is the service's payload (e.g. `Meta`, namespace). */
export interface OidcFlow<P> {
  /**
   * The provider URL to send the browser to.
   * @throws {AuthnError} kind `redirect_uri`: `missing redirect_uri` or `unauthorized redirect_uri: <uri>`.
   */
  authUrl(request: AuthUrlRequest<P>): Promise<string>;
  /**
   * Completes a login: the ID token's claims (nonce removed) merged with UserInfo, and
   * the payload stored by `authUrl`.
   * @throws {AuthnError} kind `oidc_state` (`Provider login failed: Expired or missing OAuth state.`,
   *   `Provider login failed: invalid client_nonce`, `Provider login failed: OAuth code parameter not provided`),
   *   `oidc_exchange` (`Provider login failed: Error exchanging oidc code: …`) or
   *   `token` (`Token verification failed: Invalid ID token nonce.`, `Token verification failed: …`).
   */
  callback(request: CallbackRequest): Promise<{ claims: Claims; payload: P }>;
}

interface Pending<P> {
  readonly nonce: string;
  readonly redirectUri: string;
  readonly clientNonce?: string;
  readonly codeVerifier?: string;
  readonly maxAgeSeconds?: number;
  readonly payload: P;
}

/**
 * Builds the flow of an `oidc` auth method: validates `config`
 * ({@link validateAuthMethodConfig}), then discovers the provider (trusting
 * `oidcDiscoveryCaCert` when set; a plain `http:` discovery URL is allowed because the
 * operator wrote it).
 *
 * @throws {AuthnError} kind `config`, or `unreachable` with `error checking OIDCDiscoveryURL: …`.
 */
export async function createOidcFlow<P>(config: AuthMethodConfig, options: OidcFlowOptions): Promise<OidcFlow<P>> {
  validateAuthMethodConfig('oidc', config, { redirectUrisPerRequest: options.redirectUrisPerRequest });
  const issuer = new URL(config.oidcDiscoveryUrl!);
  const fetchFn = fetchTrusting(config.oidcDiscoveryCaCert) as client.CustomFetch;
  const metadata: Partial<client.ClientMetadata> = { client_secret: config.oidcClientSecret };
  // openid-client checks one ID-token alg; the first configured one, else its RS256 default.
  if (config.jwtSupportedAlgs?.length) metadata.id_token_signed_response_alg = config.jwtSupportedAlgs[0];
  let oidc: client.Configuration;
  try {
    oidc = await client.discovery(issuer, config.oidcClientId!, metadata, undefined, {
      [client.customFetch]: fetchFn,
      execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
    });
  } catch (err) {
    throw new AuthnError('unreachable', `error checking OIDCDiscoveryURL: ${messageOf(err)}`, { cause: err });
  }
  oidc[client.customFetch] = fetchFn;
  // The reference verifies the ID token's signature (go-oidc); openid-client only does when asked.
  client.enableNonRepudiationChecks(oidc);
  const pending = new PendingStates<Pending<P>>({ now: options.now, ttlMs: options.stateTtlMs, maxEntries: options.maxPendingStates });
  const scopeOf = (extra: readonly string[] | undefined) => ['openid', ...(extra ?? []).filter((s) => s !== 'openid')].join(' ');

  return {
    async authUrl({ redirectUri, clientNonce, payload, allowedRedirectUris, scopes, maxAgeSeconds }) {
      if (!redirectUri) throw new AuthnError('redirect_uri', 'missing redirect_uri');
      const allowed = options.redirectUrisPerRequest ? allowedRedirectUris : config.allowedRedirectUris;
      if (!isAllowedRedirectUri(redirectUri, allowed ?? [])) {
        throw new AuthnError('redirect_uri', `unauthorized redirect_uri: ${redirectUri}`);
      }
      // 40 random bytes: state is the hex of the first 20, nonce of the last 20 (reference/mesh.md §5.1).
      const random = randomBytes(40);
      const state = random.subarray(0, 20).toString('hex');
      const nonce = random.subarray(20).toString('hex');
      const scope = scopeOf(scopes ?? config.oidcScopes);
      const params: Record<string, string> = { redirect_uri: redirectUri, scope, state, nonce, response_type: 'code' };
      if (config.oidcAcrValues?.length) params.acr_values = config.oidcAcrValues.join(' ');
      if (maxAgeSeconds !== undefined) params.max_age = String(maxAgeSeconds);
      let codeVerifier: string | undefined;
      if (config.oidcClientUsePkce) {
        codeVerifier = client.randomPKCECodeVerifier();
        params.code_challenge = await client.calculatePKCECodeChallenge(codeVerifier);
        params.code_challenge_method = 'S256';
      }
      pending.put(state, { nonce, redirectUri, clientNonce: clientNonce || undefined, codeVerifier, maxAgeSeconds, payload });
      return client.buildAuthorizationUrl(oidc, params).href;
    },

    async callback({ state, code, clientNonce }) {
      const entry = pending.take(state);
      if (!entry) throw new AuthnError('oidc_state', 'Provider login failed: Expired or missing OAuth state.');
      if (entry.clientNonce !== undefined && clientNonce !== entry.clientNonce) {
        throw new AuthnError('oidc_state', 'Provider login failed: invalid client_nonce');
      }
      if (!code) throw new AuthnError('oidc_state', 'Provider login failed: OAuth code parameter not provided');
      const callbackUrl = new URL(entry.redirectUri);
      callbackUrl.searchParams.set('code', code);
      callbackUrl.searchParams.set('state', state);
      // RFC 9207: providers that announce `iss` in authorization responses make openid-client
      // require it; the reference's callback API does not carry it, so it is the discovered one.
      const server = oidc.serverMetadata();
      if (server.authorization_response_iss_parameter_supported) callbackUrl.searchParams.set('iss', server.issuer);
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(oidc, callbackUrl, {
          expectedState: state,
          expectedNonce: entry.nonce,
          pkceCodeVerifier: entry.codeVerifier,
          idTokenExpected: true,
          maxAge: entry.maxAgeSeconds,
        });
      } catch (err) {
        throw classify(err);
      }
      const claims: Claims = { ...tokens.claims() };
      delete claims.nonce;
      try {
        Object.assign(claims, await client.fetchUserInfo(oidc, tokens.access_token, String(claims.sub)));
      } catch (err) {
        options.logger?.warn({ error: messageOf(err) }, 'error reading /userinfo endpoint');
      }
      return { claims, payload: entry.payload };
    },
  };
}

/** Codes of openid-client errors raised while validating the ID token, not while exchanging the code. */
const VERIFICATION_CODES = new Set(['OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'OAUTH_KEY_SELECTION_FAILED']);

interface OauthError {
  code?: string;
  message?: string;
  cause?: unknown;
}

/**
 * Sorts an openid-client failure into the reference's two texts. openid-client wraps the
 * oauth4webapi error (whose `cause.claim` names the failed claim) in a generic one, so the
 * inner error's message is the informative one.
 */
function classify(err: unknown): AuthnError {
  const outer = err as OauthError;
  const inner = (outer.cause && typeof outer.cause === 'object' ? outer.cause : outer) as OauthError;
  const detail = inner.message ?? messageOf(err);
  if (outer.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' && (inner.cause as { claim?: string } | undefined)?.claim === 'nonce') {
    return new AuthnError('token', 'Token verification failed: Invalid ID token nonce.', { cause: err });
  }
  if ((outer.code && VERIFICATION_CODES.has(outer.code)) || /signature|ID Token|JWT/.test(detail)) {
    return new AuthnError('token', `Token verification failed: ${detail}`, { cause: err });
  }
  return new AuthnError('oidc_exchange', `Provider login failed: Error exchanging oidc code: ${detail}`, { cause: err });
}
