/**
 * Builds X.509 certificates with @peculiar/x509 (reference/secrets-engines.md §7): the
 * subject, serial, validity, subject alternative names, key usages and the CA or leaf
 * extensions the reference writes, AIA / CRL distribution point URLs from `config/urls`,
 * signed by an issuer's key. Also the PEM helpers and the CSR parser (bounded).
 *
 * @module
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata API
import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { InputError } from '../../../kernel/util/duration.js';
import type { SigningKey } from './keys.js';
import type { UrlsConfig } from './store.js';

export { x509 };

/** Largest CSR accepted, in bytes of PEM text (an input bound; real CSRs are a few KiB). */
const MAX_CSR_BYTES = 64 * 1024;

/** Subject fields besides the common name (the reference's `ou`, `organization`, `country`…). */
export interface SubjectFields {
  readonly cn: string;
  readonly ou?: readonly string[];
  readonly organization?: readonly string[];
  readonly country?: readonly string[];
}

/** A JSON subject name with the CN last, as the reference writes it (C, O, OU, CN). */
export function subjectName(s: SubjectFields): x509.JsonName {
  const name: x509.JsonName = [];
  for (const c of s.country ?? []) name.push({ C: [c] });
  for (const o of s.organization ?? []) name.push({ O: [o] });
  for (const u of s.ou ?? []) name.push({ OU: [u] });
  if (s.cn) name.push({ CN: [s.cn] });
  return name;
}

/** What a new certificate says, apart from its issuer. */
export interface CertificateSpec {
  readonly serialHex: string;
  /** A JSON name, or the exact subject of a CSR (sign-verbatim, use_csr_values). */
  readonly subject: x509.JsonName | x509.Name;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly publicKey: webcrypto.CryptoKey | x509.PublicKey;
  readonly dns?: readonly string[];
  readonly emails?: readonly string[];
  readonly ips?: readonly string[];
  readonly uris?: readonly string[];
  /** CA certificates: basic constraints CA:TRUE with this path length (-1 = none), keyCertSign|cRLSign. */
  readonly ca?: { readonly maxPathLength: number };
  /** Leaf key usage names (role.ts KEY_USAGES); ignored for CAs. */
  readonly keyUsage?: readonly string[];
  /** Extended key usage names (role.ts EXT_KEY_USAGES). */
  readonly extKeyUsage?: readonly string[];
}

/** The signer: the issuer's certificate (absent for a self-signed root) and key. */
export interface Signer {
  readonly cert?: x509.X509Certificate;
  readonly key: SigningKey;
}

const KU_FLAGS: Readonly<Record<string, number>> = {
  DigitalSignature: x509.KeyUsageFlags.digitalSignature,
  ContentCommitment: x509.KeyUsageFlags.nonRepudiation,
  KeyEncipherment: x509.KeyUsageFlags.keyEncipherment,
  DataEncipherment: x509.KeyUsageFlags.dataEncipherment,
  KeyAgreement: x509.KeyUsageFlags.keyAgreement,
  CertSign: x509.KeyUsageFlags.keyCertSign,
  CRLSign: x509.KeyUsageFlags.cRLSign,
  EncipherOnly: x509.KeyUsageFlags.encipherOnly,
  DecipherOnly: x509.KeyUsageFlags.decipherOnly,
};
const EKU_OIDS: Readonly<Record<string, string>> = {
  Any: '2.5.29.37.0',
  ServerAuth: x509.ExtendedKeyUsage.serverAuth,
  ClientAuth: x509.ExtendedKeyUsage.clientAuth,
  CodeSigning: x509.ExtendedKeyUsage.codeSigning,
  EmailProtection: x509.ExtendedKeyUsage.emailProtection,
  TimeStamping: x509.ExtendedKeyUsage.timeStamping,
  OCSPSigning: x509.ExtendedKeyUsage.ocspSigning,
};

/**
 * Signs a certificate for `spec` with `signer` (self-signed when `signer.cert` is absent),
 * adding subject and authority key identifiers and, from `urls`, the AIA issuing
 * certificate and OCSP URLs and the CRL distribution points.
 */
export async function buildCertificate(spec: CertificateSpec, signer: Signer, urls: UrlsConfig): Promise<x509.X509Certificate> {
  const publicKey = spec.publicKey instanceof x509.PublicKey ? await spec.publicKey.export() : spec.publicKey;
  const extensions: x509.Extension[] = [];
  if (spec.ca) {
    const pathLength = spec.ca.maxPathLength >= 0 ? spec.ca.maxPathLength : undefined;
    extensions.push(new x509.BasicConstraintsExtension(true, pathLength, true));
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true));
  } else {
    const flags = (spec.keyUsage ?? []).reduce((f, u) => f | (KU_FLAGS[u] ?? 0), 0);
    if (flags) extensions.push(new x509.KeyUsagesExtension(flags, true));
    extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
  }
  const eku = (spec.extKeyUsage ?? []).map((u) => EKU_OIDS[u]).filter(Boolean);
  if (eku.length) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  extensions.push(await x509.SubjectKeyIdentifierExtension.create(publicKey));
  if (signer.cert) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(signer.key.publicKey));
  const names: x509.JsonGeneralName[] = [
    ...(spec.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(spec.emails ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(spec.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(spec.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  if (urls.issuing_certificates.length || urls.ocsp_servers.length) {
    const aia: x509.AuthorityInfoAccessParams = {};
    if (urls.issuing_certificates.length) aia.caIssuers = urls.issuing_certificates;
    if (urls.ocsp_servers.length) aia.ocsp = urls.ocsp_servers;
    extensions.push(new x509.AuthorityInfoAccessExtension(aia));
  }
  if (urls.crl_distribution_points.length) extensions.push(new x509.CRLDistributionPointsExtension(urls.crl_distribution_points));
  const subject = spec.subject instanceof x509.Name ? spec.subject : new x509.Name(spec.subject);
  return x509.X509CertificateGenerator.create({
    serialNumber: spec.serialHex,
    subject,
    issuer: signer.cert ? signer.cert.subjectName : subject,
    notBefore: spec.notBefore,
    notAfter: spec.notAfter,
    publicKey,
    signingKey: signer.key.privateKey,
    signingAlgorithm: signer.key.signingAlgorithm as Algorithm,
    extensions,
  });
}

/** PEM text of a certificate, without a trailing newline (the reference's reply form). */
export const certPem = (c: x509.X509Certificate): string => c.toString('pem').trimEnd();

/** Every certificate of a PEM bundle, in order. Errors (400 naming `field`): no or a malformed certificate. */
export function parseCertificates(pem: string, field: string): x509.X509Certificate[] {
  if (pem.length > MAX_CSR_BYTES * 4) throw new InputError(`${field}: larger than ${MAX_CSR_BYTES * 4} bytes`);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new InputError(`${field}: no PEM certificate found`);
  return blocks.map((b) => {
    try {
      return new x509.X509Certificate(b);
    } catch (e) {
      throw new InputError(`${field}: malformed certificate: ${(e as Error).message}`);
    }
  });
}

/**
 * A PEM CSR parsed and its self-signature checked. Errors (400 naming `csr`): larger than
 * {@link MAX_CSR_BYTES}, not a PEM CSR, a bad signature.
 */
export async function parseCsr(pem: unknown): Promise<x509.Pkcs10CertificateRequest> {
  const text = String(pem ?? '');
  if (text.length > MAX_CSR_BYTES) throw new InputError(`csr: larger than ${MAX_CSR_BYTES} bytes`);
  const block = /-----BEGIN (NEW )?CERTIFICATE REQUEST-----[\s\S]*?-----END (NEW )?CERTIFICATE REQUEST-----/.exec(text)?.[0];
  if (!block) throw new InputError('csr: no PEM certificate request found');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(block.replace(/NEW CERTIFICATE REQUEST/g, 'CERTIFICATE REQUEST'));
  } catch (e) {
    throw new InputError(`csr: malformed certificate request: ${(e as Error).message}`);
  }
  let valid = false;
  try {
    valid = await csr.verify();
  } catch {
    valid = false;
  }
  if (!valid) throw new InputError('csr: certificate request signature is not valid');
  return csr;
}

/** The key type and size of a public key (a CSR's), as the role's `key_type` / `key_bits` name them. */
export function publicKeyKind(key: x509.PublicKey): { type: string; bits: number } {
  const alg = key.algorithm as { name: string; namedCurve?: string; modulusLength?: number };
  if (alg.name.startsWith('RSA')) return { type: 'rsa', bits: alg.modulusLength ?? 0 };
  if (alg.name === 'ECDSA' || alg.name === 'ECDH') return { type: 'ec', bits: Number(alg.namedCurve?.slice(2) ?? 0) };
  if (alg.name === 'Ed25519' || alg.name === 'EdDSA') return { type: 'ed25519', bits: 0 };
  return { type: alg.name.toLowerCase(), bits: 0 };
}
