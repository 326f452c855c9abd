/**
 * Role management of a `kubernetes` auth mount (reference: vault-plugin-auth-kubernetes
 * `role/:name`): LIST `role`, and create/update (merging), read, delete `role/:name`.
 *
 * @module
 */
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { checkName } from '../login.js';
import { K8S_ROLE_FIELDS, applyK8sRoleFields, k8sRolesOf, k8sRoleView } from './roles.js';

const nameOf = (req: SecretsRequest): string => checkName(req, req.params.name);
const write = async (req: SecretsRequest): Promise<undefined> => {
  await k8sRolesOf(req).update(nameOf(req), (c) => applyK8sRoleFields(req.data, c));
  return undefined;
};

const roleListPath: SecretsPath = {
  pattern: 'role',
  synopsis: 'List the roles of this Kubernetes method',
  operations: {
    list: { summary: 'List roles', handle: async (req) => ({ data: { keys: await k8sRolesOf(req).list() } }) },
  },
};

const rolePath: SecretsPath = {
  pattern: 'role/:name',
  synopsis: 'Manage one role: which service accounts may log in and the tokens they get',
  description:
    "`bound_service_account_names` and `bound_service_account_namespaces` are required (`*` = any, not both). `token_policies` are the issued tokens' policies (`default` is always added).",
  params: { name: 'the role name' },
  fields: K8S_ROLE_FIELDS,
  exists: async (req) => (await k8sRolesOf(req).get(req.params.name)) !== undefined,
  operations: {
    create: { summary: 'Create a role', handle: write },
    update: { summary: 'Update a role (fields not given keep their value)', handle: write },
    read: {
      summary: 'Read a role',
      handle: async (req) => {
        const r = await k8sRolesOf(req).get(nameOf(req));
        return r && { data: k8sRoleView(r) };
      },
    },
    delete: {
      summary: 'Delete a role',
      handle: async (req) => {
        await k8sRolesOf(req).delete(nameOf(req));
        return undefined;
      },
    },
  },
};

/** Role management paths, most specific first. */
export const k8sRolePaths: readonly SecretsPath[] = [roleListPath, rolePath];
