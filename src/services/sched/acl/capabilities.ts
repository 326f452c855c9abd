/**
 * The scheduler's ACL vocabulary (the reference's `acl/policy.go` constants and its
 * `expand*Policy` functions): policy levels, the fine-grained capabilities of each block,
 * and how a `policy = "…"` shorthand expands into capabilities.
 *
 * Policies merge by union of capabilities, except that `deny` wins over everything in the
 * same namespace (or host volume) name: see authorizer.ts.
 *
 * @module
 */

/** A `policy = "…"` level of `namespace`, `host_volume`, `agent`, `node`, `operator` and `quota` (`isPolicyValid`). */
export const POLICY_LEVELS = ['deny', 'read', 'write', 'scale'] as const;
/** One of {@link POLICY_LEVELS}. */
export type PolicyLevel = (typeof POLICY_LEVELS)[number];

/** The `plugin { policy = "…" }` levels (the reference's documented set: no `write`, no `scale`). */
export const PLUGIN_LEVELS = ['deny', 'read', 'list'] as const;
/** One of {@link PLUGIN_LEVELS}. */
export type PluginLevel = (typeof PLUGIN_LEVELS)[number];

/**
 * Every capability a `namespace` block may list (`isNamespaceCapabilityValid`), in the
 * reference's order; `sentinel-override` and `submit-recommendation` are Enterprise
 * features the reference still accepts.
 */
export const NAMESPACE_CAPABILITIES = [
  'deny',
  'list-jobs',
  'parse-job',
  'read-job',
  'submit-job',
  'dispatch-job',
  'read-logs',
  'read-fs',
  'alloc-exec',
  'alloc-node-exec',
  'alloc-lifecycle',
  'csi-register-plugin',
  'csi-write-volume',
  'csi-read-volume',
  'csi-list-volume',
  'csi-mount-volume',
  'host-volume-create',
  'host-volume-register',
  'host-volume-read',
  'host-volume-write',
  'host-volume-delete',
  'list-scaling-policies',
  'read-scaling-policy',
  'read-job-scaling',
  'scale-job',
  'register-job',
  'revert-job',
  'deregister-job',
  'purge-job',
  'evaluate-job',
  'plan-job',
  'tag-job-version',
  'stable-job',
  'fail-deployment',
  'pause-deployment',
  'promote-deployment',
  'unblock-deployment',
  'cancel-deployment',
  'set-alloc-health-deployment',
  'gc-allocation',
  'pause-allocation',
  'force-periodic-job',
  'delete-service-registration',
  'sentinel-override',
  'submit-recommendation',
] as const;
/** One of {@link NAMESPACE_CAPABILITIES}. */
export type NamespaceCapability = (typeof NAMESPACE_CAPABILITIES)[number];

/** The capabilities of a `host_volume` block (`isHostVolumeCapabilityValid`). */
export const HOST_VOLUME_CAPABILITIES = ['deny', 'mount-readonly', 'mount-readwrite'] as const;
/** One of {@link HOST_VOLUME_CAPABILITIES}. */
export type HostVolumeCapability = (typeof HOST_VOLUME_CAPABILITIES)[number];

/** The capabilities of a `variables { path "…" { … } }` block (`isPathCapabilityValid`). */
export const VARIABLE_CAPABILITIES = ['write', 'read', 'list', 'destroy', 'deny'] as const;
/** One of {@link VARIABLE_CAPABILITIES}. */
export type VariableCapability = (typeof VARIABLE_CAPABILITIES)[number];

const READ: readonly NamespaceCapability[] = [
  'list-jobs',
  'parse-job',
  'read-job',
  'csi-list-volume',
  'csi-read-volume',
  'read-job-scaling',
  'list-scaling-policies',
  'read-scaling-policy',
  'host-volume-read',
];

const WRITE: readonly NamespaceCapability[] = [
  ...READ,
  'scale-job',
  'submit-job',
  'dispatch-job',
  'read-logs',
  'read-fs',
  'alloc-exec',
  'alloc-lifecycle',
  'csi-mount-volume',
  'csi-write-volume',
  'submit-recommendation',
  'host-volume-create',
];

const SCALE: readonly NamespaceCapability[] = [
  'list-scaling-policies',
  'read-scaling-policy',
  'read-job-scaling',
  'scale-job',
  'read-job',
  'submit-recommendation',
];

/**
 * The reference's `expandNamespacePolicy`: the capabilities a namespace `policy` grants,
 * in the reference's order. `deny` → `["deny"]`; `write` is `read` plus scaling, job
 * submission, logs, exec, lifecycle, CSI mount/write, recommendations and
 * `host-volume-create`; `scale` is the scaling set plus `read-job`.
 */
export function expandNamespacePolicy(policy: PolicyLevel): readonly NamespaceCapability[] {
  switch (policy) {
    case 'deny':
      return ['deny'];
    case 'read':
      return READ;
    case 'write':
      return WRITE;
    case 'scale':
      return SCALE;
  }
}

/**
 * The reference's `expandNamespaceCapabilities`: capabilities implied by others
 * (`host-volume-write` → register, create, delete, read; `host-volume-register` →
 * create, read; `host-volume-create` → read). Returns only the implied ones.
 */
export function impliedNamespaceCapabilities(written: readonly NamespaceCapability[]): NamespaceCapability[] {
  const extra: NamespaceCapability[] = [];
  for (const capability of written) {
    if (capability === 'host-volume-write') extra.push('host-volume-register', 'host-volume-create', 'host-volume-delete', 'host-volume-read');
    else if (capability === 'host-volume-register') extra.push('host-volume-create', 'host-volume-read');
    else if (capability === 'host-volume-create') extra.push('host-volume-read');
  }
  return extra;
}

/**
 * The reference's `expandHostVolumePolicy`: `deny` → `deny`, `read` → `mount-readonly`,
 * `write` → both mounts, `scale` → nothing.
 */
export function expandHostVolumePolicy(policy: PolicyLevel): readonly HostVolumeCapability[] {
  switch (policy) {
    case 'deny':
      return ['deny'];
    case 'read':
      return ['mount-readonly'];
    case 'write':
      return ['mount-readonly', 'mount-readwrite'];
    case 'scale':
      return [];
  }
}

/**
 * The reference's `expandVariablesCapabilities`: `deny` anywhere leaves only `deny`;
 * `read` without `list` adds `list`.
 */
export function expandVariableCapabilities(written: readonly VariableCapability[]): readonly VariableCapability[] {
  if (written.includes('deny')) return ['deny'];
  return written.includes('read') && !written.includes('list') ? [...written, 'list'] : written;
}
