/** The scheduler's ACL API (the reference's `command/agent/acl_endpoint.go`) for the shared ACL screens. */
import { names, str, type AclService } from '../acl/kinds';
import { SCHED_AUTH_METHOD_FORM, SCHED_BINDING_RULE_FORM, SCHED_ROLE_FORM } from './aclForms';

const e = encodeURIComponent;

export const SCHED_ACL: AclService = {
  section: 'sched',
  base: '/scheduler/acl',
  kinds: [
    {
      slug: 'tokens',
      title: 'Tokens',
      list: '/v1/acl/tokens',
      idOf: (r) => str(r.AccessorID),
      read: (id) => `/v1/acl/token/${e(id)}`,
      remove: (id) => `/v1/acl/token/${e(id)}`,
      columns: [
        ['Name', (r) => str(r.Name)],
        ['Accessor', (r) => str(r.AccessorID)],
        ['Type', (r) => str(r.Type)],
        ['Policies', (r) => names(r.Policies)],
        ['Global', (r) => (r.Global ? 'yes' : 'no')],
      ],
      create: 'token',
    },
    {
      slug: 'policies',
      title: 'Policies',
      list: '/v1/acl/policies',
      idOf: (r) => str(r.Name),
      read: (id) => `/v1/acl/policy/${e(id)}`,
      remove: (id) => `/v1/acl/policy/${e(id)}`,
      columns: [
        ['Name', (r) => str(r.Name)],
        ['Description', (r) => str(r.Description)],
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
      form: SCHED_ROLE_FORM,
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
      form: SCHED_AUTH_METHOD_FORM,
      columns: [
        ['Name', (r) => str(r.Name)],
        ['Type', (r) => str(r.Type)],
        ['Default', (r) => (r.Default ? 'yes' : 'no')],
      ],
    },
    {
      slug: 'binding-rules',
      title: 'Binding rules',
      list: '/v1/acl/binding-rules',
      idOf: (r) => str(r.ID),
      read: (id) => `/v1/acl/binding-rule/${e(id)}`,
      remove: (id) => `/v1/acl/binding-rule/${e(id)}`,
      form: SCHED_BINDING_RULE_FORM,
      columns: [
        ['ID', (r) => str(r.ID)],
        ['Auth method', (r) => str(r.AuthMethod)],
        ['Description', (r) => str(r.Description)],
      ],
    },
  ],
  writePolicy: (p) => ({
    method: 'POST',
    path: `/v1/acl/policy/${e(p.id ?? p.name)}`,
    body: { Name: p.id ?? p.name, Description: p.description, Rules: p.rules },
  }),
  createToken: (t) => ({ method: 'POST', path: '/v1/acl/token', body: { Name: t.description, Type: 'client', Policies: t.policies } }),
  policyName: (r) => str(r.Name),
};
