/**
 * Making CAs (reference/secrets-engines.md §7 "Root CA", "Intermediate flow"):
 * `root/generate/:type` (a self-signed root and its key), `intermediate/generate/:type`
 * (a key and a CSR for a parent CA to sign), `root/sign-intermediate` (this mount's issuer
 * signs another CA's CSR). `exported` returns the new private key once; `internal` never
 * does. Issuers' keys are only ever stored in the mount's storage.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { CommaList, commaList } from '../../../kernel/http/index.js';
import { InputError, hasField, parseDuration } from '../../../kernel/util/duration.js';
import type { SecretsRequest } from '../types.js';
import { buildCertificate, certPem, parseCsr, subjectName, x509 } from './certificate.js';
import { rebuildCrl } from './crl.js';
import { addIssuer, notAfterS, signerOf } from './issuers.js';
import { certReply, lifetime, replyFormats } from './issue.js';
import { generateKey, keySpec, privateKeyPem, type KeyType } from './keys.js';
import { sansOf } from './names.js';
import { colonSerial, newSerialHex } from './serial.js';
import { pkiStoreOf } from './store.js';

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string ("87600h")' });

/** Subject and SAN fields shared by the CA paths. */
const CA_NAME_FIELDS = {
  common_name: Type.String({ maxLength: 64, description: "the CA certificate's common name" }),
  alt_names: CommaList('DNS names and email addresses for the subject alternative names'),
  ip_sans: CommaList('IP addresses for the subject alternative names'),
  uri_sans: CommaList('URIs for the subject alternative names'),
  ou: CommaList('organizational units of the subject'),
  organization: CommaList('organizations of the subject'),
  country: CommaList('countries of the subject'),
  exclude_cn_from_sans: Type.Boolean({ description: 'leave the common name out of the SANs' }),
  format: Type.String({ description: 'pem (default), der or pem_bundle' }),
};

/** Fields of `root/generate/:type` and `intermediate/generate/:type`. */
export const GENERATE_FIELDS = {
  ...CA_NAME_FIELDS,
  ttl: { ...Duration, description: "the root's lifetime; default the mount's default TTL, at most its max TTL" },
  key_type: Type.String({ description: 'rsa (default), ec or ed25519' }),
  key_bits: Type.Integer({ minimum: 0, maximum: 8192, description: "0 = the type's default (rsa 2048, ec 256)" }),
  issuer_name: Type.String({ maxLength: 128, description: 'a name for the new issuer' }),
  key_name: Type.String({ maxLength: 128, description: 'a name for the new key' }),
  max_path_length: Type.Integer({ minimum: -1, maximum: 64, description: 'basic constraints path length; -1 (default) = none' }),
  not_before_duration: { ...Duration, description: 'how far NotBefore is back-dated (default 30s)' },
  private_key_format: Type.String({ description: 'der (default) or pkcs8, for exported keys' }),
};

/** Fields of `root/sign-intermediate`. */
export const SIGN_INTERMEDIATE_FIELDS = {
  ...CA_NAME_FIELDS,
  csr: Type.String({ description: "the intermediate CA's PEM CSR" }),
  ttl: { ...Duration, description: "the intermediate's lifetime; default the mount's default TTL" },
  max_path_length: Type.Integer({ minimum: -1, maximum: 64, description: 'basic constraints path length; -1 (default) = none' }),
  use_csr_values: Type.Boolean({ description: "take the subject and SANs from the CSR instead of the request's fields" }),
  issuer_ref: Type.String({ maxLength: 256, description: 'the issuer that signs; default the default issuer' }),
  not_before_duration: { ...Duration, description: 'how far NotBefore is back-dated (default 30s)' },
};

/** Errors (400 naming `:type`): anything but `internal` or `exported`. */
function exportedOf(req: SecretsRequest): boolean {
  const t = req.params.type;
  if (t !== 'internal' && t !== 'exported') throw new InputError(`type: expected "internal" or "exported", got ${JSON.stringify(t.slice(0, 40))}`);
  return t === 'exported';
}

const notBeforeOf = (req: SecretsRequest): Date => {
  const s = hasField(req.data, 'not_before_duration') ? parseDuration(req.data.not_before_duration, 'not_before_duration') : 30;
  if (s < 0) throw new InputError('not_before_duration: must not be negative');
  return new Date(req.now.getTime() - s * 1000);
};

const namesOf = (d: Readonly<Record<string, unknown>>, cn: string) =>
  sansOf({ cn, altNames: commaList(d.alt_names), ipSans: commaList(d.ip_sans), uriSans: commaList(d.uri_sans), excludeCn: d.exclude_cn_from_sans === true });

const subjectOf = (d: Readonly<Record<string, unknown>>, cn: string) =>
  subjectName({ cn, ou: commaList(d.ou), organization: commaList(d.organization), country: commaList(d.country) });

/** `root/generate/:type`: a new self-signed root, made the default issuer when there was none. Errors (400): bad fields (named). */
export async function generateRoot(req: SecretsRequest): Promise<Record<string, unknown>> {
  const exported = exportedOf(req);
  const d = req.data;
  const formats = replyFormats(d);
  const cn = String(d.common_name);
  const spec = keySpec(d.key_type ?? 'rsa', d.key_bits ?? 0);
  const sans = namesOf(d, cn);
  const notBefore = notBeforeOf(req);
  const { notAfter } = lifetime(req, { ttl: 0, max_ttl: 0 }, Number.MAX_SAFE_INTEGER);
  const key = await generateKey(spec.type as KeyType, spec.bits);
  const maxPathLength = hasField(d, 'max_path_length') ? Number(d.max_path_length) : -1;
  const cert = await buildCertificate(
    { serialHex: newSerialHex(), subject: subjectOf(d, cn), notBefore, notAfter, publicKey: key.publicKey, ...sans, ca: { maxPathLength } },
    { key },
    await pkiStoreOf(req).urls(),
  );
  const store = pkiStoreOf(req);
  const keyId = randomUUID();
  const keyName = String(d.key_name ?? '');
  await store.putKey({ key_id: keyId, key_name: keyName, key_type: key.type, private_key: key.pkcs8 });
  const issuer = await addIssuer(store, { cert, keyId, chain: [], name: String(d.issuer_name ?? '') });
  await store.putCert(colonSerial(cert.serialNumber).replaceAll(':', '-'), {
    certificate: certPem(cert),
    issuer_id: issuer.issuer_id,
    not_after: notAfterS(cert),
  });
  await rebuildCrl(store, issuer, req.now);
  const reply = certReply({ cert, issuer, formats, key: exported ? key : undefined });
  delete reply.ca_chain;
  return { ...reply, issuer_id: issuer.issuer_id, issuer_name: issuer.issuer_name, key_id: keyId, key_name: keyName };
}

/** `intermediate/generate/:type`: a new key (stored) and a CSR for it. Errors (400): bad fields (named). */
export async function generateIntermediate(req: SecretsRequest): Promise<Record<string, unknown>> {
  const exported = exportedOf(req);
  const d = req.data;
  const { keyFormat } = replyFormats(d);
  const cn = String(d.common_name);
  const spec = keySpec(d.key_type ?? 'rsa', d.key_bits ?? 0);
  const sans = namesOf(d, cn);
  const key = await generateKey(spec.type as KeyType, spec.bits);
  const names: x509.JsonGeneralName[] = [
    ...sans.dns.map((value) => ({ type: 'dns' as const, value })),
    ...sans.emails.map((value) => ({ type: 'email' as const, value })),
    ...sans.ips.map((value) => ({ type: 'ip' as const, value })),
    ...sans.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: new x509.Name(subjectOf(d, cn)),
    keys: { publicKey: key.publicKey, privateKey: key.privateKey },
    signingAlgorithm: key.signingAlgorithm as Algorithm,
    extensions: names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  const keyId = randomUUID();
  await pkiStoreOf(req).putKey({ key_id: keyId, key_name: String(d.key_name ?? ''), key_type: key.type, private_key: key.pkcs8 });
  const data: Record<string, unknown> = { csr: csr.toString('pem').trimEnd(), key_id: keyId };
  if (exported) Object.assign(data, { private_key: privateKeyPem(key, keyFormat), private_key_type: key.type });
  return data;
}

/** `root/sign-intermediate`: this mount's issuer signs a CA certificate for a CSR. Errors (400): a bad CSR, no CN, a TTL past the issuer's. */
export async function signIntermediate(req: SecretsRequest): Promise<Record<string, unknown>> {
  const d = req.data;
  const formats = replyFormats(d);
  const csr = await parseCsr(d.csr);
  const useCsr = d.use_csr_values === true;
  const cn = String(d.common_name ?? '') || (useCsr ? (csr.subjectName.getField('CN')[0] ?? '') : '');
  if (!cn && !useCsr) throw new InputError('common_name: the common_name field is required');
  const store = pkiStoreOf(req);
  const { issuer, signer } = await signerOf(store, String(d.issuer_ref ?? 'default'));
  const { notAfter } = lifetime(req, { ttl: 0, max_ttl: 0 }, issuer.not_after);
  const sans = useCsr ? {} : namesOf(d, cn);
  const cert = await buildCertificate(
    {
      serialHex: newSerialHex(),
      subject: useCsr ? csr.subjectName : subjectOf(d, cn),
      notBefore: notBeforeOf(req),
      notAfter,
      publicKey: csr.publicKey,
      ...sans,
      ca: { maxPathLength: hasField(d, 'max_path_length') ? Number(d.max_path_length) : -1 },
    },
    signer,
    await store.urls(),
  );
  await store.putCert(colonSerial(cert.serialNumber).replaceAll(':', '-'), {
    certificate: certPem(cert),
    issuer_id: issuer.issuer_id,
    not_after: notAfterS(cert),
  });
  const reply = certReply({ cert, issuer, formats });
  // The chain of the new CA: itself, then the signer's chain.
  return { ...reply, ca_chain: [reply.certificate, ...(reply.ca_chain as string[])] };
}
