/**
 * The discovery service's state tables (kernel StateStore) and the documents they hold,
 * in the reference's field names (reference/mesh.md §4.1, §6). Links to policies and
 * roles store only IDs: names are resolved when read, so renames show (§6.2).
 *
 * @module
 */
import type { TableSpec } from '../../kernel/store/index.js';
import { sha256Hex } from '../../kernel/util/sha256.js';
import { CT, type ServiceDoc } from './catalog/model.js';
import { DEFAULT_NAMESPACE } from './namespace.js';

/** Table names. */
export const T = {
  tokens: 'acl-tokens',
  policies: 'acl-policies',
  roles: 'acl-roles',
  bindingRules: 'acl-binding-rules',
  authMethods: 'acl-auth-methods',
  meta: 'acl-meta',
  namespaces: 'namespaces',
  /** KV entries, the tombstones of deleted keys, and the index of the newest tombstone reaped (kv-store.ts). */
  kv: 'kv',
  kvTombstones: 'kv-tombstones',
  kvMeta: 'kv-meta',
  /** Sessions, the TTL timers of sessions and the lock delays of keys (sessions/store.ts). */
  sessions: 'sessions',
  sessionTimers: 'session-timers',
  kvLockDelays: 'kv-lock-delays',
} as const;

/** The namespace a stored object lives in: its `Namespace`, else `default`. */
export const nsOf = (d: { readonly Namespace?: string }): string => d.Namespace ?? DEFAULT_NAMESPACE;

/**
 * `{Namespace}` for a document in `ns`: nothing for `default`, so CE documents (and every
 * document written before namespaces) stay as they were.
 */
export const nsField = (ns: string): { Namespace?: string } => (ns === DEFAULT_NAMESPACE ? {} : { Namespace: ns });

/** An ACL object (policy, role, binding rule) by its ID and the namespace it lives in. */
export interface NamespacedId {
  readonly id: string;
  readonly ns: string;
}

/** Key of the per-namespace unique name indexes: `<ns>/<name>`. */
export const nameKey = (ns: string, name: string): string => `${ns}/${name}`;

/**
 * The state ID of auth method `name` in `ns`: the bare name in `default` (so methods stored
 * before namespaces keep their key), `<ns>/<name>` elsewhere (names cannot hold `/`).
 */
export const authMethodKey = (ns: string, name: string): string => (ns === DEFAULT_NAMESPACE ? name : `${ns}/${name}`);

/** A namespace (reference: Consul Enterprise `/v1/namespace`; table `namespaces`, keyed by Name). */
export interface NamespaceDoc {
  readonly Name: string;
  readonly Description: string;
}

/** A link to a policy or role by ID (the name is resolved on read). */
export interface Link {
  readonly ID: string;
}

/** A service identity of a token or role. */
export interface ServiceIdentity {
  readonly ServiceName: string;
  readonly Datacenters?: readonly string[];
}

/** A node identity of a token or role. */
export interface NodeIdentity {
  readonly NodeName: string;
  readonly Datacenter: string;
}

/** A stored ACL token (reference/mesh.md §6.2). */
export interface TokenDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Description: string;
  readonly Policies: readonly Link[];
  readonly Roles: readonly Link[];
  readonly ServiceIdentities: readonly ServiceIdentity[];
  readonly NodeIdentities: readonly NodeIdentity[];
  readonly Local: boolean;
  readonly AuthMethod?: string;
  /** RFC 3339; absent: never expires. */
  readonly ExpirationTime?: string;
  /** RFC 3339 with fractional seconds. */
  readonly CreateTime: string;
  /** base64 BLAKE2b-256 (reference/mesh.md §6.2). */
  readonly Hash: string;
}

/** A stored ACL policy. */
export interface PolicyDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Rules: string;
  readonly Datacenters?: readonly string[];
  readonly Hash: string;
}

/** A stored ACL role. */
export interface RoleDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Policies: readonly Link[];
  readonly ServiceIdentities: readonly ServiceIdentity[];
  readonly NodeIdentities: readonly NodeIdentity[];
  readonly Hash: string;
}

/** The bootstrap record: the index of the bootstrap, and whether bootstrap is used up. */
export interface BootstrapDoc {
  readonly ID: 'bootstrap';
  /** The modify index the bootstrap (or initial-management bootstrap) committed at. */
  readonly BootstrapIndex: number;
}

/**
 * The key of a token in the `secret` index: the SHA-256 of its SecretID, so the lookup map
 * holds no secret and its timing reveals nothing about a guess. Memoised (kernel sha256Hex,
 * as the scheduler's): every request hashes its token.
 */
export const secretKey = (secret: string): string => sha256Hex(secret);

/** Every table with its unique indexes. */
export const MESH_TABLES: readonly TableSpec[] = [
  { name: T.tokens, indexes: { secret: (d: TokenDoc) => secretKey(d.SecretID) } },
  // Names are unique per namespace.
  { name: T.policies, indexes: { name: (d: PolicyDoc) => nameKey(nsOf(d), d.Name) } },
  { name: T.roles, indexes: { name: (d: RoleDoc) => nameKey(nsOf(d), d.Name) } },
  { name: T.bindingRules },
  { name: T.authMethods },
  { name: T.meta },
  { name: T.namespaces },
  { name: T.kv },
  { name: T.kvTombstones },
  { name: T.kvMeta },
  { name: CT.nodes },
  // By name (the catalog and health reads of one service) and by lower-cased name (DNS): neither scans every instance of every service.
  { name: CT.services, groups: { name: (d: ServiceDoc) => d.Service, lowerName: (d: ServiceDoc) => d.Service.toLowerCase() } },
  { name: CT.checks },
  { name: T.sessions },
  { name: T.sessionTimers },
  { name: T.kvLockDelays },
];

/** True when namespace `ns` exists (`default` always does). */
export function namespaceExists(read: { get(table: string, id: string): unknown }, ns: string): boolean {
  return ns === DEFAULT_NAMESPACE || read.get(T.namespaces, ns) !== undefined;
}
