/**
 * Token resolution for the scheduler (reference/sched.md §1.3): a request's secret → its
 * token and {@link Authorizer}. No secret → the anonymous token (which holds the
 * `anonymous` policy once an operator creates it). An unknown or expired secret → 403
 * `Permission denied`. Secrets are found through the state's unique index, whose key is a
 * SHA-256 digest, never the secret itself. Authorizers are kept per token until the token,
 * a policy or a role changes.
 *
 * @module
 */
import type { Indexed, StateStore } from '../../kernel/store/index.js';
import { ANONYMOUS_TOKEN, Authorizer, MANAGEMENT_TOKEN_TYPE, parsePolicy, type ParsedPolicy } from './acl/index.js';
import { permissionDeniedError } from './http.js';
import { secretKey, T, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';
import { VersionedCache } from '../../kernel/util/versioned-cache.js';

/** Authorizers remembered at most (the least recently used go first). */
const MAX_AUTHORIZERS = 10_000;

/** A resolved request identity. */
export interface Identity {
  readonly token: TokenDoc;
  /** Every check passes (a management token). */
  readonly management: boolean;
  readonly authorizer: Authorizer;
}

/** The anonymous token as a stored-token shape (it is not stored). */
const ANONYMOUS: TokenDoc = { ...ANONYMOUS_TOKEN, Roles: [], Hash: '', CreateTime: '0001-01-01T00:00:00Z' };

/** True when the token has an `ExpirationTime` at or before `nowMs`. */
export function expired(t: TokenDoc, nowMs: number): boolean {
  return t.ExpirationTime !== undefined && Date.parse(t.ExpirationTime) <= nowMs;
}

/** Resolves tokens against the state. */
export class SchedAclResolver {
  private readonly parsed = new Map<string, { modifyIndex: number; policy: ParsedPolicy }>();
  private readonly built = new VersionedCache<Authorizer>(MAX_AUTHORIZERS);

  constructor(
    private readonly state: StateStore,
    private readonly now: () => number,
  ) {}

  /** The stored token whose secret is `secret`, if it exists and has not expired. */
  lookup(secret: string): (TokenDoc & Indexed) | undefined {
    const t = this.state.getBy<TokenDoc>(T.tokens, 'secret', secretKey(secret));
    return t && !expired(t, this.now()) ? t : undefined;
  }

  /**
   * The identity of a request carrying `secret` (undefined: the anonymous token).
   * @throws 403 `Permission denied` for an unknown or expired secret.
   */
  resolve(secret: string | undefined): Identity {
    if (secret === undefined || secret === '') return this.identityOf(ANONYMOUS, 0);
    const token = this.lookup(secret);
    if (!token) throw permissionDeniedError();
    return this.identityOf(token, token.ModifyIndex);
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
    const stamp = `${modifyIndex}/${this.state.latestIndex(T.policies, T.roles)}`;
    const authorizer = this.built.get(token.AccessorID, stamp, () => this.authorizerFor(token));
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
      if (doc) policies.push(this.policyOf(doc));
    }
    return new Authorizer(policies);
  }

  private policyOf(doc: PolicyDoc & Indexed): ParsedPolicy {
    const hit = this.parsed.get(doc.Name);
    if (hit && hit.modifyIndex === doc.ModifyIndex) return hit.policy;
    const policy = parsePolicy(doc.Rules);
    this.parsed.set(doc.Name, { modifyIndex: doc.ModifyIndex, policy });
    return policy;
  }
}

const MANAGEMENT = Authorizer.management();
const DISABLED: Identity = { token: ANONYMOUS, management: true, authorizer: MANAGEMENT };
