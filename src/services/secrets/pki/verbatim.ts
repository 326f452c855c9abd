/**
 * `sign-verbatim(/:role)` (reference/secrets-engines.md §7 "Issue / sign"): signs a CSR
 * as it is — its subject and SANs unchecked by name rules — with the request's usages
 * (default: the reference's `DigitalSignature,KeyAgreement,KeyEncipherment` and no
 * extended usage), the role's TTLs, `no_store` and `generate_lease` when a role is named.
 *
 * @module
 */
import { commaList } from '../../../kernel/http/index.js';
import { hasField } from '../../../kernel/util/duration.js';
import type { SecretsRequest, SecretsResult } from '../types.js';
import { buildCertificate, certPem, parseCsr, x509 } from './certificate.js';
import { csrKeyAllowed } from './csr-rules.js';
import { signerOf } from './issuers.js';
import { certReply, lifetime, replyFormats } from './issue.js';
import { roleFromFields, type PkiRole } from './role.js';
import { colonSerial, newSerialHex } from './serial.js';
import { pkiStoreOf } from './store.js';

/** See the module doc. Errors (400): a bad CSR, an unknown usage, a TTL past the issuer's. */
export async function signVerbatim(req: SecretsRequest, role: PkiRole | undefined): Promise<SecretsResult> {
  const d = req.data;
  const formats = replyFormats(d);
  const csr = await parseCsr(d.csr);
  // Usages from the request, checked the way a role's are (role.ts).
  const usage = roleFromFields({ key_type: 'any', key_usage: d.key_usage, ext_key_usage: d.ext_key_usage });
  if (role) csrKeyAllowed(role, csr.publicKey);
  const store = pkiStoreOf(req);
  const { issuer, signer } = await signerOf(store, String(d.issuer_ref ?? role?.issuer_ref ?? 'default'));
  const { ttlS, notAfter, warnings } = lifetime(req, role ?? { ttl: 0, max_ttl: 0 }, issuer.not_after);
  const san = csr.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const items = san?.names.items ?? [];
  const of = (t: string) => items.filter((n) => n.type === t).map((n) => n.value);
  const cert = await buildCertificate(
    {
      serialHex: newSerialHex(),
      subject: csr.subjectName,
      notBefore: new Date(req.now.getTime() - (role?.not_before_duration ?? 30) * 1000),
      notAfter,
      publicKey: csr.publicKey,
      dns: of('dns'),
      emails: of('email'),
      ips: of('ip'),
      uris: of('url'),
      keyUsage: hasField(d, 'key_usage') ? usage.key_usage : ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
      extKeyUsage: commaList(d.ext_key_usage).length ? usage.ext_key_usage : [],
    },
    signer,
    await store.urls(),
  );
  const serial = colonSerial(cert.serialNumber);
  if (!role?.no_store)
    await store.putCert(serial.replaceAll(':', '-'), {
      certificate: certPem(cert),
      issuer_id: issuer.issuer_id,
      not_after: Math.floor(notAfter.getTime() / 1000),
    });
  const lease = role?.generate_lease && !role.no_store ? { leaseDuration: ttlS, lease: { renewable: false, internal: { serial_number: serial } } } : {};
  return { data: certReply({ cert, issuer, formats }), ...(warnings.length ? { warnings } : {}), ...lease };
}
