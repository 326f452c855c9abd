/**
 * Token resolution: a request's secret → its token and {@link Authorizer} (reference/mesh.md
 * §0.2, §6). No secret → the agent's default token (`acl.tokens.default`), else the
 * anonymous token. An unknown or expired secret → 403 `ACL not found`. Policies are parsed
 * once per (ID, ModifyIndex); secrets are compared through the state's unique index, whose
 * key is a SHA-256 digest, never the secret itself, so the lookup time says nothing about
 * how much of a guess was right.
 *
 * @module
 */
import type { Indexed, StateStore } from '../../kernel/store/index.js';
import {
  Authorizer,
  nodeIdentityRules,
  parseRules,
  serviceIdentityRules,
  type DefaultPolicy,
  type ParsedRules,
} from './acl/index.js';
import { meshForbidden } from './http.js';
import { secretKey, T, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';
import { VersionedCache } from '../../kernel/util/versioned-cache.js';

/** Authorizers remembered at most (the least recently used go first). */
const MAX_AUTHORIZERS = 10_000;

/** A resolved request identity. `token` is undefined only when ACLs are disabled. */
export interface Identity {
  readonly token: TokenDoc | undefined;
  readonly accessorId: string;
  readonly authorizer: Authorizer;
}

/** True when the token has an `ExpirationTime` at or before `nowMs`. */
export function expired(t: TokenDoc, nowMs: number): boolean {
  return t.ExpirationTime !== undefined && Date.parse(t.ExpirationTime) <= nowMs;
}

/** Resolves tokens against the state. */
export class AclResolver {
  private readonly parsed = new Map<string, { modifyIndex: number; rules: ParsedRules }>();
  /**
   * Authorizers by token accessor, with the stamp they were built at: the token's
   * ModifyIndex and the indexes of the policy and role tables (memory, so a write is seen
   * at once). Any change to the token, a policy or a role makes the stamp differ.
   */
  private readonly built = new VersionedCache<Authorizer>(MAX_AUTHORIZERS);

  constructor(
    private readonly state: StateStore,
    private readonly options: { readonly defaultPolicy: DefaultPolicy; readonly defaultToken?: string; readonly datacenter: string; readonly now: () => number },
  ) {}

  /** The token whose secret is `secret`, if it exists and has not expired. */
  lookup(secret: string): (TokenDoc & Indexed) | undefined {
    const t = this.state.getBy<TokenDoc>(T.tokens, 'secret', secretKey(secret));
    return t && !expired(t, this.options.now()) ? t : undefined;
  }

  /**
   * The identity of a request carrying `secret` (undefined: none given).
   * @throws 403 `ACL not found` for an unknown or expired secret.
   */
  resolve(secret: string | undefined): Identity {
    const s = secret ?? this.options.defaultToken ?? 'anonymous';
    const token = this.lookup(s);
    if (!token) throw meshForbidden('ACL not found');
    const stamp = `${token.ModifyIndex}/${this.state.latestIndex(T.policies, T.roles)}`;
    const authorizer = this.built.get(token.AccessorID, stamp, () => this.authorizerFor(token));
    return { token, accessorId: token.AccessorID, authorizer };
  }

  /** The authorizer of `token`: its policies, its roles' policies and identities, under the default policy. */
  authorizerFor(token: TokenDoc): Authorizer {
    const policyIds = new Set(token.Policies.map((p) => p.ID));
    const services = [...token.ServiceIdentities];
    const nodes = [...token.NodeIdentities];
    for (const link of token.Roles) {
      const role = this.state.get<RoleDoc>(T.roles, link.ID);
      if (!role) continue;
      role.Policies.forEach((p) => policyIds.add(p.ID));
      services.push(...role.ServiceIdentities);
      nodes.push(...role.NodeIdentities);
    }
    const rules: ParsedRules[] = [];
    for (const id of policyIds) {
      const policy = this.state.get<PolicyDoc>(T.policies, id);
      if (!policy || (policy.Datacenters?.length && !policy.Datacenters.includes(this.options.datacenter))) continue;
      rules.push(this.rulesOf(policy));
    }
    for (const s of services) if (!s.Datacenters?.length || s.Datacenters.includes(this.options.datacenter)) rules.push(serviceIdentityRules(s.ServiceName));
    for (const n of nodes) if (n.Datacenter === this.options.datacenter) rules.push(nodeIdentityRules(n.NodeName));
    return new Authorizer(rules, this.options.defaultPolicy);
  }

  private rulesOf(policy: PolicyDoc & { ModifyIndex: number }): ParsedRules {
    const hit = this.parsed.get(policy.ID);
    if (hit && hit.modifyIndex === policy.ModifyIndex) return hit.rules;
    const rules = parseRules(policy.Rules);
    this.parsed.set(policy.ID, { modifyIndex: policy.ModifyIndex, rules });
    return rules;
  }
}
