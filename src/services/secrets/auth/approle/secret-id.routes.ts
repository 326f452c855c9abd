/**
 * AppRole secret ID paths (reference/secrets.md §4.2): `role/:role_name/secret-id`
 * (POST issues one, shown once; LIST shows the accessors) and
 * `role/:role_name/secret-id/destroy` (POST deletes one).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { SECRET_ID_FIELDS, secretIdLimits } from './role-fields.js';
import { roleNameOf, rolesOf, secretIdsOf } from './role.routes.js';
import type { RoleEntry } from './roles.js';

async function existingRole(req: SecretsRequest): Promise<RoleEntry> {
  const name = roleNameOf(req);
  const role = await rolesOf(req).get(name);
  if (!role) throw badRequest(`role "${name}" does not exist`);
  return role;
}

const secretIdPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id',
  synopsis: 'Issue a secret ID for a role, or list the accessors of its secret IDs',
  description: 'The secret ID is returned once and stored only as a hash. `ttl` and `num_uses` may tighten the role\'s limits, never loosen them.',
  params: { role_name: 'the role name' },
  fields: SECRET_ID_FIELDS,
  operations: {
    update: {
      summary: 'Issue a secret ID',
      handle: async (req) => {
        const role = await existingRole(req);
        const issued = await secretIdsOf(req).issue(role.id, secretIdLimits(req.data, role), req.now);
        return { data: { ...issued } };
      },
    },
    list: {
      summary: 'List the accessors of the role\'s live secret IDs',
      handle: async (req) => {
        const role = await rolesOf(req).get(roleNameOf(req));
        return role && { data: { keys: await secretIdsOf(req).accessors(role.id, req.now) } };
      },
    },
  },
};

const destroyPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id/destroy',
  synopsis: 'Destroy a secret ID of a role',
  params: { role_name: 'the role name' },
  fields: { secret_id: Type.String({ minLength: 1, description: 'the secret ID to destroy' }) },
  operations: {
    update: {
      summary: 'Destroy a secret ID (no error when it does not exist)',
      required: ['secret_id'],
      handle: async (req) => {
        const role = await existingRole(req);
        await secretIdsOf(req).destroy(role.id, String(req.data.secret_id));
        return undefined;
      },
    },
  },
};

/** Secret ID paths, most specific first. */
export const secretIdPaths: readonly SecretsPath[] = [destroyPath, secretIdPath];
