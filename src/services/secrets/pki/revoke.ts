/**
 * Revocation (reference/secrets-engines.md §7 "Revoke / read / CRL"): a certificate this
 * mount issued, named by serial or given whole, is listed in its issuer's CRL, which is
 * rebuilt at once. Issuers themselves are not revoked here. Used by `revoke` and by the
 * lease manager when a `generate_lease` certificate's lease ends.
 *
 * @module
 */
import { InputError } from '../../../kernel/util/duration.js';
import { certPem, parseCertificates, x509 } from './certificate.js';
import { rebuildCrl } from './crl.js';
import { notAfterS } from './issuers.js';
import { serialKey } from './serial.js';
import type { PkiStore } from './store.js';

/** The reply of a revocation: the reference's `revocation_time` (Unix s), its RFC 3339 form and `state`. */
const revokedReply = (t: number) => ({ revocation_time: t, revocation_time_rfc3339: new Date(t * 1000).toISOString().replace('.000Z', 'Z'), state: 'revoked' });

/**
 * Revokes the certificate with storage serial `key` (or the certificate `given`, which may
 * be one the mount did not store: `no_store`). Revoking twice keeps the first time.
 * Errors (400): no such certificate in this mount, an issuer's own certificate.
 */
export async function revokeCertificate(store: PkiStore, o: { key: string; given?: x509.X509Certificate; now: Date }): Promise<Record<string, unknown>> {
  const serial = o.key.replaceAll('-', ':');
  for (const id of await store.issuerIds()) {
    const issuer = await store.issuer(id);
    if (issuer?.serial_number === serial)
      throw new InputError(`revoking issuer certificates is not allowed here (issuer ${issuer.issuer_id}); delete the issuer instead`);
  }
  const existing = await store.revoked(o.key);
  if (existing) return revokedReply(existing.revocation_time);
  const stored = await store.cert(o.key);
  let issuerId = stored?.issuer_id;
  let notAfter = stored?.not_after;
  if (o.given && stored && stored.certificate !== certPem(o.given))
    throw new InputError('certificate: does not match the certificate this mount stored under its serial');
  if (!stored && o.given) {
    for (const id of await store.issuerIds()) {
      const issuer = await store.issuer(id);
      if (issuer && (await o.given.verify({ publicKey: new x509.X509Certificate(issuer.certificate).publicKey, signatureOnly: true }).catch(() => false))) {
        issuerId = issuer.issuer_id;
        notAfter = notAfterS(o.given);
      }
    }
    if (!issuerId) throw new InputError('certificate: not issued by an issuer of this mount');
  }
  if (!issuerId || notAfter === undefined) throw new InputError(`certificate with serial ${serial} not found`);
  const t = Math.floor(o.now.getTime() / 1000);
  await store.putRevoked(o.key, { revocation_time: t, issuer_id: issuerId, not_after: notAfter });
  const issuer = await store.issuer(issuerId);
  if (issuer?.key_id) await rebuildCrl(store, issuer, o.now);
  return revokedReply(t);
}

/**
 * The storage serial and certificate a `revoke` request names. Errors (400, the
 * reference's texts): both or neither of `serial_number` and `certificate`, a malformed one.
 */
export function revokeTarget(d: Readonly<Record<string, unknown>>): { key: string; given?: x509.X509Certificate } {
  const serial = String(d.serial_number ?? '');
  const pem = String(d.certificate ?? '');
  if (serial && pem) throw new InputError('must provide either the certificate or the serial to revoke; not both');
  if (!serial && !pem) throw new InputError('the serial number or certificate to revoke must be provided');
  if (serial) return { key: serialKey(serial) };
  const [given] = parseCertificates(pem, 'certificate');
  return { key: serialKey(given.serialNumber.match(/../g)!.join(':')), given };
}
