/**
 * The TTL a lease is granted at creation and at each renewal: the reference's
 * `framework.CalculateTTL` without periods (sdk/framework/lease.go).
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { formatDuration } from '../../../kernel/util/duration.js';

/** Input of {@link grantedTtl}; every duration in seconds, times in epoch ms. */
export interface TtlInput {
  /** What the caller asked for (`increment`); 0 = none. */
  readonly incrementS: number;
  /** What the engine said (the secret's `ttl`); 0 = none. */
  readonly engineTtlS: number;
  /** The mount's default TTL (or the system's). */
  readonly defaultTtlS: number;
  /** The mount's max TTL (or the system's): the lease never lives past `startMs` + this. */
  readonly maxTtlS: number;
  /** When the lease was issued (now, for a new one). */
  readonly startMs: number;
  readonly nowMs: number;
}

/**
 * The TTL to grant, seconds, and the reference's warning when the max TTL capped it
 * (`TTL of "…" exceeded the effective max_ttl of "…"; TTL value is capped accordingly`).
 * Error (400): the lease is already at its max TTL (`past the max TTL, cannot renew`).
 */
export function grantedTtl(i: TtlInput): { ttlS: number; warnings: string[] } {
  const wanted = i.incrementS > 0 ? i.incrementS : i.engineTtlS > 0 ? i.engineTtlS : i.defaultTtlS;
  const maxValidS = Math.floor((i.startMs + i.maxTtlS * 1000 - i.nowMs) / 1000);
  if (maxValidS <= 0) throw badRequest('past the max TTL, cannot renew');
  if (wanted <= maxValidS) return { ttlS: wanted, warnings: [] };
  return {
    ttlS: maxValidS,
    warnings: [`TTL of "${formatDuration(wanted)}" exceeded the effective max_ttl of "${formatDuration(maxValidS)}"; TTL value is capped accordingly`],
  };
}
