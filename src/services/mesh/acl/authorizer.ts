/**
 * Deciding what a token may do (the reference's `acl/policy_merger.go`,
 * `policy_authorizer.go`, `static_authorizer.go` and `chained_authorizer.go`):
 *
 * 1. The rules of every policy a token holds (its policies, its roles' policies, the
 *    synthetic policies of its identities: identities.ts) are merged. For the same
 *    resource and segment, exact and prefix rules apart, the stronger level wins:
 *    `deny` > `write` > `list` > `read`.
 * 2. A check on a segment takes the exact rule for it, else the rule of the longest
 *    prefix of it (`""` matches every segment). A rule grants: `write` everything,
 *    `list` list and read, `read` read, `deny` nothing.
 * 3. Without a rule, `mesh` and `peering` fall back to the `operator` rule; then the
 *    agent's `default_policy` decides, except for `acl`, which it never grants (only a
 *    rule or the management authorizer do).
 *
 * Intentions are checked on the service rules: a service rule's `intentions` level, or
 * when absent `read` for a `read`/`write` policy and `deny` otherwise. The intention
 * segment `*` asks about every destination at once (read: any rule allows; write: no
 * rule denies). The caller filters policies by `Datacenters` before building.
 *
 * @module
 */
import type { GlobalResource, Level, ParsedRules, SegmentResource } from './rules.js';

/** What a resource check needs: the levels a rule can grant (`deny` is never asked for). */
export type Access = Exclude<Level, 'deny'>;

/** Every resource a check can name; also the resource names of permission errors (errors.ts). */
export type Resource = GlobalResource | SegmentResource | 'intention';

/** The agent's `acl.default_policy`: what a token may do where no rule says. */
export type DefaultPolicy = 'allow' | 'deny';

type Decision = 'allow' | 'deny' | 'default';

/** Merged rules of one segment: the exact and the prefix rule, each optional. */
interface Leaf {
  exact?: Level;
  prefix?: Level;
}
type Tree = Map<string, Leaf>;

const RANK: Readonly<Record<Level, number>> = { read: 1, list: 2, write: 3, deny: 4 };

/** The reference's `takesPrecedenceOver`: is `a` (possibly unset) stronger than `b`? */
function stronger(a: Level | undefined, b: Level | undefined): boolean {
  return (a === undefined ? 0 : RANK[a]) > (b === undefined ? 0 : RANK[b]);
}

/** The reference's `enforce`: what `rule` decides for a check needing `access`. */
function enforce(rule: Level | undefined, access: Access): Decision {
  switch (rule) {
    case undefined:
      return 'default';
    case 'write':
      return 'allow';
    case 'list':
      return access === 'write' ? 'deny' : 'allow';
    case 'read':
      return access === 'read' ? 'allow' : 'deny';
    case 'deny':
      return 'deny';
    default: {
      const never: never = rule;
      throw new Error(`unknown level ${String(never)}`);
    }
  }
}

/** Exact rule of `segment`, else the longest prefix rule (`getPolicy` in the reference). */
function lookup(tree: Tree, segment: string): Level | undefined {
  const exact = tree.get(segment)?.exact;
  if (exact !== undefined) return exact;
  for (let end = segment.length; end >= 0; end--) {
    const prefix = tree.get(segment.slice(0, end))?.prefix;
    if (prefix !== undefined) return prefix;
  }
  return undefined;
}

/**
 * Answers access checks for one token (reference/mesh.md §6; semantics: module doc).
 * Immutable once built; build one per token resolution and reuse it for its checks.
 */
export class Authorizer {
  private readonly global = new Map<GlobalResource, Level>();
  private readonly trees = new Map<SegmentResource | 'intention', Tree>();
  /** Set only by {@link Authorizer.management}. */
  private manage = false;

  /**
   * Merges `rules` (one entry per policy, in any order: the merge is order-free) under
   * the agent's `defaultPolicy`.
   */
  constructor(
    rules: readonly ParsedRules[],
    private readonly defaultPolicy: DefaultPolicy,
  ) {
    // Intentions are merged raw and derived afterwards, as the reference does, so that
    // an unset `intentions` follows the merged `policy`.
    const services = new Map<string, { policy?: Level; intentions?: Level }>();
    for (const parsed of rules) {
      for (const [resource, level] of Object.entries(parsed.global) as [GlobalResource, Level][]) {
        if (stronger(level, this.global.get(resource))) this.global.set(resource, level);
      }
      for (const r of parsed.rules) {
        const leaf = this.leaf(r.resource, r.segment);
        const side = r.prefix ? 'prefix' : 'exact';
        if (stronger(r.policy, leaf[side])) leaf[side] = r.policy;
        if (r.resource !== 'service') continue;
        const key = `${side}:${r.segment}`;
        const merged = services.get(key) ?? {};
        if (stronger(r.policy, merged.policy)) merged.policy = r.policy;
        if (stronger(r.intentions, merged.intentions)) merged.intentions = r.intentions;
        services.set(key, merged);
      }
    }
    for (const [key, merged] of services) {
      const side = key.startsWith('prefix:') ? 'prefix' : 'exact';
      const derived = merged.policy === 'read' || merged.policy === 'write' ? 'read' : 'deny';
      this.leaf('intention', key.slice(side.length + 1))[side] = merged.intentions ?? derived;
    }
  }

  /** The management authorizer (the reference's `manageAll`): every check passes. */
  static management(): Authorizer {
    const authorizer = new Authorizer([], 'allow');
    authorizer.manage = true;
    return authorizer;
  }

  /** True for the management authorizer. */
  get isManagement(): boolean {
    return this.manage;
  }

  /**
   * May the token have `access` to `resource`? Global resources (`acl`, `operator`,
   * `keyring`, `mesh`, `peering`) ignore `segment`; the others check it (a service,
   * node, key, agent node, event, prepared query or session node name; for `intention`
   * the destination service, or `*` for all).
   */
  allowed(resource: Resource, access: Access, segment = ''): boolean {
    if (this.manage) return true;
    const decision = this.decide(resource, access, segment);
    if (decision !== 'default') return decision === 'allow';
    return resource !== 'acl' && this.defaultPolicy === 'allow';
  }

  /**
   * May the token write every key under `prefix` (recursive deletes; the reference's
   * `KeyWritePrefix`)? Needs `write` from the longest prefix rule covering `prefix` (or
   * the default policy when there is none), and no rule under `prefix` granting less.
   */
  keyWritePrefix(prefix: string): boolean {
    if (this.manage) return true;
    const tree = this.trees.get('key') ?? new Map<string, Leaf>();
    let base: Decision = 'default';
    for (let end = 0; end <= prefix.length; end++) {
      const rule = tree.get(prefix.slice(0, end))?.prefix;
      if (rule !== undefined) base = rule === 'write' ? 'allow' : 'deny';
    }
    if (base === 'deny') return false;
    for (const [segment, leaf] of tree) {
      if (!segment.startsWith(prefix)) continue;
      if ((leaf.prefix !== undefined && leaf.prefix !== 'write') || (leaf.exact !== undefined && leaf.exact !== 'write')) return false;
    }
    return base === 'allow' || this.defaultPolicy === 'allow';
  }

  private decide(resource: Resource, access: Access, segment: string): Decision {
    switch (resource) {
      case 'acl':
      case 'operator':
      case 'keyring':
        return enforce(this.global.get(resource), access);
      case 'mesh':
      case 'peering':
        return enforce(this.global.get(resource) ?? this.global.get('operator'), access);
      case 'intention':
        if (segment === '*') return access === 'write' ? this.allAllowed(access) : this.anyAllowed(access);
        return enforce(lookup(this.tree(resource), segment), access);
      case 'agent':
      case 'event':
      case 'key':
      case 'node':
      case 'query':
      case 'service':
      case 'session':
        return enforce(lookup(this.tree(resource), segment), access);
      default: {
        const never: never = resource;
        throw new Error(`unknown resource ${String(never)}`);
      }
    }
  }

  /** Intention `*` read: allowed when any rule allows (a denying `""` prefix rule still decides otherwise). */
  private anyAllowed(access: Access): Decision {
    const tree = this.tree('intention');
    const root = enforce(tree.get('')?.prefix, access);
    if (root === 'allow') return root;
    for (const leaf of tree.values()) {
      if (enforce(leaf.prefix, access) === 'allow' || enforce(leaf.exact, access) === 'allow') return 'allow';
    }
    return root;
  }

  /** Intention `*` write: allowed by the `""` prefix rule only when no other rule denies. */
  private allAllowed(access: Access): Decision {
    const tree = this.tree('intention');
    const root = enforce(tree.get('')?.prefix, access);
    if (root === 'deny') return root;
    for (const leaf of tree.values()) {
      if (enforce(leaf.prefix, access) === 'deny' || enforce(leaf.exact, access) === 'deny') return 'deny';
    }
    return root;
  }

  private tree(resource: SegmentResource | 'intention'): Tree {
    return this.trees.get(resource) ?? new Map<string, Leaf>();
  }

  private leaf(resource: SegmentResource | 'intention', segment: string): Leaf {
    let tree = this.trees.get(resource);
    if (!tree) this.trees.set(resource, (tree = new Map()));
    let leaf = tree.get(segment);
    if (!leaf) tree.set(segment, (leaf = {}));
    return leaf;
  }
}
