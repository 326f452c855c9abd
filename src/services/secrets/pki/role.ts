/**
 * PKI roles (reference/secrets-engines.md §7 "Roles"): the fields a role takes, their
 * defaults, and how a write builds the stored role. A POST replaces the whole role (the
 * reference's behaviour); every check runs before anything is stored.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, commaList } from '../../../kernel/http/index.js';
import { InputError, hasField, parseDuration } from '../../../kernel/util/duration.js';
import { keySpec } from './keys.js';

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string ("72h")' });

/** The key usages a role may name (Go's `x509.KeyUsage` names without the prefix). */
const KEY_USAGES = [
  'DigitalSignature',
  'ContentCommitment',
  'KeyEncipherment',
  'DataEncipherment',
  'KeyAgreement',
  'CertSign',
  'CRLSign',
  'EncipherOnly',
  'DecipherOnly',
] as const;

/** The extended key usages a role may name (Go's `x509.ExtKeyUsage` names without the prefix). */
const EXT_KEY_USAGES = ['Any', 'ServerAuth', 'ClientAuth', 'CodeSigning', 'EmailProtection', 'TimeStamping', 'OCSPSigning'] as const;

/** One stored role; durations in seconds (0 = the mount's default / maximum). */
export interface PkiRole {
  issuer_ref: string;
  ttl: number;
  max_ttl: number;
  allowed_domains: string[];
  allow_subdomains: boolean;
  allow_bare_domains: boolean;
  allow_glob_domains: boolean;
  allow_wildcard_certificates: boolean;
  allow_any_name: boolean;
  allow_localhost: boolean;
  enforce_hostnames: boolean;
  allow_ip_sans: boolean;
  allowed_uri_sans: string[];
  server_flag: boolean;
  client_flag: boolean;
  code_signing_flag: boolean;
  email_protection_flag: boolean;
  key_type: string;
  key_bits: number;
  key_usage: string[];
  ext_key_usage: string[];
  use_csr_common_name: boolean;
  use_csr_sans: boolean;
  generate_lease: boolean;
  no_store: boolean;
  require_cn: boolean;
  not_before_duration: number;
  ou: string[];
  organization: string[];
  country: string[];
}

/** The reference's defaults for a role written with no fields. */
const DEFAULT_ROLE: PkiRole = {
  issuer_ref: 'default',
  ttl: 0,
  max_ttl: 0,
  allowed_domains: [],
  allow_subdomains: false,
  allow_bare_domains: false,
  allow_glob_domains: false,
  allow_wildcard_certificates: true,
  allow_any_name: false,
  allow_localhost: true,
  enforce_hostnames: true,
  allow_ip_sans: true,
  allowed_uri_sans: [],
  server_flag: true,
  client_flag: true,
  code_signing_flag: false,
  email_protection_flag: false,
  key_type: 'rsa',
  key_bits: 2048,
  key_usage: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
  ext_key_usage: [],
  use_csr_common_name: true,
  use_csr_sans: true,
  generate_lease: false,
  no_store: false,
  require_cn: true,
  not_before_duration: 30,
  ou: [],
  organization: [],
  country: [],
};

const BOOLS = [
  'allow_subdomains',
  'allow_bare_domains',
  'allow_glob_domains',
  'allow_wildcard_certificates',
  'allow_any_name',
  'allow_localhost',
  'enforce_hostnames',
  'allow_ip_sans',
  'server_flag',
  'client_flag',
  'code_signing_flag',
  'email_protection_flag',
  'use_csr_common_name',
  'use_csr_sans',
  'generate_lease',
  'no_store',
  'require_cn',
] as const;
const LISTS = ['allowed_domains', 'allowed_uri_sans', 'ou', 'organization', 'country'] as const;

/** Field schemas of `roles/:name`. */
export const ROLE_FIELDS = {
  issuer_ref: Type.String({ maxLength: 256, description: 'the issuer that signs this role\'s certificates: "default", an issuer id or name' }),
  ttl: { ...Duration, description: "lifetime of issued certificates; default the mount's default TTL" },
  max_ttl: { ...Duration, description: "longest lifetime a request may ask for; default the mount's max TTL" },
  ...Object.fromEntries(BOOLS.map((b) => [b, Type.Boolean({ description: `${b} (the reference's role field; default ${String(DEFAULT_ROLE[b])})` })])),
  ...Object.fromEntries(LISTS.map((l) => [l, CommaList(`${l} (list or comma-separated)`)])),
  key_type: Type.String({ description: 'rsa (default), ec, ed25519, or any (sign only)' }),
  key_bits: Type.Integer({ minimum: 0, maximum: 8192, description: "0 = the type's default (rsa 2048, ec 256)" }),
  key_usage: CommaList(`key usages: ${KEY_USAGES.join(', ')}`),
  ext_key_usage: CommaList(`extended key usages beside the flags: ${EXT_KEY_USAGES.join(', ')}`),
  not_before_duration: { ...Duration, description: 'how far NotBefore is back-dated (default 30s)' },
};

const nonNegative = (v: unknown, field: string): number => {
  const s = parseDuration(v, field);
  if (s < 0) throw new InputError(`${field}: must not be negative`);
  return s;
};

/** Names in `values` matched case-insensitively against `known`; errors (400) name `field` and the unknown value. */
function usages(values: string[], known: readonly string[], field: string): string[] {
  return values.map((v) => {
    const hit = known.find((k) => k.toLowerCase() === v.replace(/^(ExtKeyUsage|KeyUsage)/i, '').toLowerCase());
    if (!hit) throw new InputError(`${field}: unknown usage ${JSON.stringify(v)}; expected one of ${known.join(', ')}`);
    return hit;
  });
}

/**
 * The role a POST of `d` stores (the whole role; fields not given take the defaults).
 * Errors (400 naming the field): unparsable or negative durations, `ttl` above `max_ttl`,
 * an unknown key type or bit length, an unknown usage.
 */
export function roleFromFields(d: Readonly<Record<string, unknown>>): PkiRole {
  const r: PkiRole = structuredClone(DEFAULT_ROLE);
  if (hasField(d, 'issuer_ref')) r.issuer_ref = String(d.issuer_ref) || 'default';
  if (hasField(d, 'ttl')) r.ttl = nonNegative(d.ttl, 'ttl');
  if (hasField(d, 'max_ttl')) r.max_ttl = nonNegative(d.max_ttl, 'max_ttl');
  if (r.max_ttl && r.ttl > r.max_ttl) throw new InputError('ttl: "ttl" value must be less than "max_ttl" value');
  for (const b of BOOLS) if (hasField(d, b)) r[b] = d[b] === true;
  for (const l of LISTS) if (hasField(d, l)) r[l] = commaList(d[l]);
  const spec = keySpec(d.key_type ?? 'rsa', d.key_bits ?? 0, true);
  r.key_type = spec.type;
  r.key_bits = spec.bits;
  if (hasField(d, 'key_usage')) r.key_usage = usages(commaList(d.key_usage), KEY_USAGES, 'key_usage');
  if (hasField(d, 'ext_key_usage')) r.ext_key_usage = usages(commaList(d.ext_key_usage), EXT_KEY_USAGES, 'ext_key_usage');
  if (hasField(d, 'not_before_duration')) r.not_before_duration = nonNegative(d.not_before_duration, 'not_before_duration');
  return r;
}

/** A stored role as `GET roles/:name` shows it (durations in seconds, as the reference's current replies). */
export function roleView(r: PkiRole): Record<string, unknown> {
  return { ...DEFAULT_ROLE, ...r };
}
