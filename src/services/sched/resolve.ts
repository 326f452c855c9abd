/**
 * Token resolution for the scheduler (reference/sched.md §1.3): a request's secret → its
 * token and {@link Authorizer}. No secret → the anonymous token (which holds the
 * `anonymous` policy once an operator creates it). A secret that is no token but a task's
 * valid default workload identity → that workload, which may read its own job (issue 27;
 * keyring/workload-token.ts). An unknown or expired secret → 403 `Permission denied`. Lookup and the caches (policies parsed once per (name,
 * ModifyIndex), authorizers per token until the token, a policy or a role changes) are the
 * kernel's {@link AclTokenResolver}.
 *
 * @module
 */
import { AclTokenResolver } from '../../kernel/acl/index.js';
import type { Indexed, StateStore } from '../../kernel/store/index.js';
import { ANONYMOUS_TOKEN, Authorizer, MANAGEMENT_TOKEN_TYPE, parsePolicy, type ParsedPolicy } from './acl/index.js';
import { permissionDeniedError } from './http.js';
import type { Keyring } from './keyring/keyring.js';
import { workloadOf, type Workload } from './keyring/workload-token.js';
import { secretKey, T, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';

/** A resolved request identity. */
export interface Identity {
  readonly token: TokenDoc;
  /** Every check passes (a management token). */
  readonly management: boolean;
  readonly authorizer: Authorizer;
  /** Set when the secret was a task's default workload identity (keyring/workload-token.ts): it may read its own job only (access.ts). */
  readonly workload?: Workload;
}

/** The anonymous token as a stored-token shape (it is not stored). */
const ANONYMOUS: TokenDoc = { ...ANONYMOUS_TOKEN, Roles: [], Hash: '', CreateTime: '0001-01-01T00:00:00Z' };

/** Resolves tokens against the state. */
export class SchedAclResolver {
  private readonly core: AclTokenResolver<TokenDoc, ParsedPolicy, Authorizer>;

  /**
   * @param keyring the region's keyring: a secret that is no ACL token may be a task's
   *   workload identity (absent: never; a client-only agent).
   */
  constructor(
    private readonly state: StateStore,
    private readonly now: () => number,
    private readonly keyring?: Keyring,
  ) {
    this.core = new AclTokenResolver({ state, tables: { tokens: T.tokens, policies: T.policies, roles: T.roles }, secretKey, parse: parsePolicy, now });
  }

  /** The stored token whose secret is `secret`, if it exists and has not expired. */
  lookup(secret: string): (TokenDoc & Indexed) | undefined {
    return this.core.lookup(secret);
  }

  /**
   * The identity of a request carrying `secret` (undefined: the anonymous token).
   * @throws 403 `Permission denied` for an unknown or expired secret.
   */
  resolve(secret: string | undefined): Identity {
    if (secret === undefined || secret === '') return this.identityOf(ANONYMOUS, 0);
    const token = this.lookup(secret);
    if (token) return this.identityOf(token, token.ModifyIndex);
    const workload = this.keyring && workloadOf(this.keyring, this.state, secret, this.now());
    if (!workload) throw permissionDeniedError();
    return { token: { ...ANONYMOUS, Name: `workload ${workload.allocId}/${workload.task}` }, management: false, authorizer: NOTHING, workload };
  }

  /** The identity of every request when ACLs are disabled: management, so every check passes. */
  resolveDisabled(): Identity {
    return DISABLED;
  }

  /** Like {@link resolve}, but undefined instead of a throw (event stream re-checks). */
  tryResolve(secret: string | undefined): Identity | undefined {
    try {
      return this.resolve(secret);
    } catch {
      return undefined;
    }
  }

  private identityOf(token: TokenDoc, modifyIndex: number): Identity {
    if (token.Type === MANAGEMENT_TOKEN_TYPE) return { token, management: true, authorizer: MANAGEMENT };
    const authorizer = this.core.authorizer(token, modifyIndex, () => this.authorizerFor(token));
    return { token, management: false, authorizer };
  }

  /** The authorizer of a client token: its policies and its roles' policies; missing ones are skipped. */
  private authorizerFor(token: TokenDoc): Authorizer {
    const names = new Set(token.Policies);
    for (const link of token.Roles) {
      const role = this.state.get<RoleDoc>(T.roles, link.ID);
      role?.Policies.forEach((p) => names.add(p.Name));
    }
    const policies: ParsedPolicy[] = [];
    for (const name of names) {
      const doc = this.state.get<PolicyDoc>(T.policies, name);
      if (doc) policies.push(this.core.policy(doc.Name, doc.ModifyIndex, doc.Rules));
    }
    return new Authorizer(policies);
  }
}

const MANAGEMENT = Authorizer.management();
/** A workload identity's authorizer: no policy; what it may read is access.ts's workload rule. */
const NOTHING = new Authorizer([]);
const DISABLED: Identity = { token: ANONYMOUS, management: true, authorizer: MANAGEMENT };
