/**
 * Role paths of the PKI engine (reference/secrets-engines.md §7 "Roles"): `roles` (LIST)
 * and `roles/:name` (a POST replaces the whole role; read; delete, which leaves the
 * certificates issued under it valid).
 *
 * @module
 */
import type { SecretsPath, SecretsRequest } from '../types.js';
import { ROLE_FIELDS, roleFromFields, roleView, type PkiRole } from './role.js';
import { pkiStoreOf } from './store.js';

const rolesPath: SecretsPath = {
  pattern: 'roles',
  synopsis: 'List the roles',
  operations: {
    list: {
      summary: 'List roles',
      handle: async (req) => {
        const keys = await pkiStoreOf(req).roleNames();
        return keys.length ? { data: { keys } } : undefined;
      },
    },
  },
};

const rolePath: SecretsPath = {
  pattern: 'roles/:name',
  synopsis: 'Manage a role: which names, keys, usages and lifetimes its certificates may have',
  description:
    'issue/:name and sign/:name check each request against the role: allowed_domains with allow_subdomains, allow_bare_domains, allow_glob_domains, allow_wildcard_certificates, allow_localhost, allow_any_name, enforce_hostnames; allow_ip_sans; allowed_uri_sans.',
  params: { name: 'the role name' },
  fields: ROLE_FIELDS,
  exists: async (req) => (await pkiStoreOf(req).role(req.params.name)) !== undefined,
  operations: {
    create: { summary: 'Create a role', handle: write },
    update: { summary: 'Replace a role', handle: write },
    read: {
      summary: 'Read a role',
      handle: async (req) => {
        const r = await pkiStoreOf(req).role<PkiRole>(req.params.name);
        return r && { data: roleView(r) };
      },
    },
    delete: {
      summary: 'Delete a role (its certificates stay valid)',
      handle: async (req) => {
        await pkiStoreOf(req).deleteRole(req.params.name);
        return undefined;
      },
    },
  },
};

async function write(req: SecretsRequest) {
  const role = roleFromFields(req.data);
  await pkiStoreOf(req).putRole(req.params.name, role);
  return undefined;
}

/** The role paths. */
export const rolePaths: readonly SecretsPath[] = [rolesPath, rolePath];
