/**
 * Taking up a leased secret a previous run of the client agent kept (persisted.ts) instead of
 * reading or writing it again (issue 27 scope 6; reference/integration.md §8: a restarted client
 * must not re-issue a dynamic credential whose lease is still valid):
 * - a kept lease that has ended, or ends within {@link END_MARGIN_MS}, is forgotten: the secret
 *   is fetched anew;
 * - a renewable one is renewed first (`sys/leases/renew`, or `auth/token/renew-self` with the
 *   token for an auth lease: lease.ts); renewed, its kept response is the value again; refused
 *   for good (403, 400: expired, revoked, not renewable) it is forgotten and fetched anew; with
 *   no answer (refused connection, 5xx) the kept response is the value and the lease loop
 *   retries the renewal while the lease lasts (lease.ts);
 * - a non-renewable one is the value until it nears its end, then read again (lease.ts).
 *
 * @module
 */
import type { SecretResponse } from '../../../template/dependency.js';
import type { Lease, Renew } from './lease.js';
import type { PersistedSecrets } from './persisted.js';
import { sourceError } from './retry.js';
import type { WatchContext } from './shared.js';

/** A kept lease ending sooner than this is not taken up, ms: there is no time left to use it. */
const END_MARGIN_MS = 5_000;

/** A kept response taken up: the value to hand over and the lease (what is left of it) to keep. */
export interface Resumed {
  readonly response: SecretResponse;
  readonly lease: Lease;
}

/** The kept response of `ctx.dependency` if it may be used again (module doc); undefined: fetch anew. Never throws. */
export async function resumeKept(ctx: WatchContext, store: PersistedSecrets, renew: Renew): Promise<Resumed | undefined> {
  const kept = store.get(ctx.dependency);
  if (!kept) return undefined;
  const leftMs = kept.obtainedMs + kept.lease.durationS * 1000 - Date.now();
  if (leftMs <= END_MARGIN_MS) {
    store.delete(ctx.dependency);
    return undefined;
  }
  const left: Lease = { ...kept.lease, durationS: leftMs / 1000 };
  if (!kept.lease.renewable) return { response: kept.response, lease: left };
  try {
    const durationS = await renew(kept.lease);
    if (!(durationS > 0)) throw Object.assign(new Error('the renewal granted no time'), { status: 400 });
    // The loop keeps it in `store` with this new end.
    return { response: kept.response, lease: { ...kept.lease, durationS } };
  } catch (err) {
    if (ctx.signal.aborted) return undefined;
    if (sourceError(ctx.dependency, err).failure === 'unavailable') return { response: kept.response, lease: left };
    store.delete(ctx.dependency);
    return undefined;
  }
}
