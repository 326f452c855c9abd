/**
 * Password auth methods and their accounts (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/auth-methods and
 * `/accounts`). An auth method lives in global or an org (`ampw_…`, attributes
 * `min_login_name_length` 3 and `min_password_length` 8 by default); its accounts
 * (`acctpw_…`, `attributes.login_name`, lower case) hold a scrypt hash of the password
 * (kernel/authn/password.ts), set at create, by `:set-password` or by
 * `:change-password` (which needs the current one).
 *
 * @module
 */
import { hashPassword, verifyPassword } from '../../../kernel/authn/password.js';
import { deleteAccount, deleteAuthMethod } from './cascade.js';
import { collectionRoutes, type CollectionSpec } from './collection.js';
import { T, type AccountDoc, type AuthMethodDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import type { Input } from './input.js';
import { newId, PREFIX } from './ids.js';
import { inScope } from './principals.js';
import type { Kind } from './resource.js';
import type { DomainRoute } from './route.js';

/** Default minimum login name length (the reference's). */
export const MIN_LOGIN_NAME_LENGTH = 3;
/** Default minimum password length (the reference's). */
export const MIN_PASSWORD_LENGTH = 8;

/** Auth methods: in their scope; `authenticate` is one of their actions. */
export const authMethodKind: Kind<AuthMethodDoc> = {
  type: 'auth-method',
  table: T.authMethods,
  idActions: ['no-op', 'read', 'update', 'delete', 'authenticate'],
  where: (_d, am) => ({ scopeId: am.scope_id! }),
};

/** Accounts: in their auth method's scope, pinned to the auth method. */
export const accountKind: Kind<AccountDoc> = {
  type: 'account',
  table: T.accounts,
  idActions: ['no-op', 'read', 'update', 'delete', 'set-password', 'change-password'],
  where: (_d, a) => ({ scopeId: a.scope_id!, pin: a.auth_method_id }),
};

function attributes(input: Input, current?: AuthMethodDoc['attributes']): AuthMethodDoc['attributes'] {
  const a = input.object('attributes');
  return {
    min_login_name_length: a.int('min_login_name_length', { min: 1 }) ?? current?.min_login_name_length ?? MIN_LOGIN_NAME_LENGTH,
    min_password_length: a.int('min_password_length', { min: 1 }) ?? current?.min_password_length ?? MIN_PASSWORD_LENGTH,
  };
}

const authMethods: CollectionSpec<AuthMethodDoc> = {
  path: 'auth-methods',
  kind: authMethodKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inScope(d, 'auth-method', id),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    const type = input.string('type', { required: true });
    if (typeof type === 'string' && type !== 'password') input.fail('type', 'Only "password" auth methods are supported.');
    if (d.scope(parentId)?.type === 'project') input.fail('scope_id', 'Auth methods can only be created in the global scope or an org.');
    return { scope_id: parentId, type: 'password', attributes: attributes(input), is_primary: false };
  },
  update: (_d, input, doc) => {
    input.string('type');
    return { attributes: attributes(input, doc.attributes) };
  },
  newId: () => newId(PREFIX.passwordAuthMethod),
  onDelete: (tx, doc, d) => deleteAuthMethod(tx, doc.id, d.nowIso()),
};

/** A login name the reference accepts: lower case letters, digits, `.`, `-`, `_`, `@`, at least the method's minimum. */
function loginNameProblem(am: AuthMethodDoc, name: string): string | undefined {
  if (name !== name.toLowerCase() || !/^[a-z0-9._@-]+$/.test(name)) return 'Must be all-lowercase letters, digits, ".", "-", "_" or "@".';
  if (name.length < am.attributes.min_login_name_length) return `Must be at least ${am.attributes.min_login_name_length} characters.`;
  return undefined;
}

/** The hash of `field`'s password, after checking its length; undefined when absent or bad. */
async function password(input: Input, field: string, am: AuthMethodDoc | undefined, required: boolean): Promise<AccountDoc['password_hash']> {
  const v = input.string(field, { required });
  if (typeof v !== 'string') return undefined;
  if (am && v.length < am.attributes.min_password_length) {
    input.fail(field, `Must be at least ${am.attributes.min_password_length} characters.`);
    return undefined;
  }
  return hashPassword(v);
}

const methodOf = (d: GatewayDomain, a: AccountDoc) => d.state.get<AuthMethodDoc>(T.authMethods, a.auth_method_id);

const accounts: CollectionSpec<AccountDoc> = {
  path: 'accounts',
  kind: accountKind,
  parentField: 'auth_method_id',
  recursive: false,
  collection(d, amId) {
    const am = d.state.get<AuthMethodDoc>(T.authMethods, amId);
    return am ? { r: { id: '', type: 'account', scopeId: am.scope_id!, pin: am.id }, scopeId: am.scope_id! } : undefined;
  },
  inParent: (doc, amId) => doc.auth_method_id === amId,
  async create(d, input, amId, scopeId) {
    const am = d.state.get<AuthMethodDoc>(T.authMethods, amId)!;
    input.string('type');
    const attrs = input.object('attributes');
    const login = attrs.string('login_name', { required: true });
    const problem = typeof login === 'string' ? loginNameProblem(am, login) : undefined;
    if (problem) attrs.fail('login_name', problem);
    const hash = await password(attrs, 'password', am, false);
    return { scope_id: scopeId, auth_method_id: amId, type: 'password', attributes: { login_name: login ?? '' }, password_hash: hash };
  },
  update(d, input, doc) {
    const attrs = input.object('attributes');
    const login = attrs.string('login_name', { nonEmpty: true });
    if (typeof login !== 'string') return {};
    const problem = loginNameProblem(methodOf(d, doc)!, login);
    if (problem) attrs.fail('login_name', problem);
    return { attributes: { login_name: login } };
  },
  newId: () => newId(PREFIX.passwordAccount),
  actions: {
    'set-password': async (d, input, doc) => ({ password_hash: await password(input, 'password', methodOf(d, doc), true) }),
    'change-password': async (d, input, doc) => {
      const current = input.string('current_password', { required: true });
      if (typeof current === 'string' && !(await verifyPassword(current, doc.password_hash))) input.fail('current_password', 'The current password is wrong.');
      return { password_hash: await password(input, 'new_password', methodOf(d, doc), true) };
    },
  },
  onDelete: (tx, doc, d) => deleteAccount(tx, doc.id, d.nowIso()),
};

/** The auth method and account routes (`:authenticate` is in authenticate.ts). */
export function authMethodRoutes(): DomainRoute[] {
  return [...collectionRoutes(authMethods), ...collectionRoutes(accounts)];
}
