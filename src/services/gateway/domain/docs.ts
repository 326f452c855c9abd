/**
 * The controller's state tables (kernel StateStore) and the documents they hold, in the
 * reference's field names (Boundary's API resources: scopes, auth methods, accounts,
 * users, groups, roles, auth tokens). Every resource carries `version`, raised by each
 * change, for the optimistic locking of updates. Later resources (host catalogs, targets,
 * credential stores, sessions) add their tables here.
 *
 * @module
 */
import type { TableSpec } from '../../../kernel/store/index.js';
import type { PasswordHash } from '../../../kernel/authn/password.js';

/** Table names. */
export const T = {
  scopes: 'scopes',
  authMethods: 'auth-methods',
  accounts: 'accounts',
  users: 'users',
  groups: 'groups',
  roles: 'roles',
  authTokens: 'auth-tokens',
  /** One document, `bootstrap`: when the initial resources were made. */
  meta: 'meta',
} as const;

/** Fields every resource has. Times are RFC 3339. */
export interface BaseDoc {
  readonly id: string;
  /** The containing scope (for a scope: its parent; absent for global). */
  readonly scope_id?: string;
  readonly name?: string;
  readonly description?: string;
  readonly created_time: string;
  readonly updated_time: string;
  readonly version: number;
}

/** A scope: `global` (one), `org` (under global), `project` (under an org). */
export interface ScopeDoc extends BaseDoc {
  readonly type: 'global' | 'org' | 'project';
}

/** A password auth method. */
export interface AuthMethodDoc extends BaseDoc {
  readonly type: 'password';
  readonly attributes: { readonly min_login_name_length: number; readonly min_password_length: number };
  /** Whether it is its scope's primary auth method (users are made for its new accounts' logins). */
  readonly is_primary: boolean;
}

/** A password account; `password_hash` never leaves the controller. */
export interface AccountDoc extends BaseDoc {
  readonly type: 'password';
  readonly auth_method_id: string;
  readonly attributes: { readonly login_name: string };
  readonly password_hash?: PasswordHash;
}

/** A user and the accounts it logs in with. */
export interface UserDoc extends BaseDoc {
  readonly account_ids: readonly string[];
}

/** A group of users. */
export interface GroupDoc extends BaseDoc {
  readonly member_ids: readonly string[];
}

/** A role: principals (users, groups, `u_anon`, `u_auth`), grant strings and grant scopes. */
export interface RoleDoc extends BaseDoc {
  readonly principal_ids: readonly string[];
  readonly grant_strings: readonly string[];
  /** `this`, `children`, `descendants` or scope ids. */
  readonly grant_scope_ids: readonly string[];
}

/** An auth token; only the SHA-256 of its secret part is stored. Times are RFC 3339. */
export interface AuthTokenDoc {
  readonly id: string;
  readonly scope_id: string;
  readonly user_id: string;
  readonly auth_method_id: string;
  readonly account_id: string;
  readonly token_hash: string;
  readonly created_time: string;
  readonly updated_time: string;
  readonly approximate_last_used_time: string;
  readonly expiration_time: string;
}

/** The `meta/bootstrap` document. */
export interface BootstrapDoc {
  readonly created_time: string;
  readonly global_role_ids: readonly string[];
}

/** The table declarations (unique names per scope, login names per auth method). */
export const GATEWAY_TABLES: readonly TableSpec[] = [
  { name: T.scopes, indexes: { name: (d: ScopeDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.authMethods, indexes: { name: (d: AuthMethodDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.accounts, indexes: { login: (d: AccountDoc) => `${d.auth_method_id}/${d.attributes.login_name}`, name: (d: AccountDoc) => (d.name ? `${d.auth_method_id}/${d.name}` : undefined) } },
  { name: T.users, indexes: { name: (d: UserDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.groups, indexes: { name: (d: GroupDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.roles, indexes: { name: (d: RoleDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.authTokens },
  { name: T.meta },
];
