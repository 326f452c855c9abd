/**
 * Role paths of the database engine (reference/secrets-engines.md §5): dynamic roles
 * `roles` (LIST), `roles/:name` and `creds/:name` (a leased user); static roles
 * `static-roles` (LIST), `static-roles/:name` (the password rotated at once on create),
 * `static-creds/:name` and `rotate-role/:name`.
 *
 * @module
 */
import { CairnError, badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { configStore, roleAllowed } from './config.js';
import { activeOnly } from './connection.js';
import { issueCreds } from './creds.js';
import { ROLE_FIELDS, applyRoleFields, roleStore, roleView } from './roles.js';
import { rotateStatic } from './rotation.js';
import { STATIC_ROLE_FIELDS, applyStaticRoleFields, staticCredsView, staticRoleStore, staticRoleView } from './static-roles.js';

const nameOf = (req: SecretsRequest) => req.params.name;
const ctxOf = (req: SecretsRequest) => ({ mount: req.mount, storage: req.storage, resources: req.core.resources, now: req.now });

async function writeRole(req: SecretsRequest) {
  const store = roleStore(req.storage);
  await store.put(nameOf(req), applyRoleFields(req.data, await store.get(nameOf(req))));
  return undefined;
}

/**
 * Stores a static role; a new one (or one whose connection changed) gets its password
 * rotated at once (a failure removes a new role again and answers the database's error).
 * Errors (400): field errors, the connection missing, the role not in its `allowed_roles`.
 */
async function writeStaticRole(req: SecretsRequest) {
  activeOnly(req.core);
  const name = nameOf(req);
  const store = staticRoleStore(req.storage);
  const current = await store.get(name);
  const role = applyStaticRoleFields(req.data, current);
  const config = await configStore(req.storage).get(role.db_name);
  if (!config) throw badRequest(`failed to find entry for connection with name: "${role.db_name}"`);
  if (!roleAllowed(config, name)) throw badRequest(`"${name}" is not an allowed role`);
  await store.put(name, role);
  if (current && current.db_name === role.db_name && current.last_rotation_ms > 0) return undefined;
  try {
    await rotateStatic(ctxOf(req), name);
  } catch (err) {
    if (!current) await store.delete(name);
    throw err;
  }
  return undefined;
}

const rolesListPath: SecretsPath = {
  pattern: 'roles',
  synopsis: 'List the dynamic roles',
  operations: { list: { summary: 'List roles', handle: async (req) => ({ data: { keys: await roleStore(req.storage).list() } }) } },
};

const rolePath: SecretsPath = {
  pattern: 'roles/:name',
  synopsis: 'Manage a dynamic role: how its database users are created, renewed and removed',
  description:
    'creation_statements create the user ({{name}}, {{password}}, {{expiration}}). Without revocation_statements a user is removed by revoking its privileges, then DROP ROLE; a user owning objects needs its own (REASSIGN OWNED / DROP OWNED / DROP ROLE).',
  params: { name: 'the role name' },
  fields: ROLE_FIELDS,
  exists: async (req) => (await roleStore(req.storage).get(nameOf(req))) !== undefined,
  operations: {
    create: { summary: 'Create a role', handle: writeRole },
    update: { summary: 'Update a role (fields not given keep their value)', handle: writeRole },
    read: {
      summary: 'Read a role',
      handle: async (req) => {
        const r = await roleStore(req.storage).get(nameOf(req));
        return r && { data: roleView(r) };
      },
    },
    delete: {
      summary: 'Delete a role (issued credentials stay until their leases end)',
      handle: async (req) => {
        await roleStore(req.storage).delete(nameOf(req));
        return undefined;
      },
    },
  },
};

const credsPath: SecretsPath = {
  pattern: 'creds/:name',
  synopsis: 'Create a database user for a role: a username and password under a renewable lease',
  description: 'The user is removed when the lease is revoked or expires; VALID UNTIL is set to the lease expiry.',
  params: { name: 'the role name' },
  operations: { read: { summary: 'Issue credentials', handle: issueCreds } },
};

const staticRolesListPath: SecretsPath = {
  pattern: 'static-roles',
  synopsis: 'List the static roles',
  operations: { list: { summary: 'List static roles', handle: async (req) => ({ data: { keys: await staticRoleStore(req.storage).list() } }) } },
};

const staticRolePath: SecretsPath = {
  pattern: 'static-roles/:name',
  synopsis: 'Manage a static role: an existing database user whose password is rotated every rotation_period',
  description: 'The password is rotated at once on create. Deleting the role leaves the database user as it is.',
  params: { name: 'the static role name' },
  fields: STATIC_ROLE_FIELDS,
  exists: async (req) => (await staticRoleStore(req.storage).get(nameOf(req))) !== undefined,
  operations: {
    create: { summary: 'Create a static role', handle: writeStaticRole },
    update: { summary: 'Update a static role', handle: writeStaticRole },
    read: {
      summary: 'Read a static role',
      handle: async (req) => {
        const r = await staticRoleStore(req.storage).get(nameOf(req));
        return r && { data: staticRoleView(r) };
      },
    },
    delete: {
      summary: 'Delete a static role (the database user stays)',
      handle: async (req) => {
        await staticRoleStore(req.storage).delete(nameOf(req));
        return undefined;
      },
    },
  },
};

const staticCredsPath: SecretsPath = {
  pattern: 'static-creds/:name',
  synopsis: "Read a static role's current password and the seconds until its next rotation",
  params: { name: 'the static role name' },
  operations: {
    read: {
      summary: 'Read static credentials',
      handle: async (req) => {
        const r = await staticRoleStore(req.storage).get(nameOf(req));
        if (!r) throw badRequest(`unknown role: ${nameOf(req)}`);
        if (r.last_rotation_ms === 0) throw new CairnError('internal', `static role "${nameOf(req)}" has not been rotated yet`);
        return { data: staticCredsView(r, req.now) };
      },
    },
  },
};

const rotateRolePath: SecretsPath = {
  pattern: 'rotate-role/:name',
  synopsis: "Rotate a static role's password now",
  params: { name: 'the static role name' },
  operations: {
    update: {
      summary: 'Rotate a static role',
      handle: async (req) => {
        activeOnly(req.core);
        await rotateStatic(ctxOf(req), nameOf(req));
        return undefined;
      },
    },
  },
};

/** Role paths, most specific first. */
export const rolePaths: readonly SecretsPath[] = [rolesListPath, rolePath, credsPath, staticRolesListPath, staticRolePath, staticCredsPath, rotateRolePath];
