/**
 * Scopes (reference: https://developer.hashicorp.com/boundary/docs/concepts/domain-model/scopes):
 * `global` contains orgs (`o_…`), an org contains projects (`p_…`), a project no scope.
 * `POST /v1/scopes {"scope_id":"global"}` makes an org, under an org a project;
 * `GET /v1/scopes?scope_id=global&recursive=true` lists the tree. A scope's item carries
 * `authorized_collection_actions`: what the caller may do on the collections in it.
 * Creating a scope also makes, as the reference does unless
 * `?skip_admin_role_creation=true`, an "Administration" role in it granting its creator
 * `ids=*;type=*;actions=*` there (not for the recovery credential, which needs none).
 *
 * @module
 */
import { deleteScope } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { T, type RoleDoc, type ScopeDoc } from './docs.js';
import type { Caller } from './domain.js';
import { invalidFields } from './errors.js';
import { GLOBAL, newId, PREFIX, RECOVERY_USER, type ResourceType } from './ids.js';

import { primaryAuthMethodUpdate } from './primary.js';
import { may, type Kind } from './resource.js';

/** The scope kind: a scope is authorised in its parent (global in itself). */
const scopeKind: Kind<ScopeDoc> = {
  type: 'scope',
  table: T.scopes,
  idActions: ['no-op', 'read', 'update', 'delete'],
  where: (_d, s) => ({ scopeId: s.scope_id ?? GLOBAL }),
};

/** Collections inside a scope, by path, with their resource type (for `authorized_collection_actions`). */
const COLLECTIONS: ReadonlyArray<[string, ResourceType, ReadonlyArray<ScopeDoc['type']>]> = [
  ['auth-methods', 'auth-method', ['global', 'org']],
  ['auth-tokens', 'auth-token', ['global', 'org']],
  ['credential-stores', 'credential-store', ['project']],
  ['groups', 'group', ['global', 'org', 'project']],
  ['host-catalogs', 'host-catalog', ['project']],
  ['roles', 'role', ['global', 'org', 'project']],
  ['scopes', 'scope', ['global', 'org']],
  ['targets', 'target', ['project']],
  ['users', 'user', ['global', 'org']],
];

/** `authorized_collection_actions` of `scope` for `caller`: collection → the allowed of create and list. */
function collectionActions(caller: Caller, scope: ScopeDoc): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, type, where] of COLLECTIONS) {
    if (!where.includes(scope.type)) continue;
    const acts = ['create', 'list'].filter((a) => may(caller, { id: '', type, scopeId: scope.id }, a));
    if (acts.length > 0) out[path] = acts;
  }
  return out;
}

/** The `scopes` collection: its routes are declared in routes.ts. */
export const scopeCollection: CollectionSpec<ScopeDoc> = {
  path: 'scopes',
  kind: scopeKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, parentId) => (d.scope(parentId) ? { r: { id: '', type: 'scope', scopeId: parentId }, scopeId: parentId } : undefined),
  inParent: (doc, parentId) => doc.scope_id === parentId,
  async create(d, input, parentId) {
    const parent = d.scope(parentId)!;
    if (parent.type === 'project') input.fail('scope_id', 'Projects cannot contain scopes.');
    return { scope_id: parentId, type: parent.type === 'global' ? 'org' : 'project' };
  },
  update: (d, input, doc) => (primaryAuthMethodUpdate(d, input, doc) ?? {}) as Partial<ScopeDoc>,
  extra: (_d, s, caller) => ({ authorized_collection_actions: collectionActions(caller, s) }),
  newId: (doc) => newId(doc.type === 'org' ? PREFIX.org : PREFIX.project),
  afterCreate(tx, doc, { d, caller, query }) {
    if (caller.userId === RECOVERY_USER || /^(1|t|true)$/i.test(query.get('skip_admin_role_creation') ?? '')) return;
    const now = d.nowIso();
    const id = newId(PREFIX.role);
    tx.put<RoleDoc>(T.roles, id, {
      id,
      scope_id: doc.id,
      name: 'Administration',
      description: `Administrative grants for scope ${doc.id}`,
      principal_ids: [caller.userId],
      grant_strings: ['ids=*;type=*;actions=*'],
      grant_scope_ids: ['this'],
      created_time: now,
      updated_time: now,
      version: 1,
    });
  },
  onDelete(tx, doc, d) {
    if (doc.id === GLOBAL) throw invalidFields({ id: 'The global scope cannot be deleted.' });
    deleteScope(tx, doc.id, d.nowIso());
  },
};
