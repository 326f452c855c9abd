/**
 * Auth methods and their accounts (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/auth-methods and
 * `/accounts`). An auth method lives in global or an org. A `password` one (`ampw_…`,
 * attributes `min_login_name_length` 3 and `min_password_length` 8 by default) has
 * accounts (`acctpw_…`, `attributes.login_name`, lower case) holding a scrypt hash of the
 * password (kernel/authn/password.ts), set at create, by `:set-password` or by
 * `:change-password` (which needs the current one). An `oidc` one (`amoidc_…`,
 * oidc-method.ts) has accounts (`acctoidc_…`: `issuer`, `subject`, `full_name`, `email`)
 * made at their first login (oidc-login.ts) or by an administrator; its `state` changes
 * by `:change-state`, and the anonymous user lists it only when `active-public`.
 *
 * @module
 */
import { hashPassword, verifyPassword } from '../../../kernel/authn/password.js';
import { deleteAccount, deleteAuthMethod } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { T, type AccountDoc, type AuthMethodDoc, type OidcAuthMethodDoc, type OidcState, type PasswordAccountDoc, type PasswordAuthMethodDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { GatewayApiError, invalidFields } from './errors.js';
import type { Input } from './input.js';
import { ANON_USER, newId, PREFIX } from './ids.js';
import { oidcLogins } from './oidc-login.js';
import { incomplete, OIDC_STATES, oidcAttributes, oidcAttributesView } from './oidc-method.js';
import { isPrimary } from './primary.js';
import { inScope } from './principals.js';
import type { Kind } from './resource.js';

/** Default minimum login name length (the reference's). */
export const MIN_LOGIN_NAME_LENGTH = 3;
/** Default minimum password length (the reference's). */
export const MIN_PASSWORD_LENGTH = 8;

/** Auth methods: in their scope; `authenticate` is one of their actions. */
export const authMethodKind: Kind<AuthMethodDoc> = {
  type: 'auth-method',
  table: T.authMethods,
  idActions: ['no-op', 'read', 'update', 'delete', 'change-state', 'authenticate'],
  where: (_d, am) => ({ scopeId: am.scope_id! }),
};

/** Accounts: in their auth method's scope, pinned to the auth method. */
const accountKind: Kind<AccountDoc> = {
  type: 'account',
  table: T.accounts,
  idActions: ['no-op', 'read', 'update', 'delete', 'set-password', 'change-password'],
  where: (_d, a) => ({ scopeId: a.scope_id!, pin: a.auth_method_id }),
};

function attributes(input: Input, current?: PasswordAuthMethodDoc['attributes']): PasswordAuthMethodDoc['attributes'] {
  const a = input.object('attributes');
  return {
    min_login_name_length: a.int('min_login_name_length', { min: 1 }) ?? current?.min_login_name_length ?? MIN_LOGIN_NAME_LENGTH,
    min_password_length: a.int('min_password_length', { min: 1 }) ?? current?.min_password_length ?? MIN_PASSWORD_LENGTH,
  };
}

/** The `auth-methods` collection: its routes are declared in routes.ts. */
export const authMethodCollection: CollectionSpec<AuthMethodDoc> = {
  path: 'auth-methods',
  kind: authMethodKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inScope(d, 'auth-method', id),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    const type = input.string('type', { required: true });
    if (typeof type === 'string' && type !== 'password' && type !== 'oidc') input.fail('type', 'Must be "password" or "oidc".');
    if (d.scope(parentId)?.type === 'project') input.fail('scope_id', 'Auth methods can only be created in the global scope or an org.');
    if (type === 'oidc') return { scope_id: parentId, type: 'oidc', attributes: oidcAttributes(input), is_primary: false };
    return { scope_id: parentId, type: 'password', attributes: attributes(input), is_primary: false };
  },
  async update(d, input, doc) {
    const type = input.string('type');
    if (typeof type === 'string' && type !== doc.type) input.fail('type', 'The type of an auth method cannot be changed.');
    if (doc.type === 'password') return { attributes: attributes(input, doc.attributes) };
    const next = oidcAttributes(input, doc.attributes);
    if (next.state !== 'inactive') await checkActive(d, doc, next, input);
    return { attributes: next } as Partial<AuthMethodDoc>;
  },
  actions: {
    /** `{"version","attributes":{"state"},"disable_discovered_config_validation"?}` (the reference's ChangeState). */
    'change-state': async (d, input, doc) => {
      if (doc.type !== 'oidc') throw invalidFields({ id: 'Only OIDC auth methods have a state.' });
      const a = input.object('attributes');
      const state = a.string('state', { required: true });
      if (typeof state === 'string' && !(OIDC_STATES as readonly string[]).includes(state)) a.fail('state', `Must be one of ${OIDC_STATES.join(', ')}.`);
      const disable = input.bool('disable_discovered_config_validation');
      const next = {
        ...doc.attributes,
        state: (state ?? doc.attributes.state) as OidcState,
        disable_discovered_config_validation: disable ?? doc.attributes.disable_discovered_config_validation,
      };
      if (next.state !== 'inactive') await checkActive(d, doc, next, input);
      return { attributes: next } as Partial<AuthMethodDoc>;
    },
  },
  extra: (d, doc) => ({ is_primary: isPrimary(d, doc), ...(doc.type === 'oidc' ? { attributes: oidcAttributesView(doc) } : {}) }),
  listable: (_d, doc, caller) => doc.type !== 'oidc' || caller.userId !== ANON_USER || doc.attributes.state === 'active-public',
  newId: (doc) => newId(doc.type === 'oidc' ? PREFIX.oidcAuthMethod : PREFIX.passwordAuthMethod),
  onDelete: (tx, doc, d) => deleteAuthMethod(tx, doc.id, d.nowIso()),
};

/**
 * An active OIDC method needs its four fields and, unless
 * `disable_discovered_config_validation`, a provider whose discovery document can be read.
 * @throws 400 naming the missing fields or the provider's problem.
 */
async function checkActive(d: GatewayDomain, doc: OidcAuthMethodDoc, next: OidcAuthMethodDoc['attributes'], input: Input): Promise<void> {
  const missing = incomplete(next);
  if (Object.keys(missing).length > 0) {
    for (const [f, m] of Object.entries(missing)) input.fail(f, m);
    return;
  }
  if (next.disable_discovered_config_validation) return;
  try {
    // The version that will be stored: the flow built here serves the first logins.
    await oidcLogins(d).flowOf({ ...doc, attributes: next, version: doc.version + 1 });
  } catch (err) {
    throw new GatewayApiError('bad_request', 'FailedPrecondition', `Unable to validate the discovered configuration: ${(err as Error).message}`);
  }
}

/** A login name the reference accepts: lower case letters, digits, `.`, `-`, `_`, `@`, at least the method's minimum. */
function loginNameProblem(am: PasswordAuthMethodDoc, name: string): string | undefined {
  if (name !== name.toLowerCase() || !/^[a-z0-9._@-]+$/.test(name)) return 'Must be all-lowercase letters, digits, ".", "-", "_" or "@".';
  if (name.length < am.attributes.min_login_name_length) return `Must be at least ${am.attributes.min_login_name_length} characters.`;
  return undefined;
}

/** The hash of `field`'s password, after checking its length; undefined when absent or bad. */
async function password(input: Input, field: string, am: PasswordAuthMethodDoc | undefined, required: boolean): Promise<PasswordAccountDoc['password_hash']> {
  const v = input.string(field, { required });
  if (typeof v !== 'string') return undefined;
  if (am && v.length < am.attributes.min_password_length) {
    input.fail(field, `Must be at least ${am.attributes.min_password_length} characters.`);
    return undefined;
  }
  return hashPassword(v);
}

/** The password auth method of account `a`. @throws 400 for an OIDC account (it has no password). */
function passwordMethodOf(d: GatewayDomain, a: AccountDoc): PasswordAuthMethodDoc {
  const am = d.state.get<AuthMethodDoc>(T.authMethods, a.auth_method_id);
  if (!am || am.type !== 'password') throw invalidFields({ id: 'Only password accounts have a password.' });
  return am;
}

/** The `accounts` collection: its routes are declared in routes.ts. */
export const accountCollection: CollectionSpec<AccountDoc> = {
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
    if (am.type === 'oidc') {
      // An administrator may make an account before its first login (to give it a user).
      const subject = attrs.string('subject', { required: true });
      const issuer = attrs.string('issuer') ?? am.attributes.issuer;
      if (!issuer) attrs.fail('issuer', 'This field is required when the auth method has no issuer.');
      return { scope_id: scopeId, auth_method_id: amId, type: 'oidc', attributes: { issuer: issuer ?? '', subject: subject ?? '' } };
    }
    const login = attrs.string('login_name', { required: true });
    const problem = typeof login === 'string' ? loginNameProblem(am, login) : undefined;
    if (problem) attrs.fail('login_name', problem);
    const hash = await password(attrs, 'password', am, false);
    return { scope_id: scopeId, auth_method_id: amId, type: 'password', attributes: { login_name: login ?? '' }, password_hash: hash };
  },
  update(d, input, doc) {
    const attrs = input.object('attributes');
    if (doc.type === 'oidc') return {};
    const login = attrs.string('login_name', { nonEmpty: true });
    if (typeof login !== 'string') return {};
    const problem = loginNameProblem(passwordMethodOf(d, doc), login);
    if (problem) attrs.fail('login_name', problem);
    return { attributes: { login_name: login } };
  },
  newId: (doc) => newId(doc.type === 'oidc' ? PREFIX.oidcAccount : PREFIX.passwordAccount),
  actions: {
    'set-password': async (d, input, doc) => ({ password_hash: await password(input, 'password', passwordMethodOf(d, doc), true) }),
    'change-password': async (d, input, doc) => {
      const am = passwordMethodOf(d, doc);
      const current = input.string('current_password', { required: true });
      if (typeof current === 'string' && !(await verifyPassword(current, doc.password_hash))) input.fail('current_password', 'The current password is wrong.');
      return { password_hash: await password(input, 'new_password', am, true) };
    },
  },
  onDelete: (tx, doc, d) => deleteAccount(tx, doc.id, d.nowIso()),
};
