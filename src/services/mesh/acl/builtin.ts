/**
 * Well-known ACL objects and IDs (reference/mesh.md §6.1; the reference's
 * `agent/structs/acl.go` constants, CE build: no Enterprise additions to the rules).
 *
 * Note that `00000000-0000-0000-0000-000000000002` names two different objects: the
 * anonymous token's AccessorID and the `builtin/global-read-only` policy's ID.
 *
 * @module
 */

/** Every ID starting with this is reserved for built-ins; user-supplied IDs with it are refused and generated ones skip it. */
const RESERVED_ID_PREFIX = '00000000-0000-0000-0000-0000000000';

/** The reference's `ACLIDReserved`: does `id` start with {@link RESERVED_ID_PREFIX}? */
export function isReservedId(id: string): boolean {
  return id.startsWith(RESERVED_ID_PREFIX);
}

/** A built-in policy as stored: ID, name, description and rules text. */
export interface BuiltinPolicy {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly rules: string;
}

/**
 * `global-management`: grants everything. It may be renamed, but its rules and
 * datacenters cannot change and it cannot be deleted (§6.1). The rules text is the
 * reference's byte for byte (leading newline, tab indentation), so policy hashes match.
 */
export const GLOBAL_MANAGEMENT_POLICY: BuiltinPolicy = {
  id: '00000000-0000-0000-0000-000000000001',
  name: 'global-management',
  description: 'Builtin Policy that grants unlimited access',
  rules: builtinRules('write'),
};

/** `builtin/global-read-only` (newer reference versions): read on everything, intentions included. */
export const GLOBAL_READ_ONLY_POLICY: BuiltinPolicy = {
  id: '00000000-0000-0000-0000-000000000002',
  name: 'builtin/global-read-only',
  description: 'Builtin Policy that grants unlimited read-only access to all components',
  rules: builtinRules('read'),
};

/** The built-in policies by ID. */
export const BUILTIN_POLICIES: ReadonlyMap<string, BuiltinPolicy> = new Map([GLOBAL_MANAGEMENT_POLICY, GLOBAL_READ_ONLY_POLICY].map((p) => [p.id, p]));

/** The anonymous token's AccessorID: used when a request carries no token (§0.2). */
export const ANONYMOUS_TOKEN_ACCESSOR_ID = '00000000-0000-0000-0000-000000000002';
/** The anonymous token's SecretID, literally. */
export const ANONYMOUS_TOKEN_SECRET_ID = 'anonymous';
/** The anonymous token's Description. */
export const ANONYMOUS_TOKEN_DESCRIPTION = 'Anonymous Token';

/** The two built-in policies' rules differ only in their level. */
function builtinRules(level: 'read' | 'write'): string {
  return `
acl = "${level}"
agent_prefix "" {
\tpolicy = "${level}"
}
event_prefix "" {
\tpolicy = "${level}"
}
key_prefix "" {
\tpolicy = "${level}"
}
keyring = "${level}"
node_prefix "" {
\tpolicy = "${level}"
}
operator = "${level}"
mesh = "${level}"
peering = "${level}"
query_prefix "" {
\tpolicy = "${level}"
}
service_prefix "" {
\tpolicy = "${level}"
\tintentions = "${level}"
}
session_prefix "" {
\tpolicy = "${level}"
}`;
}
