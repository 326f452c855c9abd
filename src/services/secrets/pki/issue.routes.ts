/**
 * Issuing paths of the PKI engine (reference/secrets-engines.md §7 "Issue / sign"):
 * `issue/:role` (a new key pair, returned once and never stored), `sign/:role` (a CSR),
 * `sign-verbatim` and `sign-verbatim/:role` (a CSR as it is).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList } from '../../../kernel/http/index.js';
import { InputError } from '../../../kernel/util/duration.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { parseCsr } from './certificate.js';
import { issueUnderRole } from './issue.js';
import type { PkiRole } from './role.js';
import { pkiStoreOf } from './store.js';
import { signVerbatim } from './verbatim.js';

const ISSUE_FIELDS = {
  common_name: Type.String({ maxLength: 1024, description: "the certificate's common name (checked against the role)" }),
  alt_names: CommaList('DNS names and email addresses for the SANs'),
  ip_sans: CommaList('IP addresses for the SANs'),
  uri_sans: CommaList('URIs for the SANs'),
  ttl: Type.Union([Type.String(), Type.Integer()], { description: "lifetime; default the role's ttl, at most its max_ttl" }),
  format: Type.String({ description: 'pem (default), der or pem_bundle' }),
  private_key_format: Type.String({ description: 'der (default) or pkcs8' }),
  exclude_cn_from_sans: Type.Boolean({ description: 'leave the common name out of the SANs' }),
};
const CSR = Type.String({ description: 'the PEM certificate signing request' });

/** The role `req.params.role`. Errors (400): the reference's `unknown role: <name>`. */
async function roleOf(req: SecretsRequest): Promise<PkiRole> {
  const role = await pkiStoreOf(req).role<PkiRole>(req.params.role);
  if (!role) throw new InputError(`unknown role: ${req.params.role}`);
  return role;
}

const issuePath: SecretsPath = {
  pattern: 'issue/:role',
  synopsis: 'Issue a certificate and a new private key under a role',
  description: 'The private key is in this reply only; it is never stored.',
  params: { role: 'the role name' },
  fields: ISSUE_FIELDS,
  operations: { update: { summary: 'Issue a certificate', handle: async (req) => issueUnderRole(req, await roleOf(req)) } },
};

const signPath: SecretsPath = {
  pattern: 'sign/:role',
  synopsis: "Sign a CSR under a role's rules",
  params: { role: 'the role name' },
  fields: { ...ISSUE_FIELDS, csr: CSR },
  operations: {
    update: {
      summary: 'Sign a CSR',
      required: ['csr'],
      handle: async (req) => {
        const role = await roleOf(req);
        return issueUnderRole(req, role, await parseCsr(req.data.csr));
      },
    },
  },
};

const VERBATIM_FIELDS = {
  csr: CSR,
  ttl: ISSUE_FIELDS.ttl,
  format: ISSUE_FIELDS.format,
  key_usage: CommaList('key usages (default DigitalSignature,KeyAgreement,KeyEncipherment)'),
  ext_key_usage: CommaList('extended key usages (default none)'),
  issuer_ref: Type.String({ maxLength: 256, description: "the issuer that signs; default the role's or the default issuer" }),
};

const verbatimPath: SecretsPath = {
  pattern: 'sign-verbatim',
  synopsis: 'Sign a CSR as it is, without a role',
  fields: VERBATIM_FIELDS,
  operations: { update: { summary: 'Sign a CSR verbatim', required: ['csr'], handle: (req) => signVerbatim(req, undefined) } },
};

const verbatimRolePath: SecretsPath = {
  pattern: 'sign-verbatim/:role',
  synopsis: "Sign a CSR as it is, with a role's lifetimes and storage settings",
  params: { role: 'the role name' },
  fields: VERBATIM_FIELDS,
  operations: { update: { summary: 'Sign a CSR verbatim under a role', required: ['csr'], handle: async (req) => signVerbatim(req, await roleOf(req)) } },
};

/** The issuing paths. */
export const issuePaths: readonly SecretsPath[] = [issuePath, signPath, verbatimPath, verbatimRolePath];
