/**
 * Auth-method configuration for JWT and OIDC methods, in Cairn's camelCase (a service maps
 * its wire names — `JWTValidationPubKeys`, `BoundAudiences`, … — onto it), and its pure
 * validation with the reference's error texts (reference/mesh.md §4.4, §4.5). Nothing here
 * touches the network: reaching the JWKS or discovery URL is part of creating a validator
 * or an OIDC flow ({@link createJwtValidator}, {@link createOidcFlow}).
 *
 * @module
 */
import { createPublicKey, X509Certificate } from 'node:crypto';
import { AuthnError, messageOf } from './errors.js';

/** Signing algorithms a JWT auth method may accept (reference/mesh.md §4.4 `JWTSupportedAlgs`). */
export const SUPPORTED_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const;

/** The algorithm accepted when `jwtSupportedAlgs` is empty (reference/mesh.md §4.4). */
export const DEFAULT_ALG = 'RS256';

/**
 * Config shared by `jwt` and `oidc` auth methods (reference/mesh.md §4.4, §4.5). Leeways are
 * in **seconds**: `0` (or absent) means the reference default, `-1` means disabled.
 */
export interface AuthMethodConfig {
  /** PEM public keys (RSA, ECDSA, Ed25519; SPKI or certificate); each is tried in turn. */
  readonly jwtValidationPubKeys?: readonly string[];
  /** URL of a JWK set. */
  readonly jwksUrl?: string;
  /** PEM CA bundle trusted for `jwksUrl` (else the system roots). */
  readonly jwksCaCert?: string;
  /** Issuer URL whose `/.well-known/openid-configuration` names the keys. */
  readonly oidcDiscoveryUrl?: string;
  /** PEM CA bundle trusted for `oidcDiscoveryUrl` and the provider's other endpoints. */
  readonly oidcDiscoveryCaCert?: string;
  /** Accepted `alg` values; empty means `RS256` only. */
  readonly jwtSupportedAlgs?: readonly string[];
  /** Accepted audiences (strict for static keys and JWKS, non-strict for discovery, §4.4). */
  readonly boundAudiences?: readonly string[];
  /** Accepted issuers (any one matches; the discovery service's single `BoundIssuer` is a list of one). */
  readonly boundIssuers?: readonly string[];
  /** Claim name or JSON Pointer → key of a `value.<key>` identity field. */
  readonly claimMappings?: Readonly<Record<string, string>>;
  /** Claim name or JSON Pointer → key of a `list.<key>` identity field. */
  readonly listClaimMappings?: Readonly<Record<string, string>>;
  /** Seconds added to `max(iat, nbf)` when a token has no `exp`; 0 → 150, -1 → 0. */
  readonly expirationLeewaySeconds?: number;
  /** Seconds subtracted from `exp` when a token has neither `nbf` nor `iat`; 0 → 150, -1 → 0. */
  readonly notBeforeLeewaySeconds?: number;
  /** Clock skew allowed on `exp`/`nbf`/`iat` checks; 0 → 60, -1 → 0. */
  readonly clockSkewLeewaySeconds?: number;
  /** OIDC flow: the client id registered at the provider. */
  readonly oidcClientId?: string;
  /** OIDC flow: the client secret. */
  readonly oidcClientSecret?: string;
  /** OIDC flow: redirect URIs a login may name (exact; loopback hosts ignore the port). */
  readonly allowedRedirectUris?: readonly string[];
  /** OIDC flow: scopes requested after the implicit `openid`. */
  readonly oidcScopes?: readonly string[];
  /** OIDC flow: `acr_values` sent space-joined. */
  readonly oidcAcrValues?: readonly string[];
  /** OIDC flow: send a PKCE S256 challenge (reference/mesh.md §5.1: only when true). */
  readonly oidcClientUsePkce?: boolean;
}

/** The two auth-method types this config serves: a bearer JWT, or the OIDC code flow. */
export type AuthMethodType = 'jwt' | 'oidc';

const fail = (message: string) => new AuthnError('config', message);
const isSet = (v: unknown) => v !== undefined && v !== null && v !== '' && v !== 0 && v !== false && !(Array.isArray(v) && v.length === 0);

/**
 * Checks `config` for an auth method of `type` and throws the reference's first error
 * (kind `config`), in the reference's order (reference/mesh.md §4.4, §4.5): fields of
 * the other type must be unset, exactly one key source for `jwt`, CA certs only with
 * their URL, algorithms, mapping targets unique, PEMs parse. Pure: no network.
 * `options.redirectUrisPerRequest`: an `oidc` config need not list redirect URIs (they
 * come with each auth-URL request, see {@link createOidcFlow}).
 *
 * @throws {AuthnError} e.g. `exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL' must be set for type "jwt"`.
 */
export function validateAuthMethodConfig(type: AuthMethodType, config: AuthMethodConfig, options: { readonly redirectUrisPerRequest?: boolean } = {}): void {
  const c = config;
  if (type === 'oidc') {
    const required: [string, unknown][] = [
      ['OIDCDiscoveryURL', c.oidcDiscoveryUrl],
      ['OIDCClientID', c.oidcClientId],
      ['OIDCClientSecret', c.oidcClientSecret],
    ];
    if (!options.redirectUrisPerRequest) required.push(['AllowedRedirectURIs', c.allowedRedirectUris]);
    for (const [name, v] of required) if (!isSet(v)) throw fail(`'${name}' must be set for type "oidc"`);
    const jwtOnly: [string, unknown][] = [
      ['JWTValidationPubKeys', c.jwtValidationPubKeys],
      ['JWKSURL', c.jwksUrl],
      ['JWKSCACert', c.jwksCaCert],
      ['BoundIssuer', c.boundIssuers],
      ['ExpirationLeeway', c.expirationLeewaySeconds],
      ['NotBeforeLeeway', c.notBeforeLeewaySeconds],
      ['ClockSkewLeeway', c.clockSkewLeewaySeconds],
    ];
    for (const [name, v] of jwtOnly) if (isSet(v)) throw fail(`'${name}' must not be set for type "oidc"`);
    validateCommon(c);
    return;
  }
  const oidcOnly: [string, unknown][] = [
    ['OIDCClientID', c.oidcClientId],
    ['OIDCClientSecret', c.oidcClientSecret],
    ['OIDCScopes', c.oidcScopes],
    ['OIDCACRValues', c.oidcAcrValues],
    ['AllowedRedirectURIs', c.allowedRedirectUris],
    ['OIDCClientUsePKCE', c.oidcClientUsePkce],
  ];
  for (const [name, v] of oidcOnly) if (isSet(v)) throw fail(`'${name}' must not be set for type "jwt"`);
  const sources = [c.jwtValidationPubKeys, c.jwksUrl, c.oidcDiscoveryUrl].filter(isSet).length;
  if (sources !== 1) {
    throw fail(`exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL' must be set for type "jwt"`);
  }
  if (isSet(c.jwksCaCert) && !isSet(c.jwksUrl)) throw fail(`'JWKSCACert' should not be set unless 'JWKSURL' is set`);
  if (isSet(c.oidcDiscoveryCaCert) && !isSet(c.oidcDiscoveryUrl)) {
    throw fail(`'OIDCDiscoveryCACert' should not be set unless 'OIDCDiscoveryURL' is set`);
  }
  validateCommon(c);
  (c.jwtValidationPubKeys ?? []).forEach((pem, i) => {
    try {
      parsePublicKeyPem(pem);
    } catch (err) {
      throw fail(`error parsing public key JWTValidationPubKeys[${i}]: ${messageOf(err)}`);
    }
  });
}

function validateCommon(c: AuthMethodConfig): void {
  for (const [name, pem] of [
    ['JWKSCACert', c.jwksCaCert],
    ['OIDCDiscoveryCACert', c.oidcDiscoveryCaCert],
  ] as const) {
    if (isSet(pem) && !parsesAsCertificates(pem!)) throw fail(`could not parse '${name}' value successfully`);
  }
  for (const alg of c.jwtSupportedAlgs ?? []) {
    if (!(SUPPORTED_ALGS as readonly string[]).includes(alg)) throw fail(`Invalid supported algorithm: ${alg}`);
  }
  for (const [name, mappings] of [
    ['ClaimMappings', c.claimMappings],
    ['ListClaimMappings', c.listClaimMappings],
  ] as const) {
    const seen = new Set<string>();
    for (const target of Object.values(mappings ?? {})) {
      if (seen.has(target)) throw fail(`${name} contains multiple mappings for key "${target}"`);
      seen.add(target);
    }
  }
  for (const [name, v] of [
    ['ExpirationLeeway', c.expirationLeewaySeconds],
    ['NotBeforeLeeway', c.notBeforeLeewaySeconds],
    ['ClockSkewLeeway', c.clockSkewLeewaySeconds],
  ] as const) {
    // Go durations below -1 s have no meaning in the reference either; refuse them rather than guess.
    if (v !== undefined && (!Number.isFinite(v) || v < -1)) throw fail(`'${name}' must be -1 (disabled), 0 (default) or positive`);
  }
}

/** True when `pem` holds at least one certificate and every PEM block in it is one. */
export function parsesAsCertificates(pem: string): boolean {
  const blocks = pem.match(/-----BEGIN [^-]+-----[\s\S]+?-----END [^-]+-----/g);
  if (!blocks) return false;
  try {
    for (const b of blocks) new X509Certificate(b);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses one PEM public key (SPKI or PKCS#1) or certificate into a key object, accepting
 * only RSA, ECDSA and Ed25519 keys like the reference (reference/mesh.md §4.4).
 *
 * @throws {Error} `data does not contain any valid RSA, ECDSA, or ED25519 public keys`.
 */
export function parsePublicKeyPem(pem: string) {
  let key;
  try {
    key = pem.includes('CERTIFICATE') ? new X509Certificate(pem).publicKey : createPublicKey(pem);
  } catch {
    key = undefined;
  }
  if (!key || !['rsa', 'rsa-pss', 'ec', 'ed25519'].includes(key.asymmetricKeyType ?? '')) {
    throw new Error('data does not contain any valid RSA, ECDSA, or ED25519 public keys');
  }
  return key;
}
