/**
 * The discovery service's create forms of ACL roles, auth methods and binding rules
 * (reference/mesh.md §3–§4: `PUT /v1/acl/role`, `/v1/acl/auth-method`, `/v1/acl/binding-rule`),
 * for the shared field form (acl/AclForm.tsx).
 */
import { compact, jsonField, listField, type AclForm } from '../acl/kinds';

export const MESH_ROLE_FORM: AclForm = {
  noun: 'role',
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'description', label: 'Description' },
    { name: 'policies', label: 'Policies', hint: 'Policy names, separated by commas.' },
  ],
  write: (v) => ({
    method: 'PUT',
    path: '/v1/acl/role',
    body: compact({ Name: v.name.trim(), Description: v.description, Policies: listField(v.policies).map((Name) => ({ Name })) }),
  }),
};

export const MESH_AUTH_METHOD_FORM: AclForm = {
  noun: 'auth method',
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'type', label: 'Type', type: 'select', options: ['jwt', 'kubernetes', 'oidc'] },
    { name: 'displayName', label: 'Display name' },
    { name: 'description', label: 'Description' },
    { name: 'maxTokenTTL', label: 'Max token TTL', hint: 'A duration such as 10m or 1h; empty: the service default.' },
    { name: 'config', label: 'Config (JSON)', type: 'json', required: true, hint: 'The method\'s Config object, e.g. {"JWKSURL": "https://…"}.' },
  ],
  write: (v) => ({
    method: 'PUT',
    path: '/v1/acl/auth-method',
    body: compact({
      Name: v.name.trim(),
      Type: v.type,
      DisplayName: v.displayName,
      Description: v.description,
      MaxTokenTTL: v.maxTokenTTL.trim(),
      Config: jsonField(v.config, 'Config (JSON)'),
    }),
  }),
};

export const MESH_BINDING_RULE_FORM: AclForm = {
  noun: 'binding rule',
  fields: [
    { name: 'authMethod', label: 'Auth method', required: true },
    { name: 'description', label: 'Description' },
    { name: 'selector', label: 'Selector', hint: 'A filter over the login\'s claims, e.g. "admins" in list.groups; empty: every login.' },
    { name: 'bindType', label: 'Bind type', type: 'select', options: ['service', 'node', 'role', 'policy'] },
    { name: 'bindName', label: 'Bind name', required: true, hint: 'May use the claims, e.g. ${value.user}.' },
  ],
  write: (v) => ({
    method: 'PUT',
    path: '/v1/acl/binding-rule',
    body: compact({ AuthMethod: v.authMethod.trim(), Description: v.description, Selector: v.selector, BindType: v.bindType, BindName: v.bindName.trim() }),
  }),
};
