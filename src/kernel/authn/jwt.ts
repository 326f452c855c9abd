/**
 * JWT validation for `jwt` auth methods (reference/mesh.md §4.4, reference/sched.md §2.5):
 * signature against static PEM keys (each tried in turn), a JWKS URL or the keys named by
 * OIDC discovery; then the reference's time-claim rules, bound issuer and bound audiences.
 * Creating a validator reaches the JWKS or discovery URL once, as the reference does when
 * an auth method is written (`error checking JWKSURL: …`, reference/mesh.md §4.2).
 *
 * @module
 */
import type { KeyObject } from 'node:crypto';
import { compactVerify, createRemoteJWKSet, customFetch, decodeProtectedHeader, type JWTPayload } from 'jose';
import { DEFAULT_ALG, parsePublicKeyPem, validateAuthMethodConfig, type AuthMethodConfig } from './config.js';
import { AuthnError, messageOf } from './errors.js';
import { fetchTrusting, type FetchLike } from './fetch.js';

/** The reference's default for the expiration and not-before leeways, in seconds (§4.4). */
const DEFAULT_CLAIM_LEEWAY_SECONDS = 150;
/** The reference's default clock-skew leeway, in seconds (go-jose `DefaultLeeway`). */
const DEFAULT_CLOCK_SKEW_SECONDS = 60;
/** Skew allowed on `nbf` for discovery-validated tokens (go-oidc's fixed 5 minutes). */
const DISCOVERY_NBF_SKEW_SECONDS = 300;

/** Every claim of a validated token, as decoded from its JSON payload. */
export type Claims = Record<string, unknown>;

/** Validates bearer JWTs for one auth method; see {@link createJwtValidator}. */
export interface JwtValidator {
  /**
   * Verifies `token` and returns all its claims.
   * @throws {AuthnError} kind `token`, e.g. `missing jwt`,
   *   `no known key successfully validated the token signature`,
   *   `error validating claims: aud claim does not match any bound audience`.
   */
  validate(token: string): Promise<Claims>;
}

/** Options of {@link createJwtValidator}. */
export interface JwtValidatorOptions {
  /** The clock, in milliseconds since the epoch. */
  readonly now: () => number;
}

type KeySource =
  | { readonly kind: 'static'; readonly keys: readonly KeyObject[] }
  | { readonly kind: 'jwks'; readonly jwks: ReturnType<typeof createRemoteJWKSet> }
  | { readonly kind: 'discovery'; readonly jwks: ReturnType<typeof createRemoteJWKSet>; readonly issuer: string };

/**
 * Builds a validator for a `jwt` auth method. Validates `config` first
 * ({@link validateAuthMethodConfig}), then reaches the network: a JWKS URL is fetched once,
 * a discovery URL's `/.well-known/openid-configuration` is read (its `issuer` must equal
 * the URL) — both trusting the configured CA PEM when given.
 *
 * @throws {AuthnError} kind `config` for a bad config; kind `unreachable` with
 *   `error checking JWKSURL: fetching keys oidc: get keys failed: …` or
 *   `error checking OIDCDiscoveryURL: …`.
 */
export async function createJwtValidator(config: AuthMethodConfig, options: JwtValidatorOptions): Promise<JwtValidator> {
  validateAuthMethodConfig('jwt', config);
  const source = await keySource(config);
  const algorithms = config.jwtSupportedAlgs?.length ? [...config.jwtSupportedAlgs] : [DEFAULT_ALG];
  return {
    async validate(token) {
      if (!token) throw new AuthnError('token', 'missing jwt');
      const nowSeconds = options.now() / 1000;
      if (source.kind === 'discovery') {
        const claims = await verifySignature(token, source, algorithms, 'error validating signature: ');
        checkDiscoveryClaims(claims, source.issuer, nowSeconds);
        checkAudience(config.boundAudiences ?? [], claims.aud, false);
        return claims;
      }
      const claims = await verifySignature(token, source, algorithms, 'error verifying token: ');
      checkTimeClaims(claims, config, nowSeconds);
      checkAudience(config.boundAudiences ?? [], claims.aud, true);
      return claims;
    },
  };
}

async function keySource(config: AuthMethodConfig): Promise<KeySource> {
  if (config.jwtValidationPubKeys?.length) {
    return { kind: 'static', keys: config.jwtValidationPubKeys.map(parsePublicKeyPem) };
  }
  if (config.jwksUrl) {
    const jwks = remoteKeys(config.jwksUrl, fetchTrusting(config.jwksCaCert));
    try {
      await jwks.reload();
    } catch (err) {
      throw new AuthnError('unreachable', `error checking JWKSURL: fetching keys oidc: get keys failed: ${messageOf(err)}`, { cause: err });
    }
    return { kind: 'jwks', jwks };
  }
  const fetchFn = fetchTrusting(config.oidcDiscoveryCaCert);
  try {
    const meta = await discover(config.oidcDiscoveryUrl!, fetchFn);
    return { kind: 'discovery', jwks: remoteKeys(meta.jwks_uri, fetchFn), issuer: meta.issuer };
  } catch (err) {
    throw new AuthnError('unreachable', `error checking OIDCDiscoveryURL: ${messageOf(err)}`, { cause: err });
  }
}

function remoteKeys(url: string, fetchFn: FetchLike) {
  return createRemoteJWKSet(new URL(url), { [customFetch]: fetchFn });
}

/**
 * Reads an issuer's discovery document the way go-oidc does: `issuer` must equal the
 * configured URL (trailing slash ignored) and `jwks_uri` must be present.
 */
async function discover(issuerUrl: string, fetchFn: FetchLike): Promise<{ issuer: string; jwks_uri: string }> {
  const wellKnown = `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetchFn(wellKnown, { headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`oidc: failed to get provider metadata: ${res.status} ${res.statusText}`);
  const meta = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof meta.issuer !== 'string' || meta.issuer.replace(/\/+$/, '') !== issuerUrl.replace(/\/+$/, '')) {
    throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${issuerUrl}" got "${String(meta.issuer)}"`);
  }
  if (typeof meta.jwks_uri !== 'string') throw new Error('oidc: provider metadata has no jwks_uri');
  return { issuer: meta.issuer, jwks_uri: meta.jwks_uri };
}

async function verifySignature(token: string, source: KeySource, algorithms: string[], prefix: string): Promise<Claims> {
  try {
    decodeProtectedHeader(token);
  } catch (err) {
    throw new AuthnError('token', `error parsing token: ${messageOf(err)}`);
  }
  let payload: Uint8Array | undefined;
  if (source.kind === 'static') {
    for (const key of source.keys) {
      try {
        payload = (await compactVerify(token, key, { algorithms })).payload;
        break;
      } catch {
        // the reference tries every key and reports only that none worked
      }
    }
    if (!payload) throw new AuthnError('token', 'no known key successfully validated the token signature');
  } else {
    try {
      payload = (await compactVerify(token, source.jwks, { algorithms })).payload;
    } catch (err) {
      throw new AuthnError('token', `${prefix}${messageOf(err)}`, { cause: err });
    }
  }
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch (err) {
    throw new AuthnError('token', `failed to unmarshal claims: ${messageOf(err)}`);
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new AuthnError('token', 'failed to unmarshal claims: payload is not a JSON object');
  }
  for (const name of ['iat', 'nbf', 'exp'] as const) {
    const v = (claims as JWTPayload)[name];
    if (v !== undefined && typeof v !== 'number') {
      throw new AuthnError('token', `failed to unmarshal claims: "${name}" is not a number`);
    }
  }
  return claims as Claims;
}

/** `0`/absent → the default, `-1` (any negative) → 0, else the value (reference/mesh.md §4.4). */
function leeway(seconds: number | undefined, fallback: number): number {
  if (!seconds) return fallback;
  return seconds < 0 ? 0 : seconds;
}

/**
 * The reference's time rules for static keys and JWKS (reference/mesh.md §4.4): at least
 * one of iat/nbf/exp; a missing exp is max(iat, nbf) + ExpirationLeeway; a missing nbf is
 * iat, else exp − NotBeforeLeeway; then iss, nbf, exp, iat checked with ClockSkewLeeway.
 */
function checkTimeClaims(claims: JWTPayload, config: AuthMethodConfig, now: number): void {
  const iat = claims.iat ?? 0;
  let nbf = claims.nbf ?? 0;
  let exp = claims.exp ?? 0;
  if (iat === 0 && nbf === 0 && exp === 0) {
    throw new AuthnError('token', 'no issue time, notbefore, or expiration time encoded in token');
  }
  if (exp === 0) exp = Math.max(iat, nbf) + leeway(config.expirationLeewaySeconds, DEFAULT_CLAIM_LEEWAY_SECONDS);
  if (nbf === 0) nbf = iat !== 0 ? iat : exp - leeway(config.notBeforeLeewaySeconds, DEFAULT_CLAIM_LEEWAY_SECONDS);
  const skew = leeway(config.clockSkewLeewaySeconds, DEFAULT_CLOCK_SKEW_SECONDS);
  const invalid = (what: string) => new AuthnError('token', `error validating claims: validation failed, ${what}`);
  const issuers = config.boundIssuers ?? [];
  if (issuers.length > 0 && !issuers.includes(String(claims.iss ?? ''))) throw invalid('invalid issuer claim (iss)');
  if (now + skew < nbf) throw invalid('token not valid yet (nbf)');
  if (now - skew > exp) throw invalid('token is expired (exp)');
  if (now + skew < iat) throw invalid('token issued in the future (iat)');
}

/** go-oidc's checks for discovery-validated tokens: issuer of the provider, `exp` required, `nbf` with 5 minutes of skew. */
function checkDiscoveryClaims(claims: JWTPayload, issuer: string, now: number): void {
  const invalid = (what: string) => new AuthnError('token', `error validating signature: oidc: ${what}`);
  if (claims.iss !== issuer) {
    throw invalid(`id token issued by a different provider, expected "${issuer}" got "${String(claims.iss ?? '')}"`);
  }
  const exp = claims.exp ?? 0;
  if (exp < now) throw invalid(`token is expired (Token Expiry: ${new Date(exp * 1000).toISOString()})`);
  if (claims.nbf !== undefined && now + DISCOVERY_NBF_SKEW_SECONDS < claims.nbf) {
    throw invalid(`current time ${new Date(now * 1000).toISOString()} before the nbf (not before) time: ${new Date(claims.nbf * 1000).toISOString()}`);
  }
}

/**
 * Bound audiences (reference/mesh.md §4.4): with any bound, the token must name one of
 * them; `strict` (static keys, JWKS) also refuses a token with `aud` when none is bound.
 */
export function checkAudience(bound: readonly string[], aud: unknown, strict: boolean): void {
  const claimed = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.map(String) : [];
  if (strict && bound.length === 0 && claimed.length > 0) {
    throw new AuthnError('token', 'error validating claims: audience claim found in JWT but no audiences are bound');
  }
  if (bound.length > 0 && !bound.some((b) => claimed.includes(b))) {
    throw new AuthnError('token', 'error validating claims: aud claim does not match any bound audience');
  }
}
