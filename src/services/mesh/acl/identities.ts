/**
 * The synthetic policies of service and node identities (reference/mesh.md §6.2; the
 * reference's `agent/structs/acl_ce.go` templates `aclPolicyTemplateServiceIdentity`
 * and `aclPolicyTemplateNodeIdentity`). A token or role holding an identity is
 * authorised as if it held this policy, in the identity's datacenters only.
 *
 * @module
 */
import type { ParsedRules } from './rules.js';

/**
 * The rules text of a service identity's synthetic policy, byte for byte the
 * reference's template (a leading newline, tab-indented):
 * `service "<name>"` and `service "<name>-sidecar-proxy"` write, `service_prefix ""`
 * and `node_prefix ""` read. `name` must already be validated (lowercase alphanumerics,
 * `-`, `_`), as the reference interpolates it unescaped.
 */
export function serviceIdentityRulesText(name: string): string {
  return `
service "${name}" {
\tpolicy = "write"
}
service "${name}-sidecar-proxy" {
\tpolicy = "write"
}
service_prefix "" {
\tpolicy = "read"
}
node_prefix "" {
\tpolicy = "read"
}`;
}

/** The rules text of a node identity's synthetic policy: `node "<name>"` write, `service_prefix ""` read. */
export function nodeIdentityRulesText(name: string): string {
  return `
node "${name}" {
\tpolicy = "write"
}
service_prefix "" {
\tpolicy = "read"
}`;
}

/** {@link serviceIdentityRulesText} already parsed (no HCL round trip per token resolution). */
export function serviceIdentityRules(name: string): ParsedRules {
  return {
    global: {},
    rules: [
      { resource: 'node', segment: '', prefix: true, policy: 'read' },
      { resource: 'service', segment: name, prefix: false, policy: 'write' },
      { resource: 'service', segment: `${name}-sidecar-proxy`, prefix: false, policy: 'write' },
      { resource: 'service', segment: '', prefix: true, policy: 'read' },
    ],
  };
}

/** {@link nodeIdentityRulesText} already parsed. */
export function nodeIdentityRules(name: string): ParsedRules {
  return {
    global: {},
    rules: [
      { resource: 'node', segment: name, prefix: false, policy: 'write' },
      { resource: 'service', segment: '', prefix: true, policy: 'read' },
    ],
  };
}
