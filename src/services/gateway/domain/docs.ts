/**
 * The controller's state tables (kernel StateStore) and the documents they hold, in the
 * reference's field names (Boundary's API resources: scopes, auth methods, accounts,
 * users, groups, roles, auth tokens). Every resource carries `version`, raised by each
 * change, for the optimistic locking of updates. Host catalogs, targets, credential
 * stores and sessions (issue 20 scopes 1, 3 and 4) follow the same conventions.
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
  hostCatalogs: 'host-catalogs',
  hostSets: 'host-sets',
  hosts: 'hosts',
  targets: 'targets',
  credentialStores: 'credential-stores',
  credentialLibraries: 'credential-libraries',
  credentials: 'credentials',
  sessions: 'sessions',
  /** Leases of the secrets a session's credential libraries issued, revoked when it ends (broker.ts). */
  credentialLeases: 'credential-leases',
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
export interface PasswordAuthMethodDoc extends BaseDoc {
  readonly type: 'password';
  readonly attributes: { readonly min_login_name_length: number; readonly min_password_length: number };
  /** Whether it is its scope's primary auth method (users are made for its new accounts' logins). */
  readonly is_primary: boolean;
}

/** The operational states of an OIDC auth method (the reference's). */
export type OidcState = 'inactive' | 'active-private' | 'active-public';

/**
 * The attributes of an OIDC auth method in the reference's names. `client_secret` is kept
 * in the (encrypted) state and never shown; the view has `client_secret_hmac` instead and
 * the derived `callback_url`.
 */
export interface OidcAttributes {
  readonly state: OidcState;
  readonly issuer?: string;
  readonly client_id?: string;
  readonly client_secret?: string;
  readonly client_secret_hmac?: string;
  /** The controller's public address as the provider's browser redirect reaches it (`https://host:9200`). */
  readonly api_url_prefix?: string;
  readonly allowed_audiences?: readonly string[];
  readonly signing_algorithms?: readonly string[];
  readonly claims_scopes?: readonly string[];
  /** `from=to` entries; `to` is `sub`, `name` or `email` (the reference's account claim maps). */
  readonly account_claim_maps?: readonly string[];
  /** Seconds; -1: the provider must re-authenticate every time (`max_age=0`). */
  readonly max_age?: number;
  readonly disable_discovered_config_validation?: boolean;
  /** PEM certificates trusted for the provider's TLS. */
  readonly idp_ca_certs?: readonly string[];
}

/** An OIDC auth method (`amoidc_…`). */
export interface OidcAuthMethodDoc extends BaseDoc {
  readonly type: 'oidc';
  readonly attributes: OidcAttributes;
  /** Whether it is its scope's primary auth method (users are made for its new accounts' logins). */
  readonly is_primary: boolean;
}

/** An auth method, told apart by `type`. */
export type AuthMethodDoc = PasswordAuthMethodDoc | OidcAuthMethodDoc;

/** A password account; `password_hash` never leaves the controller. */
export interface PasswordAccountDoc extends BaseDoc {
  readonly type: 'password';
  readonly auth_method_id: string;
  readonly attributes: { readonly login_name: string };
  readonly password_hash?: PasswordHash;
}

/** An OIDC account (`acctoidc_…`): the provider's `iss` and `sub`, and the name and email its claims gave at the last login. */
export interface OidcAccountDoc extends BaseDoc {
  readonly type: 'oidc';
  readonly auth_method_id: string;
  readonly attributes: { readonly issuer: string; readonly subject: string; readonly full_name?: string; readonly email?: string };
  readonly password_hash?: undefined;
}

/** An account, told apart by `type`. */
export type AccountDoc = PasswordAccountDoc | OidcAccountDoc;

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

/** A static host catalog (project scope). */
interface StaticHostCatalogDoc extends BaseDoc {
  readonly type: 'static';
}

/**
 * A plugin host catalog (project scope; the reference's dynamic host catalogs): its
 * plugin (`consul`, domain/plugin-catalog.ts) and the plugin's `attributes` (the discovery
 * service's `address`, optional `datacenter`). `secrets` (the discovery token) never
 * leaves the controller (resource.ts INTERNAL); the view shows `secrets_hmac`.
 */
export interface PluginHostCatalogDoc extends BaseDoc {
  readonly type: 'plugin';
  readonly plugin_id: string;
  readonly attributes: { readonly address: string; readonly datacenter?: string };
  readonly secrets?: { readonly token?: string };
}

/** A host catalog, told apart by `type`. */
export type HostCatalogDoc = StaticHostCatalogDoc | PluginHostCatalogDoc;

/** A static host in a catalog; `address` is an IP or DNS name without a port. */
interface StaticHostDoc extends BaseDoc {
  readonly type: 'static';
  readonly host_catalog_id: string;
  readonly attributes: { readonly address: string };
}

/**
 * A host a plugin catalog's sync made: one discovery service instance (host-sync.ts).
 * `external_id` is `<node>/<service id>`; `attributes.address` is the address a client
 * reaches it at (the service's address, else its node's: the discovery service's rule)
 * and `attributes.port` the instance's port (0: none, the target's default port is used).
 */
export interface PluginHostDoc extends BaseDoc {
  readonly type: 'plugin';
  readonly host_catalog_id: string;
  readonly external_id: string;
  readonly external_name: string;
  readonly ip_addresses: readonly string[];
  readonly dns_names: readonly string[];
  readonly attributes: { readonly address: string; readonly port: number; readonly node: string; readonly service_id: string };
}

/** A host, told apart by `type`. */
export type HostDoc = StaticHostDoc | PluginHostDoc;

/** A static host set: hosts of its own catalog. */
interface StaticHostSetDoc extends BaseDoc {
  readonly type: 'static';
  readonly host_catalog_id: string;
  readonly host_ids: readonly string[];
}

/**
 * A plugin host set: a discovery service's passing instances (`attributes.service_name`,
 * optional `tag` and `filter`), its `host_ids` kept by the leader's sync (host-sync.ts).
 * `preferred_endpoints` and `sync_interval_seconds` are the reference's fields;
 * `last_sync_time` and `sync_error` are Cairn's (docs/compatibility.md).
 */
export interface PluginHostSetDoc extends BaseDoc {
  readonly type: 'plugin';
  readonly host_catalog_id: string;
  readonly host_ids: readonly string[];
  readonly attributes: { readonly service_name: string; readonly tag?: string; readonly filter?: string };
  /** `cidr:<net>` or `dns:<glob>`, in order of preference. */
  readonly preferred_endpoints?: readonly string[];
  /** The longest a blocking query waits before it is asked again, s (default 300). */
  readonly sync_interval_seconds?: number;
  /** RFC 3339: when the hosts were last read from the discovery service. */
  readonly last_sync_time?: string;
  /** Why the last read failed (the hosts of the last good read are kept); absent when it succeeded. */
  readonly sync_error?: string;
}

/** A host set, told apart by `type`. */
export type HostSetDoc = StaticHostSetDoc | PluginHostSetDoc;

/** A `tcp` target (project scope). */
export interface TargetDoc extends BaseDoc {
  readonly type: 'tcp';
  readonly attributes: { readonly default_port: number; readonly default_client_port?: number };
  /** Seconds; the reference's default 28800. */
  readonly session_max_seconds: number;
  /** -1: unlimited (the reference's default). */
  readonly session_connection_limit: number;
  /** A bexpr over the worker's `name` and `tags` (kernel/bexpr); absent: any worker. */
  readonly egress_worker_filter?: string;
  /** A direct address (host, no port) instead of host sources. */
  readonly address?: string;
  /** Host set ids. */
  readonly host_source_ids: readonly string[];
  /** Credential library or credential ids brokered to the user at `:authorize-session`. */
  readonly brokered_credential_source_ids: readonly string[];
}

/**
 * A credential store: `vault` (a Cairn secrets service) or `static`. The view adds
 * `attributes.token_hmac` and `attributes.token_status`; `vault_token` never leaves the
 * controller (resource.ts INTERNAL).
 */
export interface CredentialStoreDoc extends BaseDoc {
  readonly type: 'vault' | 'static';
  readonly attributes: {
    readonly address?: string;
    readonly namespace?: string;
    readonly ca_cert?: string;
    readonly tls_server_name?: string;
    readonly tls_skip_verify?: boolean;
    readonly worker_filter?: string;
  };
  /** A vault store's token and its renewal state. */
  readonly vault_token?: VaultTokenState;
}

/** A vault store's token as the controller keeps it (encrypted at rest with the state key). Times are RFC 3339. */
export interface VaultTokenState {
  /** The token secret. */
  readonly token: string;
  readonly accessor: string;
  /** `current` while renewed; `expired` once the secrets service refuses it (the reference's statuses; `revoked` is not set yet). */
  readonly status: 'current' | 'expired' | 'revoked';
  readonly last_renewal_time: string;
  readonly expiration_time: string;
}

/** A `vault-generic` credential library: reads `path` from the store's secrets service. */
export interface CredentialLibraryDoc extends BaseDoc {
  readonly type: 'vault-generic';
  readonly credential_store_id: string;
  readonly attributes: { readonly path: string; readonly http_method: 'GET' | 'POST'; readonly http_request_body?: string };
  /** `username_password`, `ssh_private_key` or absent (untyped). */
  readonly credential_type?: string;
  readonly credential_mapping_overrides?: Readonly<Record<string, string>>;
}

/**
 * A static credential in a static store: `attributes` holds what is shown (`username`);
 * `secret` the write-only values (`password`, `object`, `private_key`,
 * `private_key_passphrase`), kept in the encrypted state and shown only as `*_hmac`.
 */
export interface CredentialDoc extends BaseDoc {
  readonly type: 'username_password' | 'json' | 'ssh_private_key';
  readonly credential_store_id: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly secret?: Readonly<Record<string, unknown>>;
}

/** A lease a credential library's read made for a session; revoked when the session ends. */
export interface CredentialLeaseDoc {
  /** The lease id (`<mount><path>/<id>`). */
  readonly id: string;
  readonly session_id: string;
  readonly credential_store_id: string;
  readonly credential_library_id: string;
  readonly created_time: string;
  /** Set when the session ended but the secrets service could not be reached to revoke it: the leader retries. */
  readonly released_time?: string;
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
  {
    name: T.accounts,
    indexes: {
      login: (d: AccountDoc) =>
        d.type === 'oidc' ? `${d.auth_method_id}/${d.attributes.issuer}#${d.attributes.subject}` : `${d.auth_method_id}/${d.attributes.login_name}`,
      name: (d: AccountDoc) => (d.name ? `${d.auth_method_id}/${d.name}` : undefined),
    },
  },
  { name: T.users, indexes: { name: (d: UserDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.groups, indexes: { name: (d: GroupDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.roles, indexes: { name: (d: RoleDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.authTokens },
  { name: T.hostCatalogs, indexes: { name: (d: HostCatalogDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.hostSets, indexes: { name: (d: HostSetDoc) => (d.name ? `${d.host_catalog_id}/${d.name}` : undefined) } },
  { name: T.hosts, indexes: { name: (d: HostDoc) => (d.name ? `${d.host_catalog_id}/${d.name}` : undefined) } },
  { name: T.targets, indexes: { name: (d: TargetDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.credentialStores, indexes: { name: (d: CredentialStoreDoc) => (d.name ? `${d.scope_id}/${d.name}` : undefined) } },
  { name: T.credentialLibraries, indexes: { name: (d: CredentialLibraryDoc) => (d.name ? `${d.credential_store_id}/${d.name}` : undefined) } },
  { name: T.credentials, indexes: { name: (d: CredentialDoc) => (d.name ? `${d.credential_store_id}/${d.name}` : undefined) } },
  { name: T.sessions },
  // By session (released when it ends) and the released ones still to revoke (the leader's retries): neither scans the table.
  {
    name: T.credentialLeases,
    groups: { session: (d: CredentialLeaseDoc) => d.session_id, released: (d: CredentialLeaseDoc) => (d.released_time ? 'yes' : undefined) },
  },
  { name: T.meta },
];
