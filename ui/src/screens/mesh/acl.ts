/** The discovery service's ACL API (reference/mesh.md §6) for the shared ACL screens. */
import { names, str, type AclService } from '../acl/kinds';
import { MESH_AUTH_METHOD_FORM, MESH_BINDING_RULE_FORM, MESH_ROLE_FORM } from './aclForms';

const e = encodeURIComponent;

export const MESH_ACL: AclService = {
  section: 'mesh',
  base: '/discovery/acl',
  kinds: [
    {
      slug: 'tokens',
      title: 'Tokens',
      list: '/v1/acl/tokens',
      idOf: (r) => str(r.AccessorID),
      read: (id) => `/v1/acl/token/${e(id)}`,
      remove: (id) => `/v1/acl/token/${e(id)}`,
      columns: [
        ['Accessor', (r) => str(r.AccessorID)],
        ['Description', (r) => str(r.Description)],
        ['Policies', (r) => names(r.Policies)],
        ['Local', (r) => (r.Local ? 'yes' : 'no')],
      ],
      create: 'token',
    },
    {
      slug: 'policies',
      title: 'Policies',
      list: '/v1/acl/policies',
      idOf: (r) => str(r.ID),
      read: (id) => `/v1/acl/policy/${e(id)}`,
      remove: (id) => `/v1/acl/policy/${e(id)}`,
      columns: [
        ['Name', (r) => str(r.Name)],
        ['Description', (r) => str(r.Description)],
        ['ID', (r) => str(r.ID)],
      ],
      create: 'policy',
    },
    {
      slug: 'roles',
      title: 'Roles',
      list: '/v1/acl/roles',
      idOf: (r) => str(r.ID),
      read: (id) => `/v1/acl/role/${e(id)}`,
      remove: (id) => `/v1/acl/role/${e(id)}`,
      form: MESH_ROLE_FORM,
      columns: [
        ['Name', (r) => str(r.Name)],
        ['Description', (r) => str(r.Description)],
        ['Policies', (r) => names(r.Policies)],
      ],
    },
    {
      slug: 'auth-methods',
      title: 'Auth methods',
      list: '/v1/acl/auth-methods',
      idOf: (r) => str(r.Name),
      read: (id) => `/v1/acl/auth-method/${e(id)}`,
      remove: (id) => `/v1/acl/auth-method/${e(id)}`,
      form: MESH_AUTH_METHOD_FORM,
      columns: [
        ['Name', (r) => str(r.Name)],
        ['Type', (r) => str(r.Type)],
        ['Display name', (r) => str(r.DisplayName)],
      ],
    },
    {
      slug: 'binding-rules',
      title: 'Binding rules',
      list: '/v1/acl/binding-rules',
      idOf: (r) => str(r.ID),
      read: (id) => `/v1/acl/binding-rule/${e(id)}`,
      remove: (id) => `/v1/acl/binding-rule/${e(id)}`,
      form: MESH_BINDING_RULE_FORM,
      columns: [
        ['ID', (r) => str(r.ID)],
        ['Auth method', (r) => str(r.AuthMethod)],
        ['Bind', (r) => `${str(r.BindType)} ${str(r.BindName)}`],
        ['Selector', (r) => str(r.Selector)],
      ],
    },
  ],
  writePolicy: (p) => ({
    method: 'PUT',
    path: p.id ? `/v1/acl/policy/${e(p.id)}` : '/v1/acl/policy',
    body: { Name: p.name, Description: p.description, Rules: p.rules },
  }),
  createToken: (t) => ({ method: 'PUT', path: '/v1/acl/token', body: { Description: t.description, Policies: t.policies.map((Name) => ({ Name })) } }),
  policyName: (r) => str(r.Name),
};
