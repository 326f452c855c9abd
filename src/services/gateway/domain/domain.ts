/**
 * The controller's domain: its state store, the scope tree, and who a request is (the
 * token it presents, the roles that apply, the {@link Acl} they make). The dispatcher
 * (api.ts) resolves the caller and checks the grant each route declares (routes.ts) before
 * its handler reads and changes resources through the store.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { HttpRequest } from '../../../kernel/http/index.js';
import type { Logger } from '../../../kernel/log/logger.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { secretsEqual } from '../../../kernel/util/sha256.js';
import { WorkerDirectory } from '../cluster-authority.js';
import { SessionStore } from '../sessions.js';
import { Acl, type AclRole } from './acl.js';
import { T, type AuthTokenDoc, type GroupDoc, type RoleDoc, type ScopeDoc } from './docs.js';
import { unauthenticatedError } from './errors.js';
import { parseGrant, type Grant } from './grants.js';
import { ANON_USER, GLOBAL, RECOVERY_USER } from './ids.js';
import { presentedToken, tokenEndMs, tokenIdOf, tokenMatches } from './tokens.js';

/** Options of {@link GatewayDomain}. */
export interface GatewayDomainOptions {
  readonly state: StateStore;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** `auth_token_time_to_live` in seconds. */
  readonly tokenTtlSeconds: number;
  /** `auth_token_time_to_stale` (idle timeout) in seconds. */
  readonly tokenStaleSeconds: number;
  /** The controller's static `auth_token`: the recovery credential (every action); undefined: none. */
  readonly recoveryToken?: string;
  /** The key the `*_hmac` fields of credential stores and credentials are made with (credential-hmac.ts); default: a random one. */
  readonly credentialHmacKey?: Uint8Array;
  /** The workers this controller knows (new sessions are offered those that are active); default none. */
  readonly workers?: WorkerDirectory;
}

/** Who sent a request. */
export interface Caller {
  readonly acl: Acl;
  /** The auth token used; absent for the anonymous user and the recovery credential. */
  readonly token?: AuthTokenDoc;
  /** The user id (`u_anon`, `u_recovery`, or a user). */
  readonly userId: string;
}

/** See the module doc. */
export class GatewayDomain {
  readonly state: StateStore;
  readonly log: Logger;
  readonly now: () => number;
  readonly tokenTtlSeconds: number;
  readonly tokenStaleSeconds: number;
  private readonly recoveryToken?: string;
  /** See {@link GatewayDomainOptions.credentialHmacKey}. */
  readonly credentialHmacKey: Uint8Array;
  /** Workers known to this controller (cluster.ts, cluster-authority.ts). */
  readonly workers: WorkerDirectory;
  /** The sessions in the state (sessions.ts). */
  readonly sessions: SessionStore;
  /** Parsed grants per role, valid while the role's ModifyIndex is unchanged. */
  private readonly parsed = new Map<string, { index: number; grants: Grant[] }>();

  constructor(o: GatewayDomainOptions) {
    this.state = o.state;
    this.log = o.log;
    this.now = o.now;
    this.tokenTtlSeconds = o.tokenTtlSeconds;
    this.tokenStaleSeconds = o.tokenStaleSeconds;
    this.recoveryToken = o.recoveryToken;
    this.credentialHmacKey = o.credentialHmacKey ?? randomBytes(32);
    this.workers = o.workers ?? new WorkerDirectory();
    this.sessions = new SessionStore(this);
  }

  /** The current time as RFC 3339. */
  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Scope `id`, or undefined. */
  scope(id: string): ScopeDoc | undefined {
    return this.state.get<ScopeDoc>(T.scopes, id);
  }

  /** The parent of scope `id` (undefined for global and unknown scopes). */
  readonly parentOf = (id: string): string | undefined => (id === GLOBAL ? undefined : this.scope(id)?.scope_id);

  /** `id` and every scope below it, parents before children. */
  subtree(id: string): string[] {
    const out = [id];
    const scopes = this.state.list<ScopeDoc>(T.scopes);
    for (let i = 0; i < out.length; i++) for (const s of scopes) if (s.scope_id === out[i]) out.push(s.id);
    return out;
  }

  /**
   * Who sent `req`: the recovery credential, the user of a valid auth token, or the
   * anonymous user when no token is presented. A valid token's last use is moved forward
   * (at most every tenth of the idle timeout, and only where this controller writes).
   * @throws 401 for a token that is unknown, wrong, expired or idle too long.
   */
  async caller(req: HttpRequest): Promise<Caller> {
    const token = presentedToken(req);
    if (token === undefined) return this.callerOf(ANON_USER);
    if (this.recoveryToken !== undefined && secretsEqual(token, this.recoveryToken)) {
      return { userId: RECOVERY_USER, acl: new Acl({ userId: RECOVERY_USER, groupIds: [] }, [], this.parentOf, true) };
    }
    const doc = this.validToken(token);
    if (!doc) throw unauthenticatedError();
    if (this.state.isWritable && this.staleUse(doc)) {
      const now = new Date(this.now()).toISOString();
      await this.state.txn((tx) => {
        const cur = tx.get<AuthTokenDoc>(T.authTokens, doc.id);
        if (cur) tx.put(T.authTokens, doc.id, { ...cur, approximate_last_used_time: now });
      });
    }
    return { ...this.callerOf(doc.user_id, doc.account_id), token: doc };
  }

  /**
   * Whether `req` presents a valid auth token whose last use is due to be recorded: a
   * follower (which cannot write) then forwards the request to the leader, so tokens used
   * only through followers do not idle out.
   */
  tokenUseDue(req: HttpRequest): boolean {
    const token = presentedToken(req);
    const doc = token === undefined ? undefined : this.validToken(token);
    return doc !== undefined && this.staleUse(doc);
  }

  /** The stored token `token` names, when it matches and has not ended. */
  private validToken(token: string): AuthTokenDoc | undefined {
    const id = tokenIdOf(token);
    const doc = id === undefined ? undefined : this.state.get<AuthTokenDoc>(T.authTokens, id);
    if (!doc || !tokenMatches(doc, token) || tokenEndMs(doc, this.tokenStaleSeconds) <= this.now()) return undefined;
    return doc;
  }

  /** Whether the token's last use is older than a tenth of the idle timeout (at most a minute). */
  private staleUse(doc: AuthTokenDoc): boolean {
    const refreshMs = Math.min(60_000, (this.tokenStaleSeconds * 1000) / 10);
    return this.now() - Date.parse(doc.approximate_last_used_time) >= refreshMs;
  }

  /** The ACL of user `userId` (logged in with `accountId`) from every role in the store. */
  callerOf(userId: string, accountId?: string): Caller {
    const groupIds =
      userId === ANON_USER
        ? []
        : this.state
            .list<GroupDoc>(T.groups)
            .filter((g) => g.member_ids.includes(userId))
            .map((g) => g.id);
    const roles: AclRole[] = this.state.list<RoleDoc>(T.roles).map((r) => ({
      id: r.id,
      scopeId: r.scope_id!,
      principalIds: r.principal_ids,
      grantScopeIds: r.grant_scope_ids,
      grants: this.grantsOf(r),
    }));
    return { userId, acl: new Acl({ userId, accountId, groupIds }, roles, this.parentOf) };
  }

  /** A role's parsed grants (cached per version); a stored grant that no longer parses is skipped and logged. */
  private grantsOf(r: RoleDoc & { ModifyIndex: number }): Grant[] {
    const hit = this.parsed.get(r.id);
    if (hit && hit.index === r.ModifyIndex) return hit.grants;
    const grants: Grant[] = [];
    for (const g of r.grant_strings) {
      try {
        grants.push(parseGrant(g));
      } catch (err) {
        this.log.warn({ role: r.id, grant: g, err: (err as Error).message }, 'stored grant does not parse; skipped');
      }
    }
    this.parsed.set(r.id, { index: r.ModifyIndex, grants });
    return grants;
  }
}
