/**
 * The `config` of a `jwt`/`oidc` auth mount (reference: vault-plugin-auth-jwt
 * `auth/<mount>/config`): where signing keys come from (exactly one of
 * `jwt_validation_pubkeys`, `jwks_url`, `oidc_discovery_url`), the OIDC client used by
 * the browser flow, `bound_issuer` and `default_role`. Stored as one JSON entry in the
 * mount's storage (behind the barrier); `oidc_client_secret` is never read back.
 * Mapping onto the kernel's {@link AuthMethodConfig} lives here too.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, CommaList, commaList } from '../../../../kernel/http/index.js';
import { SUPPORTED_ALGS, type AuthMethodConfig } from '../../../../kernel/authn/index.js';
import { json, type Backend } from '../../../../kernel/store/index.js';

/** The stored config. Empty strings and lists mean "not set". */
export interface JwtConfig {
  oidc_discovery_url: string;
  oidc_discovery_ca_pem: string;
  oidc_client_id: string;
  oidc_client_secret: string;
  jwks_url: string;
  jwks_ca_pem: string;
  jwt_validation_pubkeys: string[];
  jwt_supported_algs: string[];
  bound_issuer: string;
  default_role: string;
}

const Str = (description: string) => Type.String({ description });

/** Field schemas of `config` writes. */
export const CONFIG_FIELDS = {
  oidc_discovery_url: Str('issuer URL whose /.well-known/openid-configuration names the signing keys (and the OIDC endpoints)'),
  oidc_discovery_ca_pem: Str('PEM CA bundle trusted for the discovery URL; empty = system roots'),
  oidc_client_id: Str('OAuth client id of the OIDC browser flow'),
  oidc_client_secret: Str('OAuth client secret of the OIDC browser flow; never returned on read'),
  jwks_url: Str('URL of a JWK set used to verify JWT signatures'),
  jwks_ca_pem: Str('PEM CA bundle trusted for jwks_url; empty = system roots'),
  jwt_validation_pubkeys: CommaList('PEM public keys used to verify JWT signatures'),
  jwt_supported_algs: CommaList('accepted signing algorithms; empty = RS256'),
  bound_issuer: Str('the iss claim JWTs must carry (JWKS and static keys)'),
  default_role: Str('role used when a login names none'),
};

const KEY = 'config';

/** Reads the mount's config; undefined when never written. */
export async function readConfig(storage: Backend): Promise<JwtConfig | undefined> {
  return json.decode<JwtConfig>(await storage.get(KEY));
}

/** Stores `c` as the mount's config. */
export async function writeConfig(storage: Backend, c: JwtConfig): Promise<void> {
  await storage.put(KEY, json.encode(c));
}

/**
 * Builds a config from a write's fields (a write replaces the whole config, as the
 * reference's does). Errors (400): not exactly one key source, a CA PEM without its URL,
 * a client id without secret, an unknown algorithm.
 */
export function configFromFields(d: Readonly<Record<string, unknown>>): JwtConfig {
  const s = (k: string) => (d[k] === undefined ? '' : String(d[k]).trim());
  const pem = (k: string) => (d[k] === undefined || !String(d[k]).trim() ? '' : String(d[k])); // kept as given
  const c: JwtConfig = {
    oidc_discovery_url: s('oidc_discovery_url'),
    oidc_discovery_ca_pem: pem('oidc_discovery_ca_pem'),
    oidc_client_id: s('oidc_client_id'),
    oidc_client_secret: s('oidc_client_secret'),
    jwks_url: s('jwks_url'),
    jwks_ca_pem: pem('jwks_ca_pem'),
    // PEMs contain no commas, but one string may hold several; keep each given item whole.
    jwt_validation_pubkeys:
      d.jwt_validation_pubkeys === undefined
        ? []
        : (Array.isArray(d.jwt_validation_pubkeys) ? d.jwt_validation_pubkeys.map(String) : [String(d.jwt_validation_pubkeys)]).filter((k) => k.trim()),
    jwt_supported_algs: commaList(d.jwt_supported_algs),
    bound_issuer: s('bound_issuer'),
    default_role: s('default_role').toLowerCase(),
  };
  const sources = [c.jwt_validation_pubkeys.length > 0, !!c.jwks_url, !!c.oidc_discovery_url].filter(Boolean).length;
  if (sources !== 1) throw badRequest(`exactly one of 'jwt_validation_pubkeys', 'jwks_url' or 'oidc_discovery_url' must be set`);
  if (c.oidc_discovery_ca_pem && !c.oidc_discovery_url) throw badRequest(`'oidc_discovery_ca_pem' must not be set unless 'oidc_discovery_url' is set`);
  if (c.jwks_ca_pem && !c.jwks_url) throw badRequest(`'jwks_ca_pem' must not be set unless 'jwks_url' is set`);
  if (!!c.oidc_client_id !== !!c.oidc_client_secret) throw badRequest(`both 'oidc_client_id' and 'oidc_client_secret' must be set for OIDC`);
  if (c.oidc_client_id && !c.oidc_discovery_url) throw badRequest(`'oidc_discovery_url' must be set for OIDC`);
  for (const alg of c.jwt_supported_algs) {
    if (!(SUPPORTED_ALGS as readonly string[]).includes(alg)) throw badRequest(`jwt_supported_algs: invalid supported algorithm: ${alg}`);
  }
  return c;
}

/** The wire shape of `GET config`: everything but the client secret. */
export function configView(c: JwtConfig): Record<string, unknown> {
  const { oidc_client_secret: _secret, ...rest } = c;
  return { ...rest, jwt_validation_pubkeys: [...c.jwt_validation_pubkeys], jwt_supported_algs: [...c.jwt_supported_algs] };
}

/** Per-role validation settings that go into the kernel's JWT validator. Leeways in seconds (0 = default, -1 = off). */
export interface ValidationSettings {
  readonly boundAudiences: readonly string[];
  readonly expirationLeeway: number;
  readonly notBeforeLeeway: number;
  readonly clockSkewLeeway: number;
}

/** The kernel config of the JWT validator for `c` and a role: key source, issuer, algorithms, audiences, leeways. */
export function validatorConfig(c: JwtConfig, v: ValidationSettings): AuthMethodConfig {
  return {
    jwtValidationPubKeys: c.jwt_validation_pubkeys.length ? c.jwt_validation_pubkeys : undefined,
    jwksUrl: c.jwks_url || undefined,
    jwksCaCert: c.jwks_ca_pem || undefined,
    oidcDiscoveryUrl: c.jwks_url || c.jwt_validation_pubkeys.length ? undefined : c.oidc_discovery_url,
    oidcDiscoveryCaCert: c.jwks_url || c.jwt_validation_pubkeys.length ? undefined : c.oidc_discovery_ca_pem || undefined,
    jwtSupportedAlgs: c.jwt_supported_algs,
    boundIssuers: c.bound_issuer ? [c.bound_issuer] : [],
    boundAudiences: v.boundAudiences,
    expirationLeewaySeconds: v.expirationLeeway,
    notBeforeLeewaySeconds: v.notBeforeLeeway,
    clockSkewLeewaySeconds: v.clockSkewLeeway,
  };
}

/** The kernel config of the OIDC browser flow for `c`; redirect URIs and scopes come per role. */
export function flowConfig(c: JwtConfig): AuthMethodConfig {
  return {
    oidcDiscoveryUrl: c.oidc_discovery_url,
    oidcDiscoveryCaCert: c.oidc_discovery_ca_pem || undefined,
    oidcClientId: c.oidc_client_id,
    oidcClientSecret: c.oidc_client_secret,
    jwtSupportedAlgs: c.jwt_supported_algs,
  };
}
