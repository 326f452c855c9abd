/**
 * TLS client certificates as an authentication method sees them (the secrets service's
 * `cert` method; reference: Vault `builtin/credential/cert`): the facts its role
 * constraints match ({@link certificateFacts}) and the chains from a presented
 * certificate to trusted ones ({@link verifyClientChains}), with the reference's
 * verification error texts (Go `crypto/x509`).
 *
 * node:crypto's `X509Certificate` checks signatures and issuer links; the names, key
 * identifiers and raw extensions it does not expose are read with the DER reader beside
 * this file.
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { derChildren, derOid, derOne, derString, type Der } from './der.js';

/** What a role can constrain and a login records about a certificate. */
export interface CertificateFacts {
  /** The subject's (last) common name; `''` without one. */
  readonly commonName: string;
  readonly organizationalUnits: readonly string[];
  readonly dnsNames: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  /** The serial number in decimal, as Go's `big.Int.String()`. */
  readonly serialNumber: string;
  /** Subject / authority key identifier bytes; empty when the extension is absent. */
  readonly subjectKeyId: Buffer;
  readonly authorityKeyId: Buffer;
  /** Extension OID (dotted) → its value as an ASN.1 string (`''` when it is not one). */
  readonly extensions: ReadonlyMap<string, string>;
}

const OID_CN = '2.5.4.3';
const OID_OU = '2.5.4.11';
const OID_SAN = '2.5.29.17';
const OID_SKID = '2.5.29.14';
const OID_AKID = '2.5.29.35';
/** Extended key usages that allow TLS client authentication: clientAuth, anyExtendedKeyUsage. */
const CLIENT_AUTH_EKUS = ['1.3.6.1.5.5.7.3.2', '2.5.29.37.0'];
/** Longest chain built, certificates included (Go's default has no limit; this bounds the search). */
const MAX_DEPTH = 10;

/**
 * The facts of `cert`. Extensions this reader cannot take apart read as absent rather
 * than failing: a constraint on them then does not match.
 * @throws {DerError} when the certificate's outer structure cannot be read (multi-byte tags).
 */
export function certificateFacts(cert: X509Certificate): CertificateFacts {
  // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
  const tbs = derChildren(derChildren(derOne(cert.raw).value)[0]!.value);
  let i = tbs[0]?.tag === 0xa0 ? 1 : 0; // [0] version
  const serial = tbs[i]!;
  i += 4; // serial, signature algorithm, issuer, validity
  const subject = tbs[i]!;
  let commonName = '';
  const organizationalUnits: string[] = [];
  for (const rdn of derChildren(subject.value)) {
    for (const atv of derChildren(rdn.value)) {
      const [type, value] = derChildren(atv.value);
      const text = value && derString(value);
      if (!type || text === undefined) continue;
      const oid = derOid(type.value);
      if (oid === OID_CN) commonName = text;
      else if (oid === OID_OU) organizationalUnits.push(text);
    }
  }
  const extensions = new Map<string, string>();
  const facts = { dnsNames: [] as string[], emailAddresses: [] as string[], uris: [] as string[], subjectKeyId: Buffer.alloc(0) as Buffer, authorityKeyId: Buffer.alloc(0) as Buffer };
  const extBlock = tbs.find((d) => d.tag === 0xa3);
  for (const ext of extBlock ? derChildren(derOne(extBlock.value).value) : []) {
    const parts = derChildren(ext.value);
    const oid = derOid(parts[0]!.value);
    const value = parts[parts.length - 1]!.value; // the OCTET STRING's contents (after an optional `critical`)
    extensions.set(oid, stringOf(value));
    try {
      if (oid === OID_SAN) readSans(derOne(value), facts);
      else if (oid === OID_SKID) facts.subjectKeyId = derOne(value).value;
      else if (oid === OID_AKID) facts.authorityKeyId = derChildren(derOne(value).value).find((d) => d.tag === 0x80)?.value ?? Buffer.alloc(0);
    } catch {
      // An extension this reader cannot take apart: its facts stay absent.
    }
  }
  return { commonName, organizationalUnits, serialNumber: serialOf(serial.value), extensions, ...facts };
}

/** Go's `asn1.Unmarshal(value, &string)`: the text of one ASN.1 string, else `''`. */
function stringOf(value: Buffer): string {
  try {
    return derString(derOne(value)) ?? '';
  } catch {
    return '';
  }
}

/** Adds the DNS names ([2]), e-mail addresses ([1]) and URIs ([6]) of a GeneralNames. */
function readSans(names: Der, into: { dnsNames: string[]; emailAddresses: string[]; uris: string[] }): void {
  for (const n of derChildren(names.value)) {
    const text = n.value.toString('latin1');
    if (n.tag === 0x82) into.dnsNames.push(text);
    else if (n.tag === 0x81) into.emailAddresses.push(text);
    else if (n.tag === 0x86) into.uris.push(text);
  }
}

/** A DER INTEGER's contents in decimal (two's complement). */
function serialOf(value: Buffer): string {
  if (value.length === 0) return '0';
  let n = BigInt(`0x${value.toString('hex')}`);
  if (value[0]! & 0x80) n -= 1n << BigInt(value.length * 8);
  return n.toString();
}

/** Go's RFC 3339 form of a time, in UTC without fractions (`2026-01-02T03:04:05Z`). */
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Why `cert` is not valid at `now`, in Go's words, or undefined when it is.
 * e.g. `x509: certificate has expired or is not yet valid: current time … is after …`.
 */
export function validityError(cert: X509Certificate, now: Date): string | undefined {
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  const prefix = 'x509: certificate has expired or is not yet valid: current time';
  if (now < from) return `${prefix} ${rfc3339(now)} is before ${rfc3339(from)}`;
  if (now > to) return `${prefix} ${rfc3339(now)} is after ${rfc3339(to)}`;
  return undefined;
}

/** Thrown by {@link verifyClientChains} when the client's certificate itself is unusable; message in Go's words. */
export class CertificateInvalidError extends Error {}

/**
 * Every chain from `presented[0]` (the client's certificate) to a certificate of `roots`,
 * through the other presented certificates as intermediates: each link's issuer name and
 * signature check out, every certificate is valid at `now`, and every issuer is a CA. A
 * chain ends at each root reached (roots may also be intermediates of longer chains).
 * Returns `[]` when none (Go's unknown authority: the caller says so in its own words).
 *
 * @throws {CertificateInvalidError} the client's certificate is expired or not yet valid,
 *   or chains exist but its extended key usage excludes TLS client authentication (Go
 *   `x509: certificate specifies an incompatible key usage`).
 */
export function verifyClientChains(presented: readonly X509Certificate[], roots: readonly X509Certificate[], now: Date): X509Certificate[][] {
  const leaf = presented[0];
  if (!leaf) return [];
  const invalid = validityError(leaf, now);
  if (invalid) throw new CertificateInvalidError(invalid);
  const isRoot = (c: X509Certificate) => roots.some((r) => r.raw.equals(c.raw));
  const candidates = [...roots, ...presented.slice(1).filter((c) => !isRoot(c))];
  const chains: X509Certificate[][] = [];
  const extend = (chain: X509Certificate[]): void => {
    const last = chain[chain.length - 1]!;
    if (chain.length >= MAX_DEPTH) return;
    for (const issuer of candidates) {
      if (chain.some((c) => c.raw.equals(issuer.raw)) || !issuer.ca || validityError(issuer, now)) continue;
      if (!last.checkIssued(issuer) || !last.verify(issuer.publicKey)) continue;
      const next = [...chain, issuer];
      if (isRoot(issuer)) chains.push(next);
      extend(next);
    }
  };
  // A trusted CA presenting itself (its own key proved in the handshake), as Go's one-element chain.
  if (isRoot(leaf)) chains.push([leaf]);
  extend([leaf]);
  if (chains.length > 0 && !allowsClientAuth(leaf)) {
    throw new CertificateInvalidError('x509: certificate specifies an incompatible key usage');
  }
  return chains;
}

/** Whether a certificate may be presented for TLS client authentication (no extended key usage, or one allowing it). */
export function allowsClientAuth(cert: X509Certificate): boolean {
  return cert.keyUsage === undefined || cert.keyUsage.some((u) => CLIENT_AUTH_EKUS.includes(u));
}

/** The certificates of a PEM text (`CERTIFICATE` blocks without headers, as Go's parsePEM); unparsable blocks are skipped. */
export function parsePemCertificates(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const m of pem.matchAll(/-----BEGIN (?:TRUSTED )?CERTIFICATE-----\r?\n([\s\S]*?)-----END (?:TRUSTED )?CERTIFICATE-----/g)) {
    if (m[1]!.includes(':')) continue; // PEM headers (`Proc-Type: …`)
    try {
      out.push(new X509Certificate(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')));
    } catch {
      // Go's parsePEM skips what does not parse.
    }
  }
  return out;
}
