/**
 * The scheduler's create forms of ACL roles, auth methods and binding rules (the reference's
 * `command/agent/acl_endpoint.go`: `POST /v1/acl/role`, `/v1/acl/auth-method`,
 * `/v1/acl/binding-rule`), for the shared field form (acl/AclForm.tsx).
 */
import { compact, jsonField, listField, type AclForm } from '../acl/kinds';

export const SCHED_ROLE_FORM: AclForm = {
  noun: 'role',
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'description', label: 'Description' },
    { name: 'policies', label: 'Policies', required: true, hint: 'Policy names, separated by commas.' },
  ],
  write: (v) => ({
    method: 'POST',
    path: '/v1/acl/role',
    body: compact({ Name: v.name.trim(), Description: v.description, Policies: listField(v.policies).map((Name) => ({ Name })) }),
  }),
};

export const SCHED_AUTH_METHOD_FORM: AclForm = {
  noun: 'auth method',
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'type', label: 'Type', type: 'select', options: ['JWT', 'OIDC'] },
    { name: 'tokenLocality', label: 'Token locality', type: 'select', options: ['local', 'global'] },
    { name: 'maxTokenTTL', label: 'Max token TTL', required: true, initial: '1h', hint: 'A duration such as 10m or 1h.' },
    { name: 'default', label: 'Default method', type: 'checkbox', hint: 'Used by a login that names no method.' },
    { name: 'config', label: 'Config (JSON)', type: 'json', required: true, hint: 'The method\'s Config object, e.g. {"JWKSURL": "https://…"}.' },
  ],
  write: (v) => ({
    method: 'POST',
    path: '/v1/acl/auth-method',
    body: compact({
      Name: v.name.trim(),
      Type: v.type,
      TokenLocality: v.tokenLocality,
      MaxTokenTTL: v.maxTokenTTL.trim(),
      Default: v.default === 'true',
      Config: jsonField(v.config, 'Config (JSON)'),
    }),
  }),
};

export const SCHED_BINDING_RULE_FORM: AclForm = {
  noun: 'binding rule',
  fields: [
    { name: 'authMethod', label: 'Auth method', required: true },
    { name: 'description', label: 'Description' },
    { name: 'selector', label: 'Selector', hint: 'A filter over the login\'s claims, e.g. "admins" in list.groups; empty: every login.' },
    { name: 'bindType', label: 'Bind type', type: 'select', options: ['role', 'policy', 'management'] },
    { name: 'bindName', label: 'Bind name', hint: 'A role or policy name, may use the claims (e.g. ${value.user}); none for management.' },
  ],
  write: (v) => ({
    method: 'POST',
    path: '/v1/acl/binding-rule',
    body: compact({ AuthMethod: v.authMethod.trim(), Description: v.description, Selector: v.selector, BindType: v.bindType, BindName: v.bindName.trim() }),
  }),
};
