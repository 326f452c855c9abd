/**
 * TLS client certificates as an authentication method sees them (the secrets service's
 * `cert` method; reference: Vault `builtin/credential/cert`): the facts its role
 * constraints match ({@link certificateFacts}) and the chains from a presented
 * certificate to trusted ones ({@link verifyClientChains}), with the reference's
 * verification error texts (Go `crypto/x509`).
 *
 * node:crypto's `X509Certificate` checks signatures and issuer links; the names, key
 * identifiers and raw extensions it does not expose are read with `@peculiar/asn1-x509`
 * (certificate structures) and `asn1js` (an extension's value as an ASN.1 string).
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { AsnParser } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifier,
  Certificate,
  id_ce_authorityKeyIdentifier,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  type AttributeValue,
  type Extension,
} from '@peculiar/asn1-x509';
import * as asn1js from 'asn1js';

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

/** Thrown by {@link certificateFacts} when a certificate's structure cannot be read as X.509. */
export class CertificateFormatError extends Error {}

const OID_CN = '2.5.4.3';
const OID_OU = '2.5.4.11';
/** Extended key usages that allow TLS client authentication: clientAuth, anyExtendedKeyUsage. */
const CLIENT_AUTH_EKUS = ['1.3.6.1.5.5.7.3.2', '2.5.29.37.0'];
/** Longest chain built, certificates included (Go's default has no limit; this bounds the search). */
const MAX_DEPTH = 10;
/**
 * ASN.1 string types read as text (`asn1js` classes, compared exactly: UTCTime and DATE
 * subclass two of them): Go's `asn1.Unmarshal` into a string, plus VisibleString.
 */
const STRING_TYPES: readonly (abstract new (...a: never[]) => { getValue(): string })[] = [
  asn1js.Utf8String,
  asn1js.PrintableString,
  asn1js.IA5String,
  asn1js.TeletexString,
  asn1js.NumericString,
  asn1js.VisibleString,
  asn1js.GeneralString,
  asn1js.BmpString,
];

/**
 * The facts of `cert` (only its DER bytes, `raw`, are read). An extension that cannot be
 * taken apart reads as absent rather than failing: a constraint on it then does not match.
 * @throws {CertificateFormatError} when the certificate's structure cannot be read
 *   (bytes the TLS stack accepted but a strict X.509 parser does not).
 */
export function certificateFacts(cert: Pick<X509Certificate, 'raw'>): CertificateFacts {
  let tbs: Certificate['tbsCertificate'];
  try {
    tbs = AsnParser.parse(cert.raw, Certificate).tbsCertificate;
  } catch (err) {
    throw new CertificateFormatError(`x509: malformed certificate: ${(err as Error).message}`);
  }
  let commonName = '';
  const organizationalUnits: string[] = [];
  for (const rdn of tbs.subject) {
    for (const atv of rdn) {
      const text = attributeText(atv.value);
      if (text === undefined) continue;
      if (atv.type === OID_CN) commonName = text;
      else if (atv.type === OID_OU) organizationalUnits.push(text);
    }
  }
  const extensions = new Map<string, string>();
  const all = tbs.extensions ?? [];
  for (const ext of all) extensions.set(ext.extnID, asn1Text(ext.extnValue.buffer) ?? '');
  const san = readExtension(all, id_ce_subjectAltName, SubjectAlternativeName);
  const skid = readExtension(all, id_ce_subjectKeyIdentifier, SubjectKeyIdentifier);
  const akid = readExtension(all, id_ce_authorityKeyIdentifier, AuthorityKeyIdentifier)?.keyIdentifier;
  const sanOf = (pick: (n: SubjectAlternativeName[number]) => string | undefined) => Array.from(san ?? [], pick).filter((x): x is string => x !== undefined); // plain arrays, not the schema's array class
  return {
    commonName,
    organizationalUnits,
    dnsNames: sanOf((n) => n.dNSName),
    emailAddresses: sanOf((n) => n.rfc822Name),
    uris: sanOf((n) => n.uniformResourceIdentifier),
    serialNumber: serialOf(Buffer.from(tbs.serialNumber)),
    subjectKeyId: skid ? Buffer.from(skid.buffer) : Buffer.alloc(0),
    authorityKeyId: akid ? Buffer.from(akid.buffer) : Buffer.alloc(0),
    extensions,
  };
}

/** The first extension `oid` of `all`, parsed as `type`; undefined when absent or unparsable. */
function readExtension<T>(all: readonly Extension[], oid: string, type: new () => T): T | undefined {
  const ext = all.find((e) => e.extnID === oid);
  if (!ext) return undefined;
  try {
    return AsnParser.parse(ext.extnValue, type);
  } catch {
    return undefined; // An extension that cannot be taken apart: its facts stay absent.
  }
}

/** The text of a name attribute's value; undefined when it is not a string type. */
function attributeText(v: AttributeValue): string | undefined {
  if (v.anyValue) return asn1Text(v.anyValue); // NumericString, VisibleString, …: not in the schema's choice
  return v.utf8String ?? v.printableString ?? v.ia5String ?? v.teletexString ?? v.bmpString ?? v.universalString;
}

/** Go's `asn1.Unmarshal(value, &string)`: the text of the ASN.1 string `der` begins with, else undefined. */
function asn1Text(der: ArrayBuffer): string | undefined {
  let block: asn1js.AsnType;
  try {
    const { offset, result } = asn1js.fromBER(der);
    if (offset === -1) return undefined;
    block = result;
  } catch {
    return undefined; // asn1js throws (RangeError) on some malformed strings, e.g. a BMPString of odd length
  }
  return STRING_TYPES.some((t) => block.constructor === t) ? (block as unknown as { getValue(): string }).getValue() : undefined;
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
function validityError(cert: X509Certificate, now: Date): string | undefined {
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
