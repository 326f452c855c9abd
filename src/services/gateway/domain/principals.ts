/**
 * Users and groups (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/users and `/groups`):
 * users live in global or an org and log in with the accounts linked to them
 * (`:add-accounts`, `:set-accounts`, `:remove-accounts`; an account belongs to one user,
 * from an auth method of the user's scope); groups live in any scope and hold users
 * (`:add-members`, `:set-members`, `:remove-members`).
 *
 * @module
 */
import { deleteGroup, deleteUser } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { T, type AccountDoc, type AuthMethodDoc, type GroupDoc, type UserDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import type { Input } from './input.js';
import { newId, PREFIX } from './ids.js';
import type { Kind } from './resource.js';

/** Users: in global or an org. */
const userKind: Kind<UserDoc> = {
  type: 'user',
  table: T.users,
  idActions: ['no-op', 'read', 'update', 'delete', 'add-accounts', 'set-accounts', 'remove-accounts'],
  where: (_d, u) => ({ scopeId: u.scope_id! }),
};

/** Groups: in any scope. */
const groupKind: Kind<GroupDoc> = {
  type: 'group',
  table: T.groups,
  idActions: ['no-op', 'read', 'update', 'delete', 'add-members', 'set-members', 'remove-members'],
  where: (_d, g) => ({ scopeId: g.scope_id! }),
};

/** A scope-level collection resource in scope `id`, when the scope exists and is of an allowed type. */
export function inScope(d: GatewayDomain, type: 'user' | 'group' | 'role' | 'auth-method' | 'auth-token', id: string) {
  return d.scope(id) ? { r: { id: '', type, scopeId: id }, scopeId: id } : undefined;
}

/** `list` changed by a set/add/remove action: `ids` checked by `valid` (problems reported on `field`). */
function membership(
  input: Input,
  field: string,
  { current, how, valid }: { current: readonly string[]; how: 'add' | 'set' | 'remove'; valid: (id: string) => string | undefined },
): string[] {
  const ids = input.strings(field, { required: how !== 'set' }) ?? [];
  if (how !== 'remove') {
    for (const id of ids) {
      const problem = valid(id);
      if (problem) {
        input.fail(field, problem);
        break;
      }
    }
  }
  if (how === 'set') return [...new Set(ids)];
  if (how === 'remove') return current.filter((x) => !ids.includes(x));
  return [...new Set([...current, ...ids])];
}

function accountProblem(d: GatewayDomain, user: UserDoc, id: string): string | undefined {
  const acct = d.state.get<AccountDoc>(T.accounts, id);
  if (!acct) return `Account "${id}" does not exist.`;
  const am = d.state.get<AuthMethodDoc>(T.authMethods, acct.auth_method_id);
  if (am?.scope_id !== user.scope_id) return `Account "${id}" is not in an auth method of the user's scope.`;
  const owner = d.state.list<UserDoc>(T.users).find((u) => u.id !== user.id && u.account_ids.includes(id));
  if (owner) return `Account "${id}" is already associated with another user.`;
  return undefined;
}

const accountsAction = (how: 'add' | 'set' | 'remove') => (d: GatewayDomain, input: Input, doc: UserDoc) => ({
  account_ids: membership(input, 'account_ids', { current: doc.account_ids, how, valid: (id) => accountProblem(d, doc, id) }),
});

const membersAction = (how: 'add' | 'set' | 'remove') => (d: GatewayDomain, input: Input, doc: GroupDoc) => ({
  member_ids: membership(input, 'member_ids', {
    current: doc.member_ids,
    how,
    valid: (id) => (d.state.get<UserDoc>(T.users, id) ? undefined : `User "${id}" does not exist.`),
  }),
});

/** The `users` collection: its routes are declared in routes.ts. */
export const userCollection: CollectionSpec<UserDoc> = {
  path: 'users',
  kind: userKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inScope(d, 'user', id),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    if (d.scope(parentId)?.type === 'project') input.fail('scope_id', 'Users can only be created in the global scope or an org.');
    return { scope_id: parentId, account_ids: [] };
  },
  newId: () => newId(PREFIX.user),
  actions: { 'add-accounts': accountsAction('add'), 'set-accounts': accountsAction('set'), 'remove-accounts': accountsAction('remove') },
  onDelete: (tx, doc, d) => deleteUser(tx, doc.id, d.nowIso()),
};

/** The `groups` collection: its routes are declared in routes.ts. */
export const groupCollection: CollectionSpec<GroupDoc> = {
  path: 'groups',
  kind: groupKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inScope(d, 'group', id),
  inParent: (doc, id) => doc.scope_id === id,
  create: async (_d, _input, parentId) => ({ scope_id: parentId, member_ids: [] }),
  newId: () => newId(PREFIX.group),
  actions: { 'add-members': membersAction('add'), 'set-members': membersAction('set'), 'remove-members': membersAction('remove') },
  onDelete: (tx, doc, d) => deleteGroup(tx, doc.id, d.nowIso()),
};
