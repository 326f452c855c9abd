/**
 * AppRole secret ID paths (reference/secrets.md §4.2; the reference's AppRole API):
 * `role/:role_name/secret-id` (POST issues one, shown once; LIST shows the accessors),
 * `custom-secret-id` (POST registers a caller-chosen one), `secret-id/lookup` and
 * `secret-id/destroy` (by the secret ID), `secret-id-accessor/lookup` and
 * `secret-id-accessor/destroy` (by its accessor).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, notFound } from '../../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../../types.js';
import { CUSTOM_SECRET_ID_FIELDS, SECRET_ID_FIELDS, secretIdBindings, secretIdLimits } from './role-fields.js';
import { roleNameOf, rolesOf, type RoleEntry } from './roles.js';
import { secretIdsOf, secretIdView } from './secret-ids.js';

const params = { role_name: 'the role name' };
const SECRET_ID = { secret_id: Type.String({ minLength: 1, description: 'a secret ID of the role' }) };
const ACCESSOR = { secret_id_accessor: Type.String({ minLength: 1, description: 'the accessor of a secret ID of the role' }) };

/** The role of the URL. Errors (400): it does not exist. */
async function existingRole(req: SecretsRequest): Promise<RoleEntry> {
  const name = roleNameOf(req);
  const role = await rolesOf(req).get(name);
  if (!role) throw badRequest(`role "${name}" does not exist`);
  return role;
}

/** The reference's 404 text for an accessor the role does not have. */
const noAccessor = (accessor: string) => notFound(`failed to find accessor entry for secret_id_accessor: ${JSON.stringify(accessor)}`);

/**
 * Issues a secret ID (random, or `custom`) with the request's limits and bindings.
 * Errors (400): no role, a role without `bind_secret_id`, limits or bindings the role
 * does not allow (see role-fields.ts), a custom secret ID the role already has.
 */
async function issue(req: SecretsRequest, custom?: string): Promise<SecretsResult> {
  const role = await existingRole(req);
  if (!role.bind_secret_id) throw badRequest('bind_secret_id is not set on the role');
  const limits = { ...secretIdLimits(req.data, role), ...secretIdBindings(req.data, role) };
  return { data: { ...(await secretIdsOf(req).issue(role.id, limits, req.now, custom)) } };
}

const secretIdPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id',
  synopsis: 'Issue a secret ID for a role, or list the accessors of its secret IDs',
  description:
    "The secret ID is returned once and stored only as a hash. `ttl` and `num_uses` may tighten the role's limits, never loosen them; `cidr_list` and `token_bound_cidrs` must lie within the role's blocks.",
  params,
  fields: SECRET_ID_FIELDS,
  operations: {
    update: { summary: 'Issue a secret ID', handle: (req) => issue(req) },
    list: {
      summary: "List the accessors of the role's live secret IDs",
      handle: async (req) => {
        const role = await rolesOf(req).get(roleNameOf(req));
        return role && { data: { keys: await secretIdsOf(req).accessors(role.id, req.now) } };
      },
    },
  },
};

const customSecretIdPath: SecretsPath = {
  pattern: 'role/:role_name/custom-secret-id',
  synopsis: 'Register a secret ID chosen by the caller for a role (the "push" model)',
  description: 'Takes the same fields as secret-id plus `secret_id`; it is stored only as a hash and must be new to the role.',
  params,
  fields: CUSTOM_SECRET_ID_FIELDS,
  operations: {
    update: { summary: 'Register a custom secret ID', required: ['secret_id'], handle: (req) => issue(req, String(req.data.secret_id)) },
  },
};

const lookupPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id/lookup',
  synopsis: 'Read the properties of a secret ID of a role',
  description: 'Answers 204 when the role has no such live secret ID. The secret ID itself is never shown.',
  params,
  fields: SECRET_ID,
  operations: {
    update: {
      summary: 'Look up a secret ID',
      required: ['secret_id'],
      handle: async (req) => {
        const role = await existingRole(req);
        const e = await secretIdsOf(req).lookup(role.id, String(req.data.secret_id), req.now);
        return e && { data: secretIdView(e) };
      },
    },
  },
};

const destroyPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id/destroy',
  synopsis: 'Destroy a secret ID of a role',
  params,
  fields: SECRET_ID,
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

const accessorLookupPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id-accessor/lookup',
  synopsis: 'Read the properties of a secret ID of a role by its accessor',
  description: 'Answers 404 when the role has no such accessor.',
  params,
  fields: ACCESSOR,
  operations: {
    update: {
      summary: 'Look up a secret ID by accessor',
      required: ['secret_id_accessor'],
      handle: async (req) => {
        const role = await existingRole(req);
        const accessor = String(req.data.secret_id_accessor);
        const e = await secretIdsOf(req).lookupAccessor(role.id, accessor, req.now);
        if (!e) throw noAccessor(accessor);
        return { data: secretIdView(e) };
      },
    },
  },
};

/** Destroys the secret ID behind the request's accessor. Errors (404): the role has no such accessor. */
async function destroyByAccessor(req: SecretsRequest): Promise<undefined> {
  const role = await existingRole(req);
  const accessor = String(req.data.secret_id_accessor);
  if (!(await secretIdsOf(req).destroyAccessor(role.id, accessor))) throw noAccessor(accessor);
  return undefined;
}

const accessorDestroyPath: SecretsPath = {
  pattern: 'role/:role_name/secret-id-accessor/destroy',
  synopsis: 'Destroy a secret ID of a role by its accessor',
  description: 'Answers 404 when the role has no such accessor. DELETE takes the accessor as a query parameter.',
  params,
  fields: ACCESSOR,
  operations: {
    update: { summary: 'Destroy a secret ID by accessor', required: ['secret_id_accessor'], handle: destroyByAccessor },
    delete: { summary: 'Destroy a secret ID by accessor', required: ['secret_id_accessor'], handle: destroyByAccessor },
  },
};

/** Secret ID paths, most specific first. */
export const secretIdPaths: readonly SecretsPath[] = [lookupPath, destroyPath, accessorLookupPath, accessorDestroyPath, customSecretIdPath, secretIdPath];
