/**
 * Token resolution: a request's secret → its token and {@link Authorizer} (reference/mesh.md
 * §0.2, §6). No secret → the agent's default token (`acl.tokens.default`), else the
 * anonymous token. An unknown or expired secret → 403 `ACL not found`. Lookup and the
 * caches (policies parsed once per (ID, ModifyIndex), authorizers per token) are the
 * kernel's {@link AclTokenResolver}.
 *
 * @module
 */
import { AclTokenResolver, tokenExpired } from '../../kernel/acl/index.js';
import type { Indexed, StateStore } from '../../kernel/store/index.js';
import { Authorizer, nodeIdentityRules, parseRules, serviceIdentityRules, type DefaultPolicy, type ParsedRules } from './acl/index.js';
import { meshForbidden } from './http.js';
import { secretKey, T, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';

/** A resolved request identity. `token` is undefined only when ACLs are disabled. */
export interface Identity {
  readonly token: TokenDoc | undefined;
  readonly accessorId: string;
  readonly authorizer: Authorizer;
}

/** True when the token has an `ExpirationTime` at or before `nowMs`. */
export const expired: (t: TokenDoc, nowMs: number) => boolean = tokenExpired;

/** Resolves tokens against the state. */
export class AclResolver {
  private readonly core: AclTokenResolver<TokenDoc, ParsedRules, Authorizer>;

  constructor(
    private readonly state: StateStore,
    private readonly options: {
      readonly defaultPolicy: DefaultPolicy;
      readonly defaultToken?: string;
      readonly datacenter: string;
      readonly now: () => number;
    },
  ) {
    this.core = new AclTokenResolver({
      state,
      tables: { tokens: T.tokens, policies: T.policies, roles: T.roles },
      secretKey,
      parse: parseRules,
      now: options.now,
    });
  }

  /** The token whose secret is `secret`, if it exists and has not expired. */
  lookup(secret: string): (TokenDoc & Indexed) | undefined {
    return this.core.lookup(secret);
  }

  /**
   * The identity of a request carrying `secret` (undefined: none given).
   * @throws 403 `ACL not found` for an unknown or expired secret.
   */
  resolve(secret: string | undefined): Identity {
    const s = secret ?? this.options.defaultToken ?? 'anonymous';
    const token = this.lookup(s);
    if (!token) throw meshForbidden('ACL not found');
    const authorizer = this.core.authorizer(token, token.ModifyIndex, () => this.authorizerFor(token));
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
      rules.push(this.core.policy(policy.ID, policy.ModifyIndex, policy.Rules));
    }
    for (const s of services) if (!s.Datacenters?.length || s.Datacenters.includes(this.options.datacenter)) rules.push(serviceIdentityRules(s.ServiceName));
    for (const n of nodes) if (n.Datacenter === this.options.datacenter) rules.push(nodeIdentityRules(n.NodeName));
    return new Authorizer(rules, this.options.defaultPolicy);
  }
}
