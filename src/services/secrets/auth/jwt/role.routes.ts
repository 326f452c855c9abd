/**
 * Role management of a `jwt`/`oidc` auth mount (reference: vault-plugin-auth-jwt
 * `role/:name`): LIST `role`, and create/update (merging), read, delete `role/:name`.
 * Role names are lower-cased.
 *
 * @module
 */
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { checkName } from '../login.js';
import { ROLE_FIELDS, applyRoleFields, jwtRolesOf, roleView } from './roles.js';

const nameOf = (req: SecretsRequest): string => checkName(req, req.params.name.toLowerCase());

const roleListPath: SecretsPath = {
  pattern: 'role',
  synopsis: 'List the roles of this JWT/OIDC method',
  operations: {
    list: { summary: 'List roles', handle: async (req) => ({ data: { keys: await jwtRolesOf(req).list() } }) },
  },
};

const rolePath: SecretsPath = {
  pattern: 'role/:name',
  synopsis: 'Manage one role: the bounds a token must meet, what its claims become, and the tokens issued',
  description:
    "`role_type` is `oidc` (browser flow, needs `allowed_redirect_uris`) by default or `jwt` (bearer JWT login, needs at least one bound). `user_claim` is required. `claim_mappings` copy claims into token metadata; `token_policies` are the issued tokens' policies (`default` is always added).",
  params: { name: 'the role name (case-insensitive)' },
  fields: ROLE_FIELDS,
  exists: async (req) => (await jwtRolesOf(req).get(req.params.name.toLowerCase())) !== undefined,
  operations: {
    create: { summary: 'Create a role', handle: async (req) => (await jwtRolesOf(req).update(nameOf(req), (c) => applyRoleFields(req.data, c)), undefined) },
    update: {
      summary: 'Update a role (fields not given keep their value)',
      handle: async (req) => (await jwtRolesOf(req).update(nameOf(req), (c) => applyRoleFields(req.data, c)), undefined),
    },
    read: {
      summary: 'Read a role',
      handle: async (req) => {
        const r = await jwtRolesOf(req).get(nameOf(req));
        return r && { data: roleView(r) };
      },
    },
    delete: {
      summary: 'Delete a role',
      handle: async (req) => {
        await jwtRolesOf(req).delete(nameOf(req));
        return undefined;
      },
    },
  },
};

/** Role management paths, most specific first. */
export const jwtRolePaths: readonly SecretsPath[] = [roleListPath, rolePath];
