/**
 * AppRole role management paths (reference/secrets.md §4.2): `role` (LIST),
 * `role/:role_name` (create/update, read, delete) and `role/:role_name/role-id`
 * (read, or set a custom role ID). Deleting a role deletes its secret IDs.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../../kernel/http/index.js';
import type { SecretsPath } from '../../types.js';
import { ROLE_FIELDS, applyRoleFields } from './role-fields.js';
import { roleNameOf, rolesOf, roleView } from './roles.js';
import { secretIdsOf } from './secret-ids.js';

const roleListPath: SecretsPath = {
  pattern: 'role',
  synopsis: 'List the roles of this AppRole method',
  operations: {
    list: { summary: 'List roles', handle: async (req) => ({ data: { keys: await rolesOf(req).list() } }) },
  },
};

const rolePath: SecretsPath = {
  pattern: 'role/:role_name',
  synopsis: 'Manage one role: the policies and TTLs of its tokens and the limits of its secret IDs',
  description:
    'A new role gets a random role ID (see role-id). `token_policies` (alias `policies`) lists the policies of the tokens issued at login; `default` is always added. Deleting a role deletes its secret IDs.',
  params: { role_name: 'the role name' },
  fields: ROLE_FIELDS,
  exists: async (req) => (await rolesOf(req).get(req.params.role_name)) !== undefined,
  operations: {
    update: {
      summary: 'Create or update a role (fields not given keep their value)',
      handle: async (req) => {
        await rolesOf(req).update(roleNameOf(req), (current) => applyRoleFields(req.data, current));
        return undefined;
      },
    },
    read: {
      summary: 'Read a role',
      handle: async (req) => {
        const r = await rolesOf(req).get(roleNameOf(req));
        return r && { data: roleView(r) };
      },
    },
    delete: {
      summary: 'Delete a role and its secret IDs',
      handle: async (req) => {
        const removed = await rolesOf(req).delete(roleNameOf(req));
        if (removed) await secretIdsOf(req).destroyAll(removed.id);
        return undefined;
      },
    },
  },
};

const roleIdPath: SecretsPath = {
  pattern: 'role/:role_name/role-id',
  synopsis: 'Read or set the role ID of a role',
  description: 'The role ID identifies the role at login; it is not a secret by itself (the secret ID is). A custom one must be unique in the mount.',
  params: { role_name: 'the role name' },
  fields: { role_id: Type.String({ minLength: 1, description: 'the new role ID' }) },
  operations: {
    read: {
      summary: 'Read the role ID',
      handle: async (req) => {
        const r = await rolesOf(req).get(roleNameOf(req));
        return r && { data: { role_id: r.role_id } };
      },
    },
    update: {
      summary: 'Set a custom role ID',
      required: ['role_id'],
      handle: async (req) => {
        const name = roleNameOf(req);
        await rolesOf(req).update(name, (current) => {
          if (!current) throw badRequest(`role "${name}" does not exist`);
          return { ...current, role_id: String(req.data.role_id) };
        });
        return undefined;
      },
    },
  },
};

/** Role management paths, most specific first. */
export const rolePaths: readonly SecretsPath[] = [roleListPath, roleIdPath, rolePath];
