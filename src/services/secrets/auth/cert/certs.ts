/**
 * Trusted certificates of a `cert` auth mount (reference: Vault `auth/cert/certs/:name`):
 * each holds a PEM `certificate` (a CA, whose issued certificates may log in, or one
 * client certificate pinned as it is), the constraints a client certificate must also
 * meet (`allowed_*` globs, `required_extensions`), the token's `display_name` and the
 * `token_*` settings. One JSON entry per name at `cert/<name>`; writes merge into the
 * current entry.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { allowsClientAuth, parsePemCertificates } from '../../../../kernel/authn/index.js';
import { badRequest, CommaList, commaList } from '../../../../kernel/http/index.js';
import type { Backend } from '../../../../kernel/store/index.js';
import { hasField } from '../../../../kernel/util/duration.js';
import type { SecretsRequest } from '../../types.js';
import { MountEntryStore } from '../entry-store.js';
import { applyTokenFields, EMPTY_TOKEN_SETTINGS, TOKEN_FIELDS, tokenSettingsView, type TokenSettings } from '../token-fields.js';

/** The constraint lists of an entry, each a list of globs (`*`); empty = no constraint. */
const CONSTRAINTS = [
  'allowed_names',
  'allowed_common_names',
  'allowed_dns_sans',
  'allowed_email_sans',
  'allowed_uri_sans',
  'allowed_organizational_units',
  'required_extensions',
] as const;

/** One stored trusted certificate. */
export interface CertEntry extends TokenSettings, Record<(typeof CONSTRAINTS)[number], string[]> {
  /** PEM; its first certificate decides: a CA is a trust anchor, any other is pinned. */
  certificate: string;
  /** Shown in the tokens' display name (`cert-<display_name>`); defaults to the entry name. */
  display_name: string;
}

/** Field schemas of entry writes. */
export const CERT_FIELDS = {
  certificate: Type.String({ description: 'PEM certificate to trust: a CA (certificates it issued may log in) or one client certificate' }),
  display_name: Type.String({ description: 'display name of the tokens issued (default: the entry name)' }),
  allowed_names: CommaList('deprecated: globs, one of which must match the common name, a DNS or an e-mail SAN'),
  allowed_common_names: CommaList('globs, one of which must match the common name'),
  allowed_dns_sans: CommaList('globs, one of which must match a DNS SAN'),
  allowed_email_sans: CommaList('globs, one of which must match an e-mail SAN'),
  allowed_uri_sans: CommaList('globs, one of which must match a URI SAN'),
  allowed_organizational_units: CommaList('globs, one of which must match an organizational unit'),
  required_extensions: CommaList('"oid:value" pairs (value a glob) the certificate must all carry as string extensions'),
  ...TOKEN_FIELDS,
};

const EMPTY: Omit<CertEntry, 'certificate' | 'display_name'> = {
  ...EMPTY_TOKEN_SETTINGS,
  ...(Object.fromEntries(CONSTRAINTS.map((c) => [c, []])) as unknown as Record<(typeof CONSTRAINTS)[number], string[]>),
};

/**
 * Applies a write's fields to `current` (a new entry named `name` when undefined).
 * Errors (400, the reference's texts where it has them): no parsable certificate
 * (`failed to parse certificate`), a pinned certificate whose extended key usage excludes
 * TLS client authentication, a `required_extensions` item without `oid:`, bad `token_*`.
 */
export function applyCertFields(name: string, d: Readonly<Record<string, unknown>>, current: CertEntry | undefined): CertEntry {
  const e: CertEntry = { certificate: '', display_name: '', ...EMPTY, ...current, ...applyTokenFields(d, current ?? EMPTY) };
  if (hasField(d, 'certificate')) e.certificate = String(d.certificate);
  if (hasField(d, 'display_name')) e.display_name = String(d.display_name);
  for (const c of CONSTRAINTS) if (hasField(d, c)) e[c] = commaList(d[c]);
  for (const x of e.required_extensions) {
    if (!/^\d+(\.\d+)+:/.test(x)) throw badRequest(`required_extensions: "${x}" is not of the form "oid:value"`);
  }
  if (!e.display_name) e.display_name = name;
  const parsed = parsePemCertificates(e.certificate);
  if (parsed.length === 0) throw badRequest('failed to parse certificate');
  if (!parsed[0]!.ca && !allowsClientAuth(parsed[0]!))
    throw badRequest('nonCA certificates should have TLS client authentication set as an extended key usage');
  return e;
}

/** The wire shape of `GET certs/:name`. */
export function certView(e: CertEntry): Record<string, unknown> {
  return {
    certificate: e.certificate,
    display_name: e.display_name,
    ...Object.fromEntries(CONSTRAINTS.map((c) => [c, [...e[c]]])),
    ...tokenSettingsView(e),
  };
}

/** The trusted certificates of one cert mount. */
export class CertEntryStore extends MountEntryStore<CertEntry> {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   */
  constructor(storage: Backend, mountUuid: string) {
    super(storage, mountUuid, 'cert/');
  }
}

/** The trusted-certificate store of the request's mount. */
export const certsOf = (req: Pick<SecretsRequest, 'storage' | 'mount'>): CertEntryStore => new CertEntryStore(req.storage, req.mount.uuid);
