/**
 * Issuing under a role (reference/secrets-engines.md §7 "Issue / sign"): `issue/:role`
 * (a new key pair, returned once and never stored) and `sign/:role` (a CSR's key). The
 * role's name rules, key type and TTLs apply; the certificate is stored unless the role
 * says `no_store`, and leased when it says `generate_lease`.
 *
 * @module
 */
import { commaList } from '../../../kernel/http/index.js';
import { InputError, hasField, parseDuration } from '../../../kernel/util/duration.js';
import { DEFAULT_LEASE_TTL_S } from '../mounts/table.js';
import type { SecretsRequest, SecretsResult } from '../types.js';
import { buildCertificate, certPem, subjectName, x509, type CertificateSpec } from './certificate.js';
import { signerOf } from './issuers.js';
import { generateKey, keySpec, privateKeyPem, type KeyType, type SigningKey } from './keys.js';
import { checkNames, sansOf } from './names.js';
import type { PkiRole } from './role.js';
import { csrKeyAllowed } from './csr-rules.js';
import { newSerialHex, colonSerial } from './serial.js';
import { pkiStoreOf, type IssuerEntry } from './store.js';

/** Longest common name (RFC 5280 `ub-common-name`). */
const MAX_CN = 64;

/**
 * The certificate lifetime in seconds for a request: `ttl` (else the role's, else the
 * mount's default), capped at the role's `max_ttl` (else the mount's max) — with the
 * reference's warning when the request asked for more. Errors (400): a negative `ttl`, a NotAfter beyond the issuer's
 * (the reference's `leaf_not_after_behavior=err` text).
 */
export function lifetime(
  req: SecretsRequest,
  role: Pick<PkiRole, 'ttl' | 'max_ttl'>,
  issuerNotAfter: number,
): { ttlS: number; notAfter: Date; warnings: string[] } {
  const warnings: string[] = [];
  let ttlS = hasField(req.data, 'ttl') ? parseDuration(req.data.ttl, 'ttl') : 0;
  if (ttlS < 0) throw new InputError('ttl: must not be negative');
  const requested = ttlS > 0;
  ttlS ||= role.ttl || req.mount.config.default_lease_ttl || DEFAULT_LEASE_TTL_S;
  const maxS = role.max_ttl || req.mount.config.max_lease_ttl || DEFAULT_LEASE_TTL_S;
  if (ttlS > maxS) {
    // A default longer than the maximum is quietly the maximum ("whichever shorter"); an asked-for one is capped with a warning.
    if (requested) warnings.push(`TTL "${ttlS}s" is longer than permitted maxTTL "${maxS}s", so maxTTL is being used`);
    ttlS = maxS;
  }
  const notAfter = new Date(Math.floor(req.now.getTime() / 1000) * 1000 + ttlS * 1000);
  if (notAfter.getTime() / 1000 > issuerNotAfter)
    throw new InputError(
      `cannot satisfy request, as TTL would result in notAfter of ${notAfter.toISOString()} that is beyond the expiration of the CA certificate at ${new Date(issuerNotAfter * 1000).toISOString()}`,
    );
  return { ttlS, notAfter, warnings };
}

/** The extended key usages of a role: its flags, then its `ext_key_usage` names. */
const extUsages = (role: PkiRole): string[] => [
  ...(role.server_flag ? ['ServerAuth'] : []),
  ...(role.client_flag ? ['ClientAuth'] : []),
  ...(role.code_signing_flag ? ['CodeSigning'] : []),
  ...(role.email_protection_flag ? ['EmailProtection'] : []),
  ...role.ext_key_usage,
];

/** The names of a CSR: its subject CN and its SANs by kind. */
function csrNames(csr: x509.Pkcs10CertificateRequest): { cn: string; dns: string[]; ips: string[]; uris: string[] } {
  const cn = csr.subjectName.getField('CN')[0] ?? '';
  // The CSR's extension request, parsed by the library into its typed extensions.
  const san = csr.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const items = san?.names.items ?? [];
  const of = (t: string) => items.filter((n) => n.type === t).map((n) => n.value);
  return { cn, dns: [...of('dns'), ...of('email')], ips: of('ip'), uris: of('url') };
}

/** How a reply shows certificates and keys. */
export interface ReplyFormats {
  readonly format: 'pem' | 'der' | 'pem_bundle';
  readonly keyFormat: 'der' | 'pkcs8';
}

/** `format` and `private_key_format` of a request. Errors (400 naming the field): an unknown one. */
export function replyFormats(d: Readonly<Record<string, unknown>>): ReplyFormats {
  const format = String(d.format ?? 'pem') || 'pem';
  if (format !== 'pem' && format !== 'der' && format !== 'pem_bundle')
    throw new InputError(`format: unknown format ${JSON.stringify(format)}; expected pem, der or pem_bundle`);
  const keyFormat = String(d.private_key_format ?? 'der') || 'der';
  if (keyFormat !== 'der' && keyFormat !== 'pkcs8')
    throw new InputError(`private_key_format: unknown format ${JSON.stringify(keyFormat)}; expected der or pkcs8`);
  return { format, keyFormat };
}

/**
 * The reply `data` of an issued certificate in `format` (`pem` default, `der` = base64 DER,
 * `pem_bundle` = certificate, then key, then issuing CA in one PEM text).
 */
export function certReply(o: { cert: x509.X509Certificate; issuer: IssuerEntry; formats: ReplyFormats; key?: SigningKey }): Record<string, unknown> {
  const { format, keyFormat } = o.formats;
  const der = (pem: string) => Buffer.from(new x509.X509Certificate(pem).rawData).toString('base64');
  const pem = certPem(o.cert);
  const keyPem = o.key && privateKeyPem(o.key, keyFormat);
  const data: Record<string, unknown> = {
    certificate:
      format === 'der'
        ? Buffer.from(o.cert.rawData).toString('base64')
        : format === 'pem_bundle'
          ? [pem, keyPem, o.issuer.certificate].filter(Boolean).join('\n')
          : pem,
    issuing_ca: format === 'der' ? der(o.issuer.certificate) : o.issuer.certificate,
    ca_chain: format === 'der' ? o.issuer.ca_chain.map(der) : o.issuer.ca_chain,
    serial_number: colonSerial(o.cert.serialNumber),
    expiration: Math.floor(o.cert.notAfter.getTime() / 1000),
  };
  if (o.key && keyPem) {
    data.private_key = format === 'der' ? Buffer.from(keyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64') : keyPem;
    data.private_key_type = o.key.type;
  }
  return data;
}

/**
 * `issue/:role` (no `csr`) and `sign/:role` (`csr`): checks the request against `role`,
 * signs with the role's issuer, stores and (with `generate_lease`) leases the certificate.
 * Errors (400, the reference's texts): a missing CN where `require_cn`, a name outside
 * the role's rules, a CSR key the role does not allow, a TTL past the issuer's NotAfter.
 */
export async function issueUnderRole(req: SecretsRequest, role: PkiRole, csr?: x509.Pkcs10CertificateRequest): Promise<SecretsResult> {
  const store = pkiStoreOf(req);
  const d = req.data;
  const formats = replyFormats(d);
  const fromCsr = csr ? csrNames(csr) : undefined;
  let cn = String(d.common_name ?? '');
  if (fromCsr && role.use_csr_common_name && fromCsr.cn) cn = fromCsr.cn;
  if (!cn && role.require_cn)
    throw new InputError(
      'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, unless "require_cn" is set to false',
    );
  if (cn.length > MAX_CN) throw new InputError(`common_name: longer than ${MAX_CN} characters`);
  const useCsrSans = fromCsr && role.use_csr_sans;
  const all = sansOf({
    cn,
    altNames: useCsrSans ? fromCsr.dns : commaList(d.alt_names),
    ipSans: useCsrSans ? fromCsr.ips : commaList(d.ip_sans),
    uriSans: useCsrSans ? fromCsr.uris : commaList(d.uri_sans),
    excludeCn: d.exclude_cn_from_sans === true,
  });
  checkNames(role, { cn, dns: [...all.dns, ...all.emails], ips: all.ips, uris: all.uris });
  let key: SigningKey | undefined;
  if (csr) csrKeyAllowed(role, csr.publicKey);
  else {
    if (role.key_type === 'any') throw new InputError('role key type "any" not allowed for issuing certificates, only signing');
    const spec = keySpec(role.key_type, role.key_bits);
    key = await generateKey(spec.type as KeyType, spec.bits);
  }
  const { issuer, signer } = await signerOf(store, role.issuer_ref);
  const { ttlS, notAfter, warnings } = lifetime(req, role, issuer.not_after);
  const spec: CertificateSpec = {
    serialHex: newSerialHex(),
    subject: subjectName({ cn, ou: role.ou, organization: role.organization, country: role.country }),
    notBefore: new Date(req.now.getTime() - role.not_before_duration * 1000),
    notAfter,
    publicKey: csr ? csr.publicKey : key!.publicKey,
    ...all,
    keyUsage: role.key_usage,
    extKeyUsage: extUsages(role),
  };
  const cert = await buildCertificate(spec, signer, await store.urls());
  const serial = colonSerial(cert.serialNumber);
  if (!role.no_store)
    await store.putCert(serial.replaceAll(':', '-'), {
      certificate: certPem(cert),
      issuer_id: issuer.issuer_id,
      not_after: Math.floor(notAfter.getTime() / 1000),
    });
  const data = certReply({ cert, issuer, formats, key });
  const lease = role.generate_lease && !role.no_store ? { leaseDuration: ttlS, lease: { renewable: false, internal: { serial_number: serial } } } : {};
  return { data, ...(warnings.length ? { warnings } : {}), ...lease };
}
