/**
 * The policy store (reference/secrets.md §3.7; the reference's `policy_store.go`): ACL
 * policies kept as JSON `{name, policy}` under `sys/policy/<name>` on the core's storage
 * (behind the barrier), parsed policies and compiled ACLs cached in memory.
 *
 * Built-ins: `root` is never stored and can be neither written nor deleted; it grants
 * everything. `default` is created on first start with the reference's default rules, may
 * be rewritten, and cannot be deleted. `response-wrapping` (the policy of wrapping tokens,
 * issue 17) is never stored, can be neither written nor deleted, and grants only
 * `sys/wrapping/unwrap`.
 *
 * Caches are per process: a write on this store invalidates them, and so does a change
 * another server made (a performance standby hears of it from the change feed:
 * ha/perf-standby.ts, {@link PolicyStore.invalidate}).
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import { Acl } from './acl.js';
import { PolicyParseError, parsePolicy, type Policy } from './parse.js';
import { fillTemplates, identityKey, type TemplateIdentity } from './template.js';
import { LRUCache } from 'lru-cache';

/** A policy as stored and as `sys/policies/acl/:name` shows it. */
export interface StoredPolicy {
  readonly name: string;
  /** The text as written (HCL or JSON). */
  readonly policy: string;
}

/**
 * The reference's `default` policy, reduced to the endpoints Cairn serves: a token may
 * look itself up, renew and revoke itself, and ask for its own capabilities.
 */
export const DEFAULT_POLICY_TEXT = `
# Allow tokens to look up their own properties
path "auth/token/lookup-self" {
    capabilities = ["read"]
}

# Allow tokens to renew themselves
path "auth/token/renew-self" {
    capabilities = ["update"]
}

# Allow tokens to revoke themselves
path "auth/token/revoke-self" {
    capabilities = ["update"]
}

# Allow a token to look up its own capabilities on a path
path "sys/capabilities-self" {
    capabilities = ["update"]
}

# Allow tokens to wrap, look up, unwrap and rewrap response-wrapped data
path "sys/wrapping/wrap" {
    capabilities = ["update"]
}
path "sys/wrapping/lookup" {
    capabilities = ["update"]
}
path "sys/wrapping/unwrap" {
    capabilities = ["update"]
}
path "sys/wrapping/rewrap" {
    capabilities = ["update"]
}

# Allow a token to manage its own cubbyhole
path "cubbyhole/*" {
    capabilities = ["create", "read", "update", "delete", "list"]
}

# Allow clients (the CLI's kv commands) to learn a mount's type and KV version for a
# path the token may use; the endpoint itself checks that access
path "sys/internal/ui/mounts/*" {
    capabilities = ["read"]
}
`;

/** The built-in policy of wrapping tokens (the reference's `responseWrappingPolicyName`). */
export const RESPONSE_WRAPPING_POLICY = 'response-wrapping';

/**
 * Its rules: unwrapping only. The reference also grants `cubbyhole/response`; Cairn does
 * not, so the wrapped response is reachable only through the single-use unwrap.
 */
const RESPONSE_WRAPPING_TEXT = 'path "sys/wrapping/unwrap" { capabilities = ["update"] }';

/** Policies that are never stored and can be neither written nor deleted. */
const IMMUTABLE = ['root', RESPONSE_WRAPPING_POLICY];

/** Where policies are stored, relative to the namespace's storage. */
export const POLICY_PREFIX = 'sys/policy/';
/** Compiled ACLs kept at most (the least recently used go first). */
const MAX_CACHED_ACLS = 1000;

/** Policy names are case-insensitive: trimmed and lower-cased (reference/secrets.md §3.7). */
function normalizePolicyName(name: string): string {
  return name.trim().toLowerCase();
}

/** ACL policies on a {@link Backend}, with parse and ACL caches. */
export class PolicyStore {
  private readonly parsed = new Map<string, Policy>();
  private readonly acls = new LRUCache<string, Acl>({ max: MAX_CACHED_ACLS });
  /** Sets of policy names (cache keys) of which one policy is templated: their ACLs are per identity. */
  private readonly templatedSets = new Set<string>();
  /** Bumped by every write; a read that raced with a write does not fill the caches. */
  private generation = 0;

  private constructor(private readonly storage: Backend) {}

  /**
   * Opens the store on `storage`, creating the `default` policy on first start. Its text is
   * stored without being parsed here: it is this module's constant (store.test.ts compiles its ACL),
   * and the first parse loads the HCL parser, about 0.1 s of CPU that every new secrets server
   * and namespace paid at start though most never read the policy (BENCHMARKS.md, "Issue 30, third part").
   */
  static async open(storage: Backend): Promise<PolicyStore> {
    const store = new PolicyStore(storage);
    if ((await storage.get(POLICY_PREFIX + 'default')) === undefined) await store.write('default', DEFAULT_POLICY_TEXT);
    return store;
  }

  /** Names of the stored policies, sorted (without `root`). */
  async list(): Promise<string[]> {
    return (await this.storage.list(POLICY_PREFIX)).filter((k) => !k.endsWith('/'));
  }

  /** The policy named `name`; `root` has an empty text. Undefined when there is none. */
  async get(name: string): Promise<StoredPolicy | undefined> {
    const n = normalizePolicyName(name);
    if (n === 'root') return { name: 'root', policy: '' };
    return this.read(n);
  }

  /** Whether a policy named `name` exists (`root` always does). */
  async exists(name: string): Promise<boolean> {
    const n = normalizePolicyName(name);
    return IMMUTABLE.includes(n) || (await this.storage.get(POLICY_PREFIX + n)) !== undefined;
  }

  /**
   * Creates or replaces a policy after parsing it.
   * Errors (400): `cannot update "root" policy` (or `"response-wrapping"`), `'policy' parameter not supplied or
   * empty`, the parser's message (`failed to parse policy: …`).
   */
  async set(name: string, text: string): Promise<void> {
    const n = normalizePolicyName(name);
    if (n === '') throw badRequest('policy name must be provided in the URL');
    if (n.includes('/')) throw badRequest(`policy name "${n}": must not contain "/"`);
    if (IMMUTABLE.includes(n)) throw badRequest(`cannot update "${n}" policy`);
    if (text.trim() === '') throw badRequest("'policy' parameter not supplied or empty");
    let policy: Policy;
    try {
      policy = parsePolicy(n, text);
    } catch (err) {
      if (err instanceof PolicyParseError) throw badRequest(err.message);
      throw err;
    }
    await this.write(policy.name, text);
  }

  /** Stores a policy's text under its (normalised) name. */
  private async write(name: string, text: string): Promise<void> {
    await this.storage.put(POLICY_PREFIX + name, json.encode({ name, policy: text } satisfies StoredPolicy));
    this.invalidate();
  }

  /**
   * Deletes a policy; deleting one that does not exist is not an error.
   * Errors (400): `cannot delete "root" policy` (or `"response-wrapping"`), `cannot delete default policy`.
   */
  async delete(name: string): Promise<void> {
    const n = normalizePolicyName(name);
    if (IMMUTABLE.includes(n)) throw badRequest(`cannot delete "${n}" policy`);
    if (n === 'default') throw badRequest('cannot delete default policy');
    await this.storage.delete(POLICY_PREFIX + n);
    this.invalidate();
  }

  /**
   * The ACL of a token holding `names`: the root ACL when `root` is among them,
   * otherwise the union of the named policies; names with no policy are ignored, as in
   * the reference. A templated rule's path is filled in from `identity`, the token's login
   * (template.ts; none: the rule grants nothing). Cached per set of names — and per identity
   * when one of the policies is templated — until the next write.
   */
  async acl(names: readonly string[], identity?: TemplateIdentity): Promise<Acl> {
    const set = [...new Set(names.map(normalizePolicyName))].sort();
    const key = set.join('\n');
    // A templated set is cached per identity; which sets are is known once they were compiled.
    const cacheKey = this.templatedSets.has(key) ? `${key}\0${identity ? identityKey(identity) : ''}` : key;
    const hit = this.acls.get(cacheKey);
    if (hit) return hit;
    const generation = this.generation;
    if (set.includes('root')) return this.keep(generation, key, new Acl([], true));
    const policies = (await Promise.all(set.map((n) => this.policy(n)))).filter((p) => p !== undefined);
    if (!policies.some((p) => p.rules.some((r) => r.templated))) return this.keep(generation, key, new Acl(policies));
    if (generation === this.generation) this.templatedSets.add(key);
    const filled = policies.map((p) => ({
      ...p,
      rules: p.rules.flatMap((r) => {
        if (!r.templated) return [r];
        const pattern = fillTemplates(r.pattern, identity);
        return pattern === undefined ? [] : [{ ...r, pattern }];
      }),
    }));
    return this.keep(generation, `${key}\0${identity ? identityKey(identity) : ''}`, new Acl(filled));
  }

  /** Caches `acl` under `key` unless a write happened since `generation`; returns it. */
  private keep(generation: number, key: string, acl: Acl): Acl {
    if (generation === this.generation) this.acls.set(key, acl);
    return acl;
  }

  /** The parsed policy `name` (normalised), from the cache or storage. */
  private async policy(name: string): Promise<Policy | undefined> {
    const hit = this.parsed.get(name);
    if (hit) return hit;
    const generation = this.generation;
    const stored = await this.read(name);
    if (!stored) return undefined;
    const policy = parsePolicy(stored.name, stored.policy);
    if (generation === this.generation) this.parsed.set(name, policy);
    return policy;
  }

  private async read(name: string): Promise<StoredPolicy | undefined> {
    if (name === RESPONSE_WRAPPING_POLICY) return { name, policy: RESPONSE_WRAPPING_TEXT };
    return json.decode<StoredPolicy>(await this.storage.get(POLICY_PREFIX + name));
  }

  /** Empties the parse and ACL caches; reads in flight do not fill them. */
  invalidate(): void {
    this.generation++;
    this.parsed.clear();
    this.acls.clear();
    this.templatedSets.clear();
  }
}
