/**
 * Deciding what a scheduler token may do (the reference's `acl/acl.go` `NewACL` and its
 * `Allow*` methods), from the parsed policies of the token (rules.ts):
 *
 * 1. Namespace and host-volume rules merge per name (exact names and globs apart): the
 *    capabilities of every rule for the same name are united, except that `deny` clears
 *    the set and no later rule for that name adds to it.
 * 2. A check on a name takes the exact name's set when there is one, even if it grants
 *    nothing; otherwise the closest matching glob's set (glob.ts): `prod-api` takes
 *    `prod-*` over `*`. An exact `deny` therefore beats a glob grant and a closer glob's
 *    `deny` beats a wider glob's grant, but an exact grant beats a glob `deny`.
 * 3. Asking about the namespace `*` (every namespace) passes when any namespace rule,
 *    exact or glob, would pass.
 * 4. `agent`, `node`, `operator`, `quota` and `plugin` keep the strongest level of all
 *    policies, `deny` first: deny > write > read > list. `scale` there grants nothing.
 *    Read checks pass on `read` or `write`; write checks on `write`; plugin read only on
 *    `read`, plugin list on `list` or `read`.
 *
 * The management authorizer passes every check. With ACLs disabled there is no
 * authorizer at all: the caller skips the checks (the reference's nil ACL).
 *
 * @module
 */
import type { HostVolumeCapability, NamespaceCapability, PluginLevel, PolicyLevel, VariableCapability } from './capabilities.js';
import { closestGlob } from './glob.js';
import type { ParsedPolicy } from './rules.js';

/** The namespace name that stands for every namespace (the reference's `AllNamespacesSentinel`). */
export const ALL_NAMESPACES = '*';

type Level = PolicyLevel | PluginLevel;

/** Exact names and globs kept apart, each name with its merged capability set. */
class CapabilityTable<C extends string> {
  readonly exact = new Map<string, Set<C>>();
  readonly globs = new Map<string, Set<C>>();

  /** Adds one rule's capabilities under `name` with the reference's deny rule (module doc, 1). */
  merge(name: string, capabilities: readonly C[], deny: C, isGlob = name.includes('*')): void {
    const table = isGlob ? this.globs : this.exact;
    let set = table.get(name);
    if (set === undefined) table.set(name, (set = new Set()));
    if (set.has(deny)) return;
    for (const capability of capabilities) {
      if (capability === deny) {
        set.clear();
        set.add(deny);
        return;
      }
      set.add(capability);
    }
  }

  /** The exact set for `name`, else the closest glob's; undefined when nothing matches. */
  lookup(name: string): ReadonlySet<C> | undefined {
    return this.exact.get(name) ?? closestGlob(this.globs, name);
  }

  /** Every set, exact ones first. */
  *all(): Iterable<ReadonlySet<C>> {
    yield* this.exact.values();
    yield* this.globs.values();
  }
}

/** The reference's `maxPrivilege`; `scale` and an unset level rank below everything. */
function maxPrivilege(a: Level | undefined, b: Level | undefined): Level | undefined {
  for (const level of ['deny', 'write', 'read', 'list'] as const) if (a === level || b === level) return level;
  return undefined;
}

/** Does a merged set allow anything? Non-empty and without `deny`. */
function grantsAny(set: ReadonlySet<string>): boolean {
  return set.size > 0 && !set.has('deny');
}

/**
 * Answers access checks for one token (semantics: module doc). Immutable once built;
 * build one per token resolution and reuse it for its checks.
 */
export class Authorizer {
  private readonly namespaces = new CapabilityTable<NamespaceCapability>();
  private readonly hostVolumes = new CapabilityTable<HostVolumeCapability>();
  /** Keyed `<namespace>\0<path>`; a glob when either part has `*`. */
  private readonly variables = new CapabilityTable<VariableCapability>();
  private agent: Level | undefined;
  private node: Level | undefined;
  private operator: Level | undefined;
  private quota: Level | undefined;
  private plugin: Level | undefined;
  /** Set only by {@link Authorizer.management}. */
  private manage = false;

  /** Merges the token's `policies` (its own and its roles'), in the order given. */
  constructor(policies: readonly ParsedPolicy[]) {
    for (const policy of policies) {
      for (const ns of policy.namespaces) {
        // The reference records variable paths before its deny check, so a denied
        // namespace still keeps them.
        for (const v of ns.variables ?? []) {
          this.variables.merge(`${ns.name}\0${v.path}`, v.capabilities, 'deny', ns.name.includes('*') || v.path.includes('*'));
        }
        this.namespaces.merge(ns.name, ns.capabilities, 'deny');
      }
      for (const hv of policy.hostVolumes) this.hostVolumes.merge(hv.name, hv.capabilities, 'deny');
      this.agent = maxPrivilege(this.agent, policy.agent);
      this.node = maxPrivilege(this.node, policy.node);
      this.operator = maxPrivilege(this.operator, policy.operator);
      this.quota = maxPrivilege(this.quota, policy.quota);
      this.plugin = maxPrivilege(this.plugin, policy.plugin);
    }
  }

  /** The management authorizer (the reference's `ManagementACL`): every check passes. */
  static management(): Authorizer {
    const authorizer = new Authorizer([]);
    authorizer.manage = true;
    return authorizer;
  }

  /** True for the management authorizer. */
  get isManagement(): boolean {
    return this.manage;
  }

  /** May the token use `capability` in namespace `ns` (`*`: in any namespace)? */
  allowNamespaceOperation(ns: string, capability: NamespaceCapability): boolean {
    if (this.manage) return true;
    if (ns === ALL_NAMESPACES && this.anyNamespace((set) => set.has(capability))) return true;
    return this.namespaces.lookup(ns)?.has(capability) ?? false;
  }

  /**
   * May the token use any of `capabilities` in `ns`? (The reference's
   * `NamespaceValidator`, e.g. volume list: `csi-list-volume`, `csi-read-volume`,
   * `csi-mount-volume` or `list-jobs`.)
   */
  allowNamespaceAnyOf(ns: string, capabilities: readonly NamespaceCapability[]): boolean {
    return capabilities.some((c) => this.allowNamespaceOperation(ns, c));
  }

  /** May the token do anything at all in namespace `ns` (`*`: in some namespace)? */
  allowNamespace(ns: string): boolean {
    if (this.manage) return true;
    if (ns === ALL_NAMESPACES && this.anyNamespace(grantsAny)) return true;
    const set = this.namespaces.lookup(ns);
    return set !== undefined && grantsAny(set);
  }

  /** May the token use `capability` on host volume `name` (`mount-readonly`, `mount-readwrite`)? */
  allowHostVolumeOperation(name: string, capability: HostVolumeCapability): boolean {
    if (this.manage) return true;
    return this.hostVolumes.lookup(name)?.has(capability) ?? false;
  }

  /** May the token do anything at all with host volume `name`? */
  allowHostVolume(name: string): boolean {
    if (this.manage) return true;
    const set = this.hostVolumes.lookup(name);
    return set !== undefined && grantsAny(set);
  }

  /**
   * May the token use `capability` on the variable at `path` in `ns`? The exact
   * namespace-and-path rule, else the closest glob over both. (Workload identities'
   * implicit access to `nomad/jobs/…` is not modelled here.)
   */
  allowVariableOperation(ns: string, path: string, capability: VariableCapability): boolean {
    if (this.manage) return true;
    return this.variables.lookup(`${ns}\0${path}`)?.has(capability) ?? false;
  }

  /**
   * The reference's loose `AllowVariableSearch`: any variable rule at all for `*`, else
   * any rule whose namespace label starts with `ns` (a prefix test, as the reference's
   * radix seek: `prod` also finds `production`). Callers filter results path by path.
   */
  allowVariableSearch(ns: string): boolean {
    if (this.manage) return true;
    const keys = [...this.variables.exact.keys(), ...this.variables.globs.keys()];
    return ns === ALL_NAMESPACES ? keys.length > 0 : keys.some((k) => k.startsWith(ns));
  }

  /** `node:read`: a `read` or `write` node policy. */
  allowNodeRead(): boolean {
    return this.manage || this.node === 'read' || this.node === 'write';
  }

  /** `node:write`: a `write` node policy. */
  allowNodeWrite(): boolean {
    return this.manage || this.node === 'write';
  }

  /** `agent:read`: a `read` or `write` agent policy. */
  allowAgentRead(): boolean {
    return this.manage || this.agent === 'read' || this.agent === 'write';
  }

  /** `agent:write`: a `write` agent policy. */
  allowAgentWrite(): boolean {
    return this.manage || this.agent === 'write';
  }

  /** `operator:read`: a `read` or `write` operator policy. */
  allowOperatorRead(): boolean {
    return this.manage || this.operator === 'read' || this.operator === 'write';
  }

  /** `operator:write`: a `write` operator policy. */
  allowOperatorWrite(): boolean {
    return this.manage || this.operator === 'write';
  }

  /** `quota:read`: a `read` or `write` quota policy. */
  allowQuotaRead(): boolean {
    return this.manage || this.quota === 'read' || this.quota === 'write';
  }

  /** `quota:write`: a `write` quota policy. */
  allowQuotaWrite(): boolean {
    return this.manage || this.quota === 'write';
  }

  /** `plugin:read` (plugin detail, CSI volume delete, snapshots): a `read` plugin policy. */
  allowPluginRead(): boolean {
    return this.manage || this.plugin === 'read';
  }

  /** `plugin:list` (plugin list): a `list` or `read` plugin policy. */
  allowPluginList(): boolean {
    return this.manage || this.plugin === 'list' || this.plugin === 'read';
  }

  private anyNamespace(test: (set: ReadonlySet<NamespaceCapability>) => boolean): boolean {
    for (const set of this.namespaces.all()) if (test(set)) return true;
    return false;
  }
}
