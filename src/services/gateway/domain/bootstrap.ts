/**
 * The initial resources a controller makes on its first start (reference: Boundary's
 * `boundary database init` and `boundary dev`,
 * https://developer.hashicorp.com/boundary/docs/install-boundary/initialize): the global
 * scope; its roles "Login Grants" (`u_anon`: list scopes, list and authenticate to auth
 * methods), "Authenticated User Grants" (`u_auth`: the same, read and change-password on
 * the own account, list/read/delete the own auth tokens) and "Administration" (the admin
 * user: `ids=*;type=*;actions=*`), all with grant scopes `this` and `descendants`; a
 * generated org and project scope; a primary password auth method in global with the
 * account `admin` linked to the admin user. The admin password is random and returned
 * once for the operator (never stored in clear, never logged); `cairn dev` uses the
 * reference's dev values (fixed ids `…_1234567890`, password `password`).
 *
 * Runs once: a `meta/bootstrap` document marks it done, so a restart makes nothing again.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hashPassword, type PasswordHash } from '../../../kernel/authn/password.js';
import { MIN_LOGIN_NAME_LENGTH, MIN_PASSWORD_LENGTH } from './auth-methods.js';
import { T, type AccountDoc, type AuthMethodDoc, type BootstrapDoc, type RoleDoc, type ScopeDoc, type UserDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { ANON_USER, AUTH_USER, GLOBAL, newId, PREFIX } from './ids.js';

/** What the operator needs to log in the first time. */
export interface BootstrapLogin {
  readonly authMethodId: string;
  readonly loginName: string;
  /** The admin password, in clear: shown once, never stored. */
  readonly password: string;
  readonly orgId: string;
  readonly projectId: string;
}

/** Options of {@link bootstrapDomain}. */
export interface BootstrapOptions {
  /**
   * `cairn dev`: the reference's fixed dev ids and the password `password` (or this one);
   * `targetPort`: also make the dev target on 127.0.0.1 at that port (bootstrap-dev.ts).
   */
  readonly dev?: { readonly password?: string; readonly targetPort?: number };
}

/** Grants of the "Login Grants" role (`u_anon`; the reference's `database init`). */
const LOGIN_GRANTS = ['ids=*;type=scope;actions=list,no-op', 'ids=*;type=auth-method;actions=authenticate,list'];
/**
 * Grants of the "Authenticated User Grants" role (`u_auth`); the last one lets every user
 * list, read and cancel their own sessions (the reference's default session grants).
 */
const AUTHENTICATED_GRANTS = [
  ...LOGIN_GRANTS,
  'ids={{.Account.Id}};actions=read,change-password',
  'ids=*;type=auth-token;actions=list,read:self,delete:self',
  'ids=*;type=session;actions=list,read:self,cancel:self',
];
/** Grants of the "Administration" role (the admin user). */
const ADMIN_GRANTS = ['ids=*;type=*;actions=*'];

/** The admin password of a bootstrap and its hash (being computed). */
export interface BootstrapSecret {
  readonly password: string;
  readonly hash: Promise<PasswordHash>;
}

/**
 * Chooses the admin password and starts hashing it, so that a first start can hash while
 * it opens its state (scrypt runs on libuv's thread pool).
 */
export function bootstrapSecret(o: BootstrapOptions = {}): BootstrapSecret {
  const password = o.dev ? (o.dev.password ?? 'password') : randomBytes(15).toString('base64url');
  const hash = hashPassword(password);
  // Awaited by bootstrapDomain, or never when the state was bootstrapped already.
  hash.catch(() => undefined);
  return { password, hash };
}

/**
 * Makes the initial resources unless they exist (with `secret`, else a fresh one).
 * @returns the admin login when this call made them, else undefined.
 */
export async function bootstrapDomain(d: GatewayDomain, o: BootstrapOptions = {}, secret?: BootstrapSecret): Promise<BootstrapLogin | undefined> {
  if (d.state.get<BootstrapDoc>(T.meta, 'bootstrap')) return undefined;
  const id = (prefix: string) => (o.dev ? `${prefix}_1234567890` : newId(prefix));
  const { password, hash: hashing } = secret ?? bootstrapSecret(o);
  const hash = await hashing;
  const now = d.nowIso();
  const base = { created_time: now, updated_time: now, version: 1 };
  const org = id(PREFIX.org);
  const project = id(PREFIX.project);
  const am = id(PREFIX.passwordAuthMethod);
  const account = id(PREFIX.passwordAccount);
  const admin = id(PREFIX.user);
  const role = (name: string, description: string, principals: string[], grants: string[]): RoleDoc => ({
    ...base,
    id: newId(PREFIX.role),
    scope_id: GLOBAL,
    name,
    description,
    principal_ids: principals,
    grant_strings: grants,
    grant_scope_ids: ['this', 'descendants'],
  });
  const roles = [
    role('Login Grants', 'Role created for login capability for unauthenticated users', [ANON_USER], LOGIN_GRANTS),
    role('Authenticated User Grants', 'Role created for default grants of authenticated users', [AUTH_USER], AUTHENTICATED_GRANTS),
    role('Administration', 'Provides admin grants within all scopes to the admin user', [admin], ADMIN_GRANTS),
  ];
  const done = await d.state.txn((tx) => {
    if (tx.get(T.meta, 'bootstrap')) return false;
    if (!tx.get(T.scopes, GLOBAL)) tx.put<ScopeDoc>(T.scopes, GLOBAL, { ...base, id: GLOBAL, type: 'global', name: 'global', description: 'Global Scope' });
    tx.put<ScopeDoc>(T.scopes, org, {
      ...base,
      id: org,
      scope_id: GLOBAL,
      type: 'org',
      name: 'Generated org scope',
      description: 'Provides an initial org scope in Boundary',
    });
    tx.put<ScopeDoc>(T.scopes, project, {
      ...base,
      id: project,
      scope_id: org,
      type: 'project',
      name: 'Generated project scope',
      description: 'Provides an initial project scope in Boundary',
    });
    tx.put<AuthMethodDoc>(T.authMethods, am, {
      ...base,
      id: am,
      scope_id: GLOBAL,
      type: 'password',
      name: 'Generated global scope initial password auth method',
      description: 'Provides initial administrative and unprivileged authentication into Boundary',
      attributes: { min_login_name_length: MIN_LOGIN_NAME_LENGTH, min_password_length: MIN_PASSWORD_LENGTH },
      is_primary: true,
    });
    tx.put<AccountDoc>(T.accounts, account, {
      ...base,
      id: account,
      scope_id: GLOBAL,
      auth_method_id: am,
      type: 'password',
      name: 'admin',
      description: 'Initial admin account',
      attributes: { login_name: 'admin' },
      password_hash: hash,
    });
    tx.put<UserDoc>(T.users, admin, { ...base, id: admin, scope_id: GLOBAL, name: 'admin', description: 'Initial admin user', account_ids: [account] });
    for (const r of roles) tx.put(T.roles, r.id, r);
    tx.put<BootstrapDoc>(T.meta, 'bootstrap', { created_time: now, global_role_ids: roles.map((r) => r.id) });
    return true;
  });
  return done.result ? { authMethodId: am, loginName: 'admin', password, orgId: org, projectId: project } : undefined;
}
