/**
 * Job-wide template restart permits (issue 27 scope 6, a Cairn addition; reference/integration.md
 * §8: one key change restarting every allocation of a job at once). Before a template change
 * restarts (or signals) its task, the client asks the leader for a permit of the allocation's
 * (namespace, job, task group); at most `limit` allocations of one group hold one at a time, so
 * a change reaches the group's allocations a few at a time instead of all at once.
 *
 * - A permit is held by an allocation: acquiring one it holds renews it (a new expiry).
 * - It expires {@link PERMIT_TTL_MS} after it was (re)acquired when not released: a client
 *   that died while restarting does not block the group for ever.
 * - A holder the `live` predicate rejects (a stopped or unknown allocation) is dropped at the
 *   next acquisition.
 * - In memory on the leader: a failover forgets every permit (at worst a few more restarts at
 *   once, until the new leader's permits fill up; docs/compatibility.md).
 *
 * @module
 */

/** How long a permit lasts without being released or renewed: 60 s, in ms. */
export const PERMIT_TTL_MS = 60_000;
/** The longest `RetryAfterMs` a refusal asks the client to wait: 5 s, in ms. */
export const MAX_RETRY_AFTER_MS = 5_000;

/** Whose permits one count covers: the allocations of one task group of one job. */
export interface PermitScope {
  readonly namespace: string;
  readonly job: string;
  readonly group: string;
}

/** The answer to an acquisition: granted until `ExpiresAt` (RFC 3339), or refused. */
export type PermitAnswer =
  | { readonly Granted: true; readonly ExpiresAt: string }
  | {
      readonly Granted: false;
      /** ms until the earliest holder's permit expires, at most {@link MAX_RETRY_AFTER_MS}. */
      readonly RetryAfterMs: number;
      /** Allocations holding a permit of the scope now. */
      readonly Holders: number;
      readonly Limit: number;
    };

/** The permits of every scope, held by allocation ID; see the module doc. */
export class RestartPermits {
  /** Scope key → allocation ID → expiry (epoch ms). */
  private readonly scopes = new Map<string, Map<string, number>>();
  /** Allocation ID → its scope key (an allocation belongs to one scope). */
  private readonly scopeOf = new Map<string, string>();

  /** `now`: the clock in epoch ms (injected by tests); `ttlMs`: the permit lifetime ({@link PERMIT_TTL_MS}). */
  constructor(
    private readonly now: () => number,
    private readonly ttlMs = PERMIT_TTL_MS,
  ) {}

  /**
   * Grants `allocId` a permit of `scope` (or renews the one it holds) when fewer than `limit`
   * (at least 1) other allocations hold one; first drops expired holders and those `live`
   * rejects (stopped allocations).
   */
  acquire(scope: PermitScope, allocId: string, o: { readonly limit: number; readonly live: (allocId: string) => boolean }): PermitAnswer {
    const key = JSON.stringify([scope.namespace, scope.job, scope.group]);
    const now = this.now();
    const holders = this.scopes.get(key) ?? new Map<string, number>();
    for (const [id, expiresAt] of holders) if (expiresAt <= now || (id !== allocId && !o.live(id))) this.drop(id);
    const limit = Math.max(1, Math.floor(o.limit));
    if (!holders.has(allocId) && holders.size >= limit) {
      const earliest = Math.min(...holders.values());
      return { Granted: false, RetryAfterMs: Math.min(MAX_RETRY_AFTER_MS, Math.max(1, earliest - now)), Holders: holders.size, Limit: limit };
    }
    const expiresAt = now + this.ttlMs;
    holders.set(allocId, expiresAt);
    this.scopes.set(key, holders);
    this.scopeOf.set(allocId, key);
    return { Granted: true, ExpiresAt: new Date(expiresAt).toISOString() };
  }

  /** Releases the permit `allocId` holds, if any (idempotent). */
  release(allocId: string): void {
    this.drop(allocId);
  }

  private drop(allocId: string): void {
    const key = this.scopeOf.get(allocId);
    if (key === undefined) return;
    this.scopeOf.delete(allocId);
    const holders = this.scopes.get(key);
    holders?.delete(allocId);
    if (holders?.size === 0) this.scopes.delete(key);
  }
}
