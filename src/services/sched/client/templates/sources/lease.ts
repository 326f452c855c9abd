/**
 * Keeping a secret's lease (reference: consul-template's `vault.read` with the Vault API
 * client's lifetime watcher): a renewable lease is renewed after 2/3 of what is left plus a
 * third of a grace of 10–20 % of the lease (jitter, so the tasks of a client do not renew in
 * step) for as long as each renewal extends it; once what is left falls within the grace
 * (the lease reached its max TTL) or a renewal is refused for good (`lease is not
 * renewable`, `lease expired`, a 403), the secret is read again before the lease ends. A
 * renewal that fails for a transient reason (refused connection, 5xx) is retried with the
 * backoff while the lease lasts, and only then read again: a short outage does not
 * re-issue a dynamic credential (reference/integration.md §8.4). A lease that is not
 * renewable is read again after the same first pause.
 *
 * @module
 */
import type { SecretResponse } from '../../../template/dependency.js';
import { pause } from './retry.js';
import type { TemplateSourceSettings } from './settings.js';
import type { WatchContext } from './shared.js';

/** A lease to keep: a secret's (`sys/leases/renew`) or a token's (`auth/token/renew-self` with that token). */
export interface Lease {
  readonly kind: 'secret' | 'auth';
  /** The lease ID, or the token of an `auth` lease. */
  readonly id: string;
  readonly durationS: number;
  readonly renewable: boolean;
}

/** The lease of `r`: its `auth` block's when it has one with a TTL, else the secret's when it has an ID and a TTL. */
export function leaseOf(r: SecretResponse): Lease | undefined {
  const auth = r.auth as { client_token?: unknown; lease_duration?: unknown; renewable?: unknown } | null | undefined;
  if (auth && typeof auth.client_token === 'string' && typeof auth.lease_duration === 'number' && auth.lease_duration > 0) {
    return { kind: 'auth', id: auth.client_token, durationS: auth.lease_duration, renewable: auth.renewable === true };
  }
  if (r.lease_id && (r.lease_duration ?? 0) > 0) return { kind: 'secret', id: r.lease_id, durationS: r.lease_duration!, renewable: r.renewable === true };
  return undefined;
}

/** Renews `lease` once: the TTL granted, s. @throws the SDK's error. */
export type Renew = (lease: Lease) => Promise<number>;

/** A grace of 10–20 % of `leftMs` (the lifetime watcher's `calculateGrace`). */
const graceFor = (leftMs: number) => leftMs * (0.1 + Math.random() * 0.1);

/** Keeps `lease` (module doc); resolves when the secret is to be read again, or when the watch stops. */
export async function keepLease(ctx: WatchContext, lease: Lease, renew: Renew, settings: TemplateSourceSettings): Promise<void> {
  let expiresAt = Date.now() + lease.durationS * 1000;
  let priorMs = 0;
  let graceMs = 0;
  for (;;) {
    const leftMs = expiresAt - Date.now();
    if (leftMs > priorMs) graceMs = graceFor(leftMs);
    const sleepMs = (leftMs * 2) / 3 + graceMs / 3;
    if (!lease.renewable) return pause(sleepMs, ctx.signal);
    // Within the grace, or would be after the next pause: read again now (the lease is not being extended).
    if (leftMs <= graceMs || leftMs - sleepMs <= graceMs) return;
    priorMs = leftMs;
    await pause(sleepMs, ctx.signal);
    for (let failures = 1; ; failures++) {
      if (ctx.signal.aborted) return;
      try {
        expiresAt = Date.now() + (await renew(lease)) * 1000;
        break;
      } catch (err) {
        if (ctx.signal.aborted) return;
        const e = await ctx.failed(err, failures, settings.vaultRetry);
        if (e.failure !== 'unavailable' || Date.now() >= expiresAt - graceMs) return;
      }
    }
  }
}
