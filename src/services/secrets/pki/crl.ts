/**
 * Certificate revocation lists (reference/secrets-engines.md §7 "Revoke / read / CRL"): a
 * v2 CRL per issuer listing its revoked serials, valid for `config/crl` `expiry`, with a
 * CRL number counting up and the issuer's key identifier; empty while `disable` is set.
 * Rebuilt on every revocation, `crl/rotate` and tidy, and when an issuer is created.
 *
 * @module
 */
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';
import { x509 } from './certificate.js';
import { signerOf } from './issuers.js';
import type { IssuerEntry, PkiStore } from './store.js';

const CRL_NUMBER_OID = '2.5.29.20';

/** DER of a non-negative INTEGER (CRL numbers stay far below 2^31). */
function derInteger(n: number): ArrayBuffer {
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = '00' + hex;
  const body = Buffer.from(hex, 'hex');
  return new Uint8Array([0x02, body.length, ...body]).buffer;
}

/** One lock for the CRLs of every PKI mount of the process; keys are mount uuids. */
const crlLocks = new KeyedLock();

/**
 * Builds and stores the CRL of `issuer` (its key must be in this mount) from the mount's
 * revocations, numbered one past the stored one. Returns the DER. Rebuilds of one mount
 * run one at a time, so a slower rebuild never overwrites a newer CRL with fewer serials.
 */
export function rebuildCrl(store: PkiStore, issuer: IssuerEntry, now: Date): Promise<Buffer> {
  return crlLocks.run(store.scope.mountUuid, () => buildCrl(store, issuer, now));
}

async function buildCrl(store: PkiStore, issuer: IssuerEntry, now: Date): Promise<Buffer> {
  const { signer } = await signerOf(store, issuer.issuer_id);
  const config = await store.crlConfig();
  const entries: x509.X509CrlEntryParams[] = [];
  if (!config.disable) {
    for (const key of await store.revokedKeys()) {
      const r = await store.revoked(key);
      if (r?.issuer_id === issuer.issuer_id) entries.push({ serialNumber: key.replaceAll('-', ''), revocationDate: new Date(r.revocation_time * 1000) });
    }
  }
  const number = ((await store.crl(issuer.issuer_id))?.number ?? 0) + 1;
  const crl = await x509.X509CrlGenerator.create({
    issuer: signer.cert!.subjectName,
    thisUpdate: now,
    nextUpdate: new Date(now.getTime() + config.expiry * 1000),
    entries,
    signingAlgorithm: signer.key.signingAlgorithm as Algorithm,
    signingKey: signer.key.privateKey,
    extensions: [await x509.AuthorityKeyIdentifierExtension.create(signer.key.publicKey), new x509.Extension(CRL_NUMBER_OID, false, derInteger(number))],
  });
  const der = Buffer.from(crl.rawData);
  await store.putCrl(issuer.issuer_id, { der: der.toString('base64'), number });
  return der;
}

/** Rebuilds the CRL of every issuer of this mount that has its key here. */
export async function rebuildAllCrls(store: PkiStore, now: Date): Promise<void> {
  for (const id of await store.issuerIds()) {
    const issuer = await store.issuer(id);
    if (issuer?.key_id) await rebuildCrl(store, issuer, now);
  }
}

/** The stored CRL of `issuer` (DER), or undefined before its first build. */
export async function currentCrl(store: PkiStore, issuer: IssuerEntry): Promise<Buffer | undefined> {
  const e = await store.crl(issuer.issuer_id);
  return e && Buffer.from(e.der, 'base64');
}

/** DER → PEM `X509 CRL`, without a trailing newline. */
export const crlPem = (der: Buffer): string =>
  `-----BEGIN X509 CRL-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END X509 CRL-----`;
