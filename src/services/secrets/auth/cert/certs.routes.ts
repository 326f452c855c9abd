/**
 * Trusted-certificate management of a `cert` auth mount (reference: Vault
 * `auth/cert/certs`): LIST `certs`, and create/update (merging), read, delete
 * `certs/:name`. Names are lower-cased, as the reference does.
 *
 * @module
 */
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { checkName } from '../login.js';
import { CERT_FIELDS, applyCertFields, certsOf, certView } from './certs.js';

const nameOf = (req: SecretsRequest): string => checkName(req, req.params.name.toLowerCase());
const write = async (req: SecretsRequest): Promise<undefined> => {
  const name = nameOf(req);
  await certsOf(req).update(name, (c) => applyCertFields(name, req.data, c));
  return undefined;
};

const certListPath: SecretsPath = {
  pattern: 'certs',
  synopsis: 'List the trusted certificates of this cert method',
  operations: {
    list: { summary: 'List trusted certificates', handle: async (req) => ({ data: { keys: await certsOf(req).list() } }) },
  },
};

const certPath: SecretsPath = {
  pattern: 'certs/:name',
  synopsis: 'Manage one trusted certificate: which client certificates may log in and the tokens they get',
  description:
    "`certificate` (PEM) is required: a CA, whose issued client certificates may log in, or one client certificate pinned as it is. The `allowed_*` globs and `required_extensions` further constrain the client certificate. `token_policies` are the issued tokens' policies (`default` is always added).",
  params: { name: 'the certificate entry name (case-insensitive)' },
  fields: CERT_FIELDS,
  exists: async (req) => (await certsOf(req).get(req.params.name.toLowerCase())) !== undefined,
  operations: {
    create: { summary: 'Trust a certificate', handle: write },
    update: { summary: 'Update a trusted certificate (fields not given keep their value)', handle: write },
    read: {
      summary: 'Read a trusted certificate',
      handle: async (req) => {
        const e = await certsOf(req).get(nameOf(req));
        return e && { data: certView(e) };
      },
    },
    delete: {
      summary: 'Delete a trusted certificate (tokens issued already stay valid)',
      handle: async (req) => {
        await certsOf(req).delete(nameOf(req));
        return undefined;
      },
    },
  },
};

/** Trusted-certificate paths, most specific first. */
export const certEntryPaths: readonly SecretsPath[] = [certListPath, certPath];
