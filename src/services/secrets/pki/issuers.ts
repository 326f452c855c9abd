/**
 * Issuers of a PKI mount (reference/secrets-engines.md §7 "Root CA", "Intermediate
 * flow", "Default issuer"): finding one by reference (`default`, id or name), loading its
 * signing key, and storing a new one — a generated root, or an intermediate whose signed
 * certificate matches a key this mount generated. The first issuer becomes the default.
 *
 * @module
 */
import { randomUUID, createPublicKey, X509Certificate as NodeCert } from 'node:crypto';
import { badRequest } from '../../../kernel/http/index.js';
import { InputError } from '../../../kernel/util/duration.js';
import { certPem, x509 } from './certificate.js';
import { loadKey } from './keys.js';
import { colonSerial } from './serial.js';
import type { IssuerEntry, PkiStore } from './store.js';
import type { Signer } from './certificate.js';

/**
 * The issuer `ref` names (`default` or empty: the default issuer; else an id or a name),
 * or undefined when there is none.
 */
export async function findIssuer(store: PkiStore, ref = 'default'): Promise<IssuerEntry | undefined> {
  if (ref === '' || ref === 'default') {
    const id = await store.defaultIssuerId();
    return id ? store.issuer(id) : undefined;
  }
  const byId = /^[0-9a-f-]{36}$/.test(ref) ? await store.issuer(ref) : undefined;
  if (byId) return byId;
  for (const id of await store.issuerIds()) {
    const e = await store.issuer(id);
    if (e?.issuer_name === ref) return e;
  }
  return undefined;
}

/**
 * The issuer `ref` names with its key, ready to sign. Errors (400): no such issuer (the
 * reference's `no default issuer currently configured` for the default), an issuer
 * without a key in this mount.
 */
export async function signerOf(store: PkiStore, ref = 'default'): Promise<{ issuer: IssuerEntry; signer: Signer }> {
  const issuer = await findIssuer(store, ref);
  if (!issuer) throw badRequest(ref === 'default' || ref === '' ? 'no default issuer currently configured' : `unable to find PKI issuer for reference: ${ref}`);
  const load = async (): Promise<Signer> => {
    const key = issuer.key_id ? await store.key(issuer.key_id) : undefined;
    if (!key) throw badRequest(`issuer ${issuer.issuer_id} has no private key in this mount and cannot sign`);
    return { cert: new x509.X509Certificate(issuer.certificate), key: await loadKey(key.private_key) };
  };
  const { resources, mountUuid } = store.scope;
  if (!resources) return { issuer, signer: await load() };
  // An issuer's certificate and key never change under its id, so the parsed pair is kept for the core's life.
  const cacheKey = signerKey(mountUuid, issuer.issuer_id);
  const held = resources.get(cacheKey, () => ({ signer: load(), close: async () => {} }));
  try {
    return { issuer, signer: await held.signer };
  } catch (e) {
    await resources.drop(cacheKey);
    throw e;
  }
}

/** The per-core resource key of an issuer's loaded signer (engine-resources.ts). */
export const signerKey = (mountUuid: string, issuerId: string): string => `${mountUuid}/pki-signer/${issuerId}`;

/** Unix seconds of a certificate's NotAfter. */
export const notAfterS = (c: x509.X509Certificate): number => Math.floor(c.notAfter.getTime() / 1000);

/**
 * Stores `cert` as a new issuer signing with key `keyId`, its chain `chain` (PEM, parents
 * after it), and makes it the default when there was none. Returns the entry.
 */
export async function addIssuer(
  store: PkiStore,
  o: { cert: x509.X509Certificate; keyId: string; chain: readonly string[]; name?: string },
): Promise<IssuerEntry> {
  const entry: IssuerEntry = {
    issuer_id: randomUUID(),
    issuer_name: o.name ?? '',
    key_id: o.keyId,
    certificate: certPem(o.cert),
    ca_chain: [certPem(o.cert), ...o.chain],
    serial_number: colonSerial(o.cert.serialNumber),
    not_after: notAfterS(o.cert),
  };
  await store.putIssuer(entry);
  if (!(await store.defaultIssuerId())) await store.setDefaultIssuer(entry.issuer_id);
  return entry;
}

/**
 * `intermediate/set-signed`: the first certificate of `certs` whose public key matches a
 * key this mount holds becomes an issuer, the others its chain. Answers the reference's
 * `imported_issuers`, `imported_keys`, `mapping`, `existing_issuers`, `existing_keys`.
 * Errors (400 naming `certificate`): no certificate matches a key of this mount.
 */
export async function importSigned(store: PkiStore, certs: readonly x509.X509Certificate[]): Promise<Record<string, unknown>> {
  const keys = new Map<string, string>();
  for (const id of await store.keyIds()) {
    const k = await store.key(id);
    if (k) keys.set(createPublicKey(k.private_key).export({ type: 'spki', format: 'der' }).toString('base64'), id);
  }
  for (const [i, cert] of certs.entries()) {
    const spki = new NodeCert(Buffer.from(cert.rawData)).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const keyId = keys.get(spki);
    if (!keyId) continue;
    for (const id of await store.issuerIds()) {
      const e = await store.issuer(id);
      if (e?.certificate === certPem(cert))
        return { imported_issuers: null, imported_keys: null, mapping: { [e.issuer_id]: e.key_id }, existing_issuers: [e.issuer_id], existing_keys: [keyId] };
    }
    const rest = certs.filter((_, j) => j !== i).map(certPem);
    const entry = await addIssuer(store, { cert, keyId, chain: rest });
    return { imported_issuers: [entry.issuer_id], imported_keys: [], mapping: { [entry.issuer_id]: keyId }, existing_issuers: [], existing_keys: [keyId] };
  }
  throw new InputError('certificate: no certificate in the bundle matches a private key of this mount (generate a CSR with intermediate/generate first)');
}
