/**
 * An auth method's `Config` on the scheduler's wire (reference/sched.md §2.2, spec 002
 * "`Config` fields"): its stored shape, its Go struct schema for decoding, the per-type
 * checks with the reference's texts (§2.3), the deeper checks of the authentication
 * kernel ({@link validateAuthMethodConfig}) mapped from the wire names, and the read shape
 * with secrets redacted.
 *
 * @module
 */
import { AuthnError, validateAuthMethodConfig, type AuthMethodConfig } from '../../../kernel/authn/index.js';
import { SECOND_NS, wireDuration } from './duration.js';
import { Go } from '../../../kernel/util/go-schema.js';

/** The private key a client assertion is signed with (`OIDCClientAssertion.PrivateKey`). */
interface ClientAssertionKey {
  readonly PemKey: string;
  readonly PemKeyFile: string;
  readonly PemCert: string;
  readonly PemCertFile: string;
  readonly KeyIDHeader: string;
  readonly KeyID: string;
}

/** `OIDCClientAssertion`: a signed JWT sent to the provider instead of (or built from) the client secret. */
interface ClientAssertion {
  readonly KeySource: string;
  readonly KeyAlgorithm: string;
  /** Defaults to `[OIDCDiscoveryURL]` (sched.md §2.3 canonicalize). */
  readonly Audience: readonly string[] | null;
  readonly ExtraHeaders: Readonly<Record<string, string>> | null;
  readonly PrivateKey: ClientAssertionKey | null;
  readonly ClientSecret: string;
}

/**
 * A stored `Config` (sched.md §2.2). `null` lists and maps are unset (rendered `null`, as
 * Go renders nil); leeways are nanoseconds (rendered as Go duration strings, `""` for 0).
 */
export interface AuthMethodWireConfig {
  readonly JWTValidationPubKeys: readonly string[] | null;
  readonly JWKSURL: string;
  readonly OIDCDiscoveryURL: string;
  readonly OIDCClientID: string;
  readonly OIDCClientSecret: string;
  readonly OIDCClientAssertion: ClientAssertion | null;
  readonly OIDCEnablePKCE: boolean;
  readonly OIDCDisableUserInfo: boolean;
  readonly OIDCScopes: readonly string[] | null;
  readonly BoundAudiences: readonly string[] | null;
  readonly BoundIssuer: readonly string[] | null;
  readonly AllowedRedirectURIs: readonly string[] | null;
  readonly DiscoveryCaPem: readonly string[] | null;
  readonly JWKSCACert: string;
  readonly SigningAlgs: readonly string[] | null;
  /** Nanoseconds. */
  readonly ExpirationLeeway: number;
  /** Nanoseconds. */
  readonly NotBeforeLeeway: number;
  /** Nanoseconds. */
  readonly ClockSkewLeeway: number;
  readonly ClaimMappings: Readonly<Record<string, string>> | null;
  readonly ListClaimMappings: Readonly<Record<string, string>> | null;
  readonly VerboseLogging: boolean;
}

/** Go struct of `OIDCClientAssertion.PrivateKey`. */
const KeyBody = Go.struct('OIDCClientAssertionKey', {
  PemKey: Go.string(),
  PemKeyFile: Go.string(),
  PemCert: Go.string(),
  PemCertFile: Go.string(),
  KeyIDHeader: Go.string(),
  KeyID: Go.string(),
});

/** Go struct of `OIDCClientAssertion`. */
const AssertionBody = Go.struct('OIDCClientAssertion', {
  KeySource: Go.string(),
  KeyAlgorithm: Go.string(),
  Audience: Go.strings(),
  ExtraHeaders: Go.lenientMap(),
  PrivateKey: KeyBody,
  ClientSecret: Go.string(),
});

/** Go struct of `Config` (a field of the declared auth-method body), fields in the reference's output order (sched.md §2.2). */
export const ConfigBody = Go.struct('ACLAuthMethodConfig', {
  JWTValidationPubKeys: Go.strings(),
  JWKSURL: Go.string(),
  OIDCDiscoveryURL: Go.string(),
  OIDCClientID: Go.string(),
  OIDCClientSecret: Go.string(),
  OIDCClientAssertion: AssertionBody,
  OIDCEnablePKCE: Go.bool(),
  OIDCDisableUserInfo: Go.bool(),
  OIDCScopes: Go.strings(),
  BoundAudiences: Go.strings(),
  BoundIssuer: Go.strings(),
  AllowedRedirectURIs: Go.strings(),
  DiscoveryCaPem: Go.strings(),
  JWKSCACert: Go.string(),
  SigningAlgs: Go.strings(),
  ExpirationLeeway: Go.duration(),
  NotBeforeLeeway: Go.duration(),
  ClockSkewLeeway: Go.duration(),
  ClaimMappings: Go.lenientMap(),
  ListClaimMappings: Go.lenientMap(),
  VerboseLogging: Go.bool(),
});

/** What the read shape puts in place of a secret (sched.md §2.2 "Sanitize"). */
const REDACTED = 'redacted';

const empty = (v: readonly unknown[] | null | undefined) => !v || v.length === 0;

/**
 * Canonicalizes a config as the reference does before validating (sched.md §2.3): a client
 * assertion's `Audience` defaults to `[OIDCDiscoveryURL]`.
 */
export function canonicalConfig(c: AuthMethodWireConfig): AuthMethodWireConfig {
  const a = c.OIDCClientAssertion;
  if (!a || !empty(a.Audience) || c.OIDCDiscoveryURL === '') return c;
  return { ...c, OIDCClientAssertion: { ...a, Audience: [c.OIDCDiscoveryURL] } };
}

/**
 * Puts back the stored secrets where `incoming` carries the literal `redacted` a read
 * returned, so PUTting back a read method keeps them (reference/README.md rule 3: the
 * reference overwrites them, a defect).
 */
export function keepStoredSecrets(incoming: AuthMethodWireConfig, stored: AuthMethodWireConfig | null): AuthMethodWireConfig {
  if (!stored) return incoming;
  const keep = (v: string, old: string | undefined) => (v === REDACTED && old !== undefined ? old : v);
  const a = incoming.OIDCClientAssertion;
  const oldA = stored.OIDCClientAssertion;
  return {
    ...incoming,
    OIDCClientSecret: keep(incoming.OIDCClientSecret, stored.OIDCClientSecret),
    OIDCClientAssertion: a && {
      ...a,
      ClientSecret: keep(a.ClientSecret, oldA?.ClientSecret),
      PrivateKey: a.PrivateKey && { ...a.PrivateKey, PemKey: keep(a.PrivateKey.PemKey, oldA?.PrivateKey?.PemKey) },
    },
  };
}

/**
 * The errors of `config` for an auth method of `type`, without the `invalid config: `
 * prefix (sched.md §2.3): the reference's required fields first (`missing OIDCDiscoveryURL`,
 * `missing OIDCClientID`; for `JWT` `JWT auth method requires either OIDCDiscoveryURL, or
 * JWKS URL, or JWTValidationPubKeys set`), then spec 002's additions for `OIDC`
 * (`missing OIDCClientSecret` unless a client assertion stands in, `missing AllowedRedirectURIs`),
 * the client assertion's `invalid client assertion config: missing Audience`; and when all
 * of these pass, the kernel's first error (PEM keys and certificates parse, `SigningAlgs`
 * supported, mapping targets unique). An unknown `type` has no config errors (its own
 * error is reported). Pure: no network.
 */
export function configErrors(type: string, c: AuthMethodWireConfig): string[] {
  const errors: string[] = [];
  if (type === 'OIDC') {
    if (c.OIDCDiscoveryURL === '') errors.push('missing OIDCDiscoveryURL');
    if (c.OIDCClientID === '') errors.push('missing OIDCClientID');
    if (c.OIDCClientSecret === '' && !c.OIDCClientAssertion) errors.push('missing OIDCClientSecret');
    if (empty(c.AllowedRedirectURIs)) errors.push('missing AllowedRedirectURIs');
    if (c.OIDCClientAssertion && empty(c.OIDCClientAssertion.Audience)) {
      errors.push('invalid client assertion config: missing Audience');
    }
  } else if (type === 'JWT') {
    if (c.OIDCDiscoveryURL === '' && c.JWKSURL === '' && empty(c.JWTValidationPubKeys)) {
      errors.push('JWT auth method requires either OIDCDiscoveryURL, or JWKS URL, or JWTValidationPubKeys set');
    }
  } else {
    return errors;
  }
  if (errors.length > 0) return errors;
  try {
    for (const kc of kernelConfigs(type, c)) validateAuthMethodConfig(type === 'OIDC' ? 'oidc' : 'jwt', kc);
  } catch (err) {
    if (!(err instanceof AuthnError)) throw err;
    errors.push(err.message.replaceAll(`'OIDCDiscoveryCACert'`, `'DiscoveryCaPem'`));
  }
  return errors;
}

/** Leeway nanoseconds → the kernel's seconds (`-1` disables, as a negative Go leeway does). */
const leewaySeconds = (ns: number) => (ns < 0 ? -1 : ns / SECOND_NS);
const list = (v: readonly string[] | null) => (empty(v) ? undefined : (v as readonly string[]));
const text = (v: string) => (v === '' ? undefined : v);

/**
 * The kernel's configs for `c`. The kernel takes exactly one JWT key source and refuses
 * JWT-only fields on OIDC methods (the discovery service's rules); the scheduler's
 * reference allows several sources and ignores the others, so each JWT key source set is
 * checked on its own and an OIDC method passes only the fields its flow uses.
 */
export function kernelConfigs(type: 'OIDC' | 'JWT', c: AuthMethodWireConfig): AuthMethodConfig[] {
  const common = {
    jwtSupportedAlgs: list(c.SigningAlgs),
    boundAudiences: list(c.BoundAudiences),
    claimMappings: c.ClaimMappings ?? undefined,
    listClaimMappings: c.ListClaimMappings ?? undefined,
  };
  const discoveryCa = empty(c.DiscoveryCaPem) ? undefined : (c.DiscoveryCaPem as string[]).join('\n');
  if (type === 'OIDC') {
    return [
      {
        ...common,
        oidcDiscoveryUrl: c.OIDCDiscoveryURL,
        oidcDiscoveryCaCert: discoveryCa,
        oidcClientId: c.OIDCClientID,
        // A client assertion authenticates the client in place of the secret (sched.md §2.2).
        oidcClientSecret: text(c.OIDCClientSecret) ?? (c.OIDCClientAssertion ? 'client-assertion' : undefined),
        allowedRedirectUris: list(c.AllowedRedirectURIs),
        oidcScopes: list(c.OIDCScopes),
        oidcClientUsePkce: c.OIDCEnablePKCE,
      },
    ];
  }
  const jwt = {
    ...common,
    boundIssuers: list(c.BoundIssuer),
    expirationLeewaySeconds: leewaySeconds(c.ExpirationLeeway),
    notBeforeLeewaySeconds: leewaySeconds(c.NotBeforeLeeway),
    clockSkewLeewaySeconds: leewaySeconds(c.ClockSkewLeeway),
  };
  const out: AuthMethodConfig[] = [];
  if (c.JWKSURL !== '') out.push({ ...jwt, jwksUrl: c.JWKSURL, jwksCaCert: text(c.JWKSCACert) });
  if (c.OIDCDiscoveryURL !== '') out.push({ ...jwt, oidcDiscoveryUrl: c.OIDCDiscoveryURL, oidcDiscoveryCaCert: discoveryCa });
  if (!empty(c.JWTValidationPubKeys)) out.push({ ...jwt, jwtValidationPubKeys: c.JWTValidationPubKeys as string[] });
  return out;
}

const redact = (v: string) => (v === '' ? v : REDACTED);

/**
 * The JSON read shape of a config (sched.md §2.2): secrets (`OIDCClientSecret`, the client
 * assertion's `ClientSecret` and `PrivateKey.PemKey`) replaced by `redacted` when set,
 * leeways as Go duration strings (`""` for 0), unset lists and maps `null`.
 */
export function renderConfig(c: AuthMethodWireConfig): Record<string, unknown> {
  const a = c.OIDCClientAssertion;
  return {
    ...c,
    OIDCClientSecret: redact(c.OIDCClientSecret),
    OIDCClientAssertion: a && {
      ...a,
      ClientSecret: redact(a.ClientSecret),
      PrivateKey: a.PrivateKey && { ...a.PrivateKey, PemKey: redact(a.PrivateKey.PemKey) },
    },
    ExpirationLeeway: wireDuration(c.ExpirationLeeway),
    NotBeforeLeeway: wireDuration(c.NotBeforeLeeway),
    ClockSkewLeeway: wireDuration(c.ClockSkewLeeway),
  };
}
