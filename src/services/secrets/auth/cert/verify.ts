/**
 * Which trusted certificate of a `cert` mount a client certificate logs in with
 * (reference: Vault `builtin/credential/cert` `verifyCredentials`, `matchesConstraints`):
 * the chain the client presented must lead to a trusted CA entry that is part of the
 * chain, or the client certificate must be a pinned entry itself; the entry's
 * constraints must then match. Errors are the reference's texts, with 400.
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import {
  CertificateFormatError,
  CertificateInvalidError,
  certificateFacts,
  globMatch,
  parsePemCertificates,
  verifyClientChains,
  type CertificateFacts,
} from '../../../../kernel/authn/index.js';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsRequest } from '../../types.js';
import { certsOf, type CertEntry } from './certs.js';

/** A matched login: the entry (with its name) and the client certificate's facts. */
export interface CertMatch {
  readonly name: string;
  readonly entry: CertEntry;
  readonly facts: CertificateFacts;
}

interface Trusted {
  readonly name: string;
  readonly entry: CertEntry;
  readonly certs: X509Certificate[];
}

/**
 * The entry the request's client certificate matches, among entry `name` only when given
 * (lower-cased), else all entries (the first match in name order wins, as the reference).
 *
 * @throws CairnError 400 `tls connection required` (plain HTTP), `client certificate must
 *   be supplied`, `failed to verify client's certificate: x509: …` (expired, not yet
 *   valid, a key usage that excludes client authentication), `invalid certificate or no
 *   client certificate supplied` (no chain to a trusted CA, not pinned), `no chain
 *   matching all constraints could be found for this login certificate`.
 */
export async function matchClientCertificate(req: SecretsRequest, name: string): Promise<CertMatch> {
  const presentedDer = req.clientCertificates;
  if (presentedDer === undefined) throw badRequest('tls connection required');
  if (presentedDer.length === 0) throw badRequest('client certificate must be supplied');
  let presented: X509Certificate[];
  try {
    presented = presentedDer.map((d) => new X509Certificate(d));
  } catch {
    throw badRequest('client certificate must be supplied');
  }
  const leaf = presented[0]!;
  const store = certsOf(req);
  const names = name ? [name.toLowerCase()] : await store.list();
  const cas: Trusted[] = [];
  const pinned: Trusted[] = [];
  for (const n of names) {
    const entry = await store.get(n);
    if (!entry) continue;
    const certs = parsePemCertificates(entry.certificate);
    if (certs.length === 0) continue;
    (certs[0]!.ca ? cas : pinned).push({ name: n, entry, certs });
  }
  let chains: X509Certificate[][];
  try {
    chains = verifyClientChains(
      presented,
      cas.flatMap((t) => t.certs),
      req.now,
    );
  } catch (err) {
    if (err instanceof CertificateInvalidError) throw badRequest(`failed to verify client's certificate: ${err.message}`);
    throw err;
  }
  let facts: CertificateFacts;
  try {
    facts = certificateFacts(leaf);
  } catch (err) {
    // DER the TLS stack accepted but the X.509 parser does not.
    if (err instanceof CertificateFormatError) throw badRequest('failed to parse client certificate');
    throw err;
  }
  // A pinned client certificate: the very certificate (the TLS handshake proved its key).
  for (const t of pinned) {
    if (t.certs[0]!.raw.equals(leaf.raw) && matchesConstraints(facts, t.entry)) return { name: t.name, entry: t.entry, facts };
  }
  if (chains.length === 0) throw badRequest('invalid certificate or no client certificate supplied');
  for (const t of cas) {
    const inChain = chains.some((chain) => chain.some((c) => t.certs.some((tc) => tc.raw.equals(c.raw))));
    if (inChain && matchesConstraints(facts, t.entry)) return { name: t.name, entry: t.entry, facts };
  }
  throw badRequest('no chain matching all constraints could be found for this login certificate');
}

/** Key identifier bytes as the reference shows them in token metadata: lower-case hex pairs joined by `:`. */
export const hexColons = (b: Buffer): string => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');

const anyGlob = (patterns: readonly string[], values: readonly string[]) => patterns.some((p) => values.some((v) => globMatch(p, v)));

/** Every constraint list of `e` that is not empty matches (reference `matchesConstraints`, CRLs and OCSP aside). */
function matchesConstraints(f: CertificateFacts, e: CertEntry): boolean {
  const ok = (patterns: readonly string[], values: readonly string[]) => patterns.length === 0 || anyGlob(patterns, values);
  return (
    ok(e.allowed_names, [f.commonName, ...f.dnsNames, ...f.emailAddresses]) &&
    ok(e.allowed_common_names, [f.commonName]) &&
    ok(e.allowed_dns_sans, f.dnsNames) &&
    ok(e.allowed_email_sans, f.emailAddresses) &&
    ok(e.allowed_uri_sans, f.uris) &&
    ok(e.allowed_organizational_units, f.organizationalUnits) &&
    e.required_extensions.every((x) => {
      const at = x.indexOf(':');
      const value = f.extensions.get(x.slice(0, at));
      return value !== undefined && globMatch(x.slice(at + 1), value);
    })
  );
}
