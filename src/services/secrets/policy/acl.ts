/**
 * An ACL compiled from a token's policies: which capabilities the token holds on a path
 * (reference/secrets.md §5.2, §5.3; the reference's `acl.go`).
 *
 * Matching: exact rules first; otherwise the glob rules that match (`*` as the last
 * character = prefix match, `+` = exactly one segment) compete and only the one with the
 * highest priority applies (§5.3). Rules with the same pattern in several policies are
 * merged first: union of capabilities, `deny` wins. So a `deny` on a less specific
 * pattern does not override an allow on a more specific one.
 *
 * The governing rule's parameter constraints (`params.ts`), merged the same way, then
 * apply to the request's data for read, create, update and patch (reference `acl.go`
 * `AllowOperation`); a rule without constraints costs nothing more.
 *
 * @module
 */
import type { Capability, Policy } from './parse.js';
import { mergeConstraints, permits, type ParamConstraints } from './params.js';
import { mergeWrappingBounds, wrappingPermitted, type WrappingBounds } from './wrapping-ttl.js';
import { LRUCache } from 'lru-cache';

const BIT: Readonly<Record<Capability, number>> = {
  deny: 1,
  create: 2,
  read: 4,
  update: 8,
  delete: 16,
  list: 32,
  sudo: 64,
  patch: 128,
};

/** Capability names in the order `capabilities()` reports them (alphabetical, like the reference's responses). */
const REPORTED: readonly Capability[] = ['create', 'delete', 'list', 'patch', 'read', 'sudo', 'update'];

/** What the rules of one pattern grant: capability bits and parameter constraints. */
interface Grant {
  bits: number;
  params?: ParamConstraints;
  /** `min_wrapping_ttl` / `max_wrapping_ttl` (wrapping-ttl.ts). */
  wrapping?: WrappingBounds;
}

/**
 * Adds a rule of the same pattern to `into` (reference `NewACL`): union of capabilities
 * and merged constraints; `deny` on either side wins and drops the constraints.
 */
function merge(into: Grant, b: number, params: ParamConstraints | undefined, wrapping: WrappingBounds | undefined): void {
  if (into.bits & BIT.deny) return;
  if (b & BIT.deny) {
    into.bits = BIT.deny;
    into.params = undefined;
    into.wrapping = undefined;
    return;
  }
  into.bits |= b;
  into.params = mergeConstraints(into.params, params);
  into.wrapping = mergeWrappingBounds(into.wrapping, wrapping);
}

/** Operations whose data the constraints check (the reference also checks reads' query data). */
const CONSTRAINED = BIT.read | BIT.create | BIT.update | BIT.patch;

function bits(caps: Iterable<Capability>): number {
  let b = 0;
  for (const c of caps) b |= BIT[c];
  return b & BIT.deny ? BIT.deny : b;
}

/** A glob rule with its priority keys (§5.3). */
interface GlobRule extends Grant {
  /** Pattern without the trailing `*`. */
  readonly path: string;
  /** `path` split on `/` (segment rules only). */
  readonly parts: readonly string[];
  readonly isPrefix: boolean;
  /** Index of the first `+` segment or of the `*`: the later, the more specific. */
  readonly firstWildcard: number;
  /** Number of `+` segments. */
  readonly wildcards: number;
}

/** True when `a` has a higher priority than `b` (reference/secrets.md §5.3, rules 1–5). */
function beats(a: GlobRule, b: GlobRule): boolean {
  if (a.firstWildcard !== b.firstWildcard) return a.firstWildcard > b.firstWildcard;
  if (a.isPrefix !== b.isPrefix) return !a.isPrefix;
  if (a.wildcards !== b.wildcards) return a.wildcards < b.wildcards;
  if (a.path.length !== b.path.length) return a.path.length > b.path.length;
  return a.path > b.path;
}

function globRule(pattern: string, b: number, params: ParamConstraints | undefined, wrapping: WrappingBounds | undefined): GlobRule {
  const isPrefix = pattern.endsWith('*');
  const path = isPrefix ? pattern.slice(0, -1) : pattern;
  const parts = path.split('/');
  const firstPlus = parts.indexOf('+');
  return {
    path,
    parts,
    isPrefix,
    firstWildcard: firstPlus < 0 ? path.length : parts.slice(0, firstPlus).join('/').length + (firstPlus > 0 ? 1 : 0),
    wildcards: parts.filter((p) => p === '+').length,
    bits: b,
    params,
    wrapping,
  };
}

/** Whether a rule with `+` segments matches `pathParts` (the reference's segment walk). */
function segmentsMatch(r: GlobRule, pathParts: readonly string[]): boolean {
  if (pathParts.length < r.parts.length) return false;
  if (!r.isPrefix && pathParts.length !== r.parts.length) return false;
  return r.parts.every((seg, i) => seg === '+' || seg === pathParts[i] || (r.isPrefix && i === r.parts.length - 1 && pathParts[i].startsWith(seg)));
}

/** Options of {@link Acl.allowed}. */
export interface AllowedOptions {
  /** The path is root-protected: the governing rule must also grant `sudo` ({@link sudoRequired}). */
  readonly sudo?: boolean;
  /**
   * The request's data (top-level body fields; query parameters for a read), checked
   * against the governing rule's parameter constraints. Absent: capabilities only (the
   * reference's `capCheckOnly`, for probes such as `sys/internal/ui/mounts`).
   */
  readonly data?: Readonly<Record<string, unknown>>;
  /**
   * The request's wrap TTL in seconds (`null`: it asks for no wrapping), checked against
   * the governing rule's `min_wrapping_ttl` / `max_wrapping_ttl`. Absent: not checked
   * (capability probes).
   */
  readonly wrapTtlS?: number | null;
}

/** The capabilities a set of policies grants; immutable once built. */
export class Acl {
  private readonly exact = new Map<string, Grant>();
  /** Plain prefix globs (`secret/*`), longest first. */
  private readonly prefixes: GlobRule[] = [];
  /** Rules with `+` segments. */
  private readonly segments: GlobRule[] = [];
  /** Results of {@link governing} by path (`\0` prefix: the list form; `false`: no rule applies). */
  private readonly memo = new LRUCache<string, Grant | false>({ max: MEMO_ENTRIES });

  /**
   * Compiles `policies`. `root: true` builds the root ACL, which holds every capability
   * on every path and ignores `policies`.
   */
  constructor(
    policies: readonly Policy[],
    readonly root = false,
  ) {
    const globs = new Map<string, GlobRule>();
    for (const p of policies) {
      for (const rule of p.rules) {
        const b = bits(rule.capabilities);
        const params = b & BIT.deny ? undefined : rule.params;
        const wrapping = b & BIT.deny ? undefined : rule.wrapping;
        const isExact = !rule.pattern.endsWith('*') && !rule.pattern.split('/').includes('+');
        const existing = isExact ? this.exact.get(rule.pattern) : globs.get(rule.pattern);
        if (existing) merge(existing, b, params, wrapping);
        else if (isExact) this.exact.set(rule.pattern, { bits: b, params, wrapping });
        else globs.set(rule.pattern, globRule(rule.pattern, b, params, wrapping));
      }
    }
    for (const g of globs.values()) (g.wildcards > 0 ? this.segments : this.prefixes).push(g);
    this.prefixes.sort((a, b) => b.path.length - a.path.length);
  }

  /**
   * Whether the rule governing `path` (relative to `/v1/`, namespace included) grants
   * `capability` (and `sudo` too when `o.sudo`). For `list`, a path ending in `/` is also
   * tried without it (§5.2): exact rules for both forms first, then globs for the path
   * as given, then globs for the trimmed form, so a deny matching the request path is
   * never bypassed. For read, create, update and patch the rule's parameter constraints
   * must also admit `o.data` when given; for every operation its wrap TTL bounds must
   * admit `o.wrapTtlS` when given (the reference checks them before the operation's data).
   */
  allowed(path: string, capability: Exclude<Capability, 'deny'>, o: AllowedOptions = {}): boolean {
    if (this.root) return true;
    const g = this.governing(path, capability === 'list');
    if (g === undefined || g.bits & BIT.deny) return false;
    if ((g.bits & BIT[capability]) === 0 || (o.sudo && (g.bits & BIT.sudo) === 0)) return false;
    if (g.wrapping && o.wrapTtlS !== undefined && !wrappingPermitted(g.wrapping, o.wrapTtlS)) return false;
    return g.params === undefined || o.data === undefined || (BIT[capability] & CONSTRAINED) === 0 || permits(g.params, o.data);
  }

  /**
   * The capabilities held on `path`, sorted (`sys/capabilities`, reference `acl.go`
   * `Capabilities`): `["root"]` for the root ACL, `["deny"]` when nothing is granted.
   */
  capabilities(path: string): string[] {
    if (this.root) return ['root'];
    const b = this.governing(path, false)?.bits ?? 0;
    const out = b & BIT.deny ? [] : REPORTED.filter((c) => b & BIT[c]);
    return out.length ? out : ['deny'];
  }

  /**
   * Whether the token may use anything of the mount at `mountPath` (relative to `/v1/`,
   * namespace included, ending in `/`): some capability on the mount path itself, or a rule
   * below it granting one (the reference's `hasMountAccess`, which decides which mounts
   * `sys/internal/specs/openapi` and `sys/internal/ui/mounts` show a token).
   */
  mountAccess(mountPath: string): boolean {
    if (this.root) return true;
    if (!this.capabilities(mountPath).includes('deny')) return true;
    const grants = (b: number) => (b & BIT.deny) === 0 && b !== 0;
    for (const [pattern, g] of this.exact) if (pattern.startsWith(mountPath) && grants(g.bits)) return true;
    return [...this.prefixes, ...this.segments].some((r) => r.path.startsWith(mountPath) && grants(r.bits));
  }

  /**
   * The grant of the one rule that applies to `path`, or undefined when none
   * matches. Remembered per path (bounded): an Acl is immutable, and a service's hot
   * paths repeat, so each request costs one Map lookup whatever the number of rules.
   */
  private governing(path: string, list: boolean): Grant | undefined {
    const key = list ? '\0' + path : path;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit === false ? undefined : hit;
    const b = this.resolve(path, list);
    this.memo.set(key, b ?? false);
    return b;
  }

  private resolve(path: string, list: boolean): Grant | undefined {
    const trimmed = list && path.endsWith('/') ? path.slice(0, -1) : undefined;
    const exact = this.exact.get(path) ?? (trimmed === undefined ? undefined : this.exact.get(trimmed));
    if (exact !== undefined) return exact;
    return this.glob(path) ?? (trimmed === undefined ? undefined : this.glob(trimmed));
  }

  /** The highest-priority glob rule matching `path` (§5.3). */
  private glob(path: string): Grant | undefined {
    let best: GlobRule | undefined = this.prefixes.find((r) => path.startsWith(r.path));
    if (this.segments.length) {
      const parts = path.split('/');
      for (const r of this.segments) if (segmentsMatch(r, parts) && (!best || beats(r, best))) best = r;
    }
    return best;
  }
}

/** Paths remembered per Acl. */
const MEMO_ENTRIES = 4096;

/**
 * Root-protected paths (reference/secrets.md §5.2): every operation on them also needs
 * `sudo`. Limited to the sys endpoints Cairn serves or is about to; `sys/mounts/*` is
 * deliberately not among them. Entries ending in `/` are prefixes.
 */
const ROOT_PROTECTED: readonly string[] = [
  'sys/auth/',
  'sys/seal',
  'sys/config/cors',
  'sys/audit',
  'sys/audit/',
  'sys/audit-hash/',
  // Listing and revoking leases by prefix (the reference's `leases/lookup/*`, `leases/revoke-prefix/*`, …).
  'sys/leases/lookup/',
  'sys/leases/revoke-prefix/',
  'sys/leases/revoke-force/',
  'sys/revoke-prefix/',
  'sys/revoke-force/',
  // Moving a mount (`sys/remount`) and reading how the move went.
  'sys/remount',
  'sys/remount/',
];

/**
 * Whether `path` (relative to `/v1/`, after the namespace) is root-protected, so that
 * the caller's rule must grant `sudo` as well as the operation's capability.
 */
export function sudoRequired(path: string): boolean {
  const p = path.replace(/\/+$/, '');
  return ROOT_PROTECTED.some((r) => (r.endsWith('/') ? p.startsWith(r) && p.length > r.length : p === r));
}
