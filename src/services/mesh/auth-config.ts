/**
 * An auth method's `Config` as the discovery service receives it (the reference's wire
 * names, reference/mesh.md §4.3–§4.5) → the authentication kernel's configs, with type
 * checks that name the field, and the kernel's pure validation. Unknown keys are refused,
 * as the reference's config decoder does. Errors are 400 `Invalid Auth Method: <why>` (the
 * reference answers 500; reference/README.md rule 3).
 *
 * @module
 */
import { AuthnError, validateAuthMethodConfig, validateKubernetesConfig, type AuthMethodConfig, type KubernetesConfig } from '../../kernel/authn/index.js';
import { badRequest } from '../../kernel/http/index.js';
import { jsonGoDurationNs } from '../../kernel/util/go-duration.js';

/** Auth-method types the discovery service knows (`oidc` only with the enterprise switch, §4.1). */
export const AUTH_METHOD_TYPES = ['kubernetes', 'jwt', 'oidc'] as const;
/** One of {@link AUTH_METHOD_TYPES}. */
export type AuthMethodType = (typeof AUTH_METHOD_TYPES)[number];

/** A `Config` object as sent and stored (wire names). */
export type WireConfig = Readonly<Record<string, unknown>>;

const invalid = (why: string) => badRequest(`Invalid Auth Method: ${why}`);

type Kind = 'string' | 'strings' | 'map' | 'duration' | 'bool';

/** Wire fields of `jwt` and `oidc` configs and their JSON kinds (reference/mesh.md §4.4, §4.5). */
const JWT_FIELDS: Readonly<Record<string, Kind>> = {
  JWTValidationPubKeys: 'strings',
  JWKSURL: 'string',
  JWKSCACert: 'string',
  OIDCDiscoveryURL: 'string',
  OIDCDiscoveryCACert: 'string',
  JWTSupportedAlgs: 'strings',
  BoundAudiences: 'strings',
  BoundIssuer: 'string',
  ClaimMappings: 'map',
  ListClaimMappings: 'map',
  ExpirationLeeway: 'duration',
  NotBeforeLeeway: 'duration',
  ClockSkewLeeway: 'duration',
  OIDCClientID: 'string',
  OIDCClientSecret: 'string',
  AllowedRedirectURIs: 'strings',
  OIDCScopes: 'strings',
  OIDCACRValues: 'strings',
  OIDCClientUsePKCE: 'bool',
  VerboseOIDCLogging: 'bool',
};

const KUBERNETES_FIELDS: Readonly<Record<string, Kind>> = { Host: 'string', CACert: 'string', ServiceAccountJWT: 'string' };

/**
 * Checks the JSON kinds of `config`'s fields for `type`.
 * @throws 400 `Invalid Auth Method: Config has invalid keys: A, B` or `… Config.<Field> must be <kind>`.
 */
function checkKinds(type: AuthMethodType, config: WireConfig): void {
  const fields = type === 'kubernetes' ? KUBERNETES_FIELDS : JWT_FIELDS;
  const unknown = Object.keys(config).filter((k) => !Object.hasOwn(fields, k));
  if (unknown.length > 0) throw invalid(`Config has invalid keys: ${unknown.sort().join(', ')}`);
  for (const [key, kind] of Object.entries(fields)) {
    const v = config[key];
    if (v === undefined || v === null) continue;
    const ok =
      kind === 'string'
        ? typeof v === 'string'
        : kind === 'bool'
          ? typeof v === 'boolean'
          : kind === 'strings'
            ? Array.isArray(v) && v.every((s) => typeof s === 'string')
            : kind === 'map'
              ? typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((s) => typeof s === 'string')
              : durationSeconds(v) !== undefined;
    if (!ok) {
      const what = { string: 'a string', bool: 'a boolean', strings: 'a list of strings', map: 'a map of strings', duration: 'a duration' }[kind];
      throw invalid(`Config.${key} must be ${what}`);
    }
  }
}

/** A Go duration (string, or a number of nanoseconds) → the kernel's leeway seconds: negative → -1 (disabled). */
function durationSeconds(v: unknown): number | undefined {
  const ns = typeof v === 'number' || typeof v === 'string' ? jsonGoDurationNs(v) : undefined;
  if (typeof ns !== 'number') return undefined;
  return ns < 0 ? -1 : ns / 1e9;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const strs = (v: unknown) => (Array.isArray(v) ? (v as string[]) : undefined);
const map = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, string>) : undefined);
const dur = (v: unknown) => (v === undefined || v === null ? undefined : durationSeconds(v));

/** The kernel's {@link AuthMethodConfig} of a `jwt` / `oidc` wire config (kinds already checked). */
export function jwtConfigOf(c: WireConfig): AuthMethodConfig {
  const issuer = str(c.BoundIssuer);
  return {
    jwtValidationPubKeys: strs(c.JWTValidationPubKeys),
    jwksUrl: str(c.JWKSURL),
    jwksCaCert: str(c.JWKSCACert),
    oidcDiscoveryUrl: str(c.OIDCDiscoveryURL),
    oidcDiscoveryCaCert: str(c.OIDCDiscoveryCACert),
    jwtSupportedAlgs: strs(c.JWTSupportedAlgs),
    boundAudiences: strs(c.BoundAudiences),
    boundIssuers: issuer === undefined ? undefined : [issuer],
    claimMappings: map(c.ClaimMappings),
    listClaimMappings: map(c.ListClaimMappings),
    expirationLeewaySeconds: dur(c.ExpirationLeeway),
    notBeforeLeewaySeconds: dur(c.NotBeforeLeeway),
    clockSkewLeewaySeconds: dur(c.ClockSkewLeeway),
    oidcClientId: str(c.OIDCClientID),
    oidcClientSecret: str(c.OIDCClientSecret),
    allowedRedirectUris: strs(c.AllowedRedirectURIs),
    oidcScopes: strs(c.OIDCScopes),
    oidcAcrValues: strs(c.OIDCACRValues),
    oidcClientUsePkce: c.OIDCClientUsePKCE === true,
  };
}

/** The kernel's {@link KubernetesConfig} of a `kubernetes` wire config (validated). */
export function kubernetesConfigOf(c: WireConfig): KubernetesConfig {
  return { host: String(c.Host ?? ''), caCert: String(c.CACert ?? ''), serviceAccountJWT: String(c.ServiceAccountJWT ?? '') };
}

/**
 * Checks `config` for an auth method of `type` without touching the network
 * (reference/mesh.md §4.2–§4.5).
 * @throws 400 `Invalid Auth Method: <the kernel's text>`, e.g.
 *   `Invalid Auth Method: Config.Host is required`.
 */
export function checkAuthMethodConfig(type: AuthMethodType, config: unknown): void {
  if (config === undefined || config === null) config = {};
  if (typeof config !== 'object' || Array.isArray(config)) throw invalid('Config must be an object');
  const c = config as WireConfig;
  checkKinds(type, c);
  try {
    if (type === 'kubernetes') validateKubernetesConfig(kubernetesConfigOf(c));
    else validateAuthMethodConfig(type, jwtConfigOf(c));
  } catch (err) {
    if (err instanceof AuthnError) throw invalid(err.message);
    throw err;
  }
}

/** Names the identity of a method's logins offers to bind names (reference/mesh.md §3.5): `value.<key>` per claim mapping, or the service-account fields. */
export function projectedVarNames(type: AuthMethodType, config: WireConfig): string[] {
  if (type === 'kubernetes') return ['serviceaccount.namespace', 'serviceaccount.name', 'serviceaccount.uid'];
  return Object.values(map(config.ClaimMappings) ?? {}).map((k) => `value.${k}`);
}

/**
 * A method's blank identity for write-time selector checks (reference/mesh.md §6.6): the
 * service-account struct, or the `value`/`list` maps (empty objects take any key).
 */
export function blankSelectable(type: AuthMethodType): Record<string, unknown> {
  if (type === 'kubernetes') return { serviceaccount: { namespace: '', name: '', uid: '' } };
  return { value: {}, list: {} };
}
