/**
 * `min_wrapping_ttl` / `max_wrapping_ttl` of a policy rule (the reference's `policy.go`
 * parsing and `acl.go` `AllowOperation`): a rule that sets either refuses a request that
 * asks for no response wrapping (`X-Secrets-Wrap-TTL`) or for a wrap TTL outside the
 * bounds, as a plain permission denial (403), like the reference.
 *
 * ```hcl
 * path "secret/data/handoff" {
 *   capabilities     = ["read"]
 *   min_wrapping_ttl = "1m"
 *   max_wrapping_ttl = "1h"
 * }
 * ```
 *
 * @module
 */
import { parseDuration } from '../../../kernel/util/duration.js';

/** Wrap TTL bounds in seconds; 0 = no bound on that side. */
export interface WrappingBounds {
  readonly min: number;
  readonly max: number;
}

/** The keys of a `path` block this module parses. */
export const WRAPPING_KEYS: readonly string[] = ['min_wrapping_ttl', 'max_wrapping_ttl'];

/** One bound in seconds (a duration string or seconds); 0 when absent. */
function bound(b: Record<string, unknown>, field: string): number {
  if (b[field] === undefined) return 0;
  let s: number;
  try {
    s = parseDuration(b[field], field);
  } catch (err) {
    throw new Error(`error parsing ${field}: ${(err as Error).message}`);
  }
  if (s < 0) throw new Error(`error parsing ${field}: must not be negative`);
  return s;
}

/**
 * Reads the bounds of a `path` block body; undefined when it sets neither.
 *
 * @throws {Error} naming the field (`error parsing min_wrapping_ttl: …`), or
 *   `max_wrapping_ttl cannot be less than min_wrapping_ttl` (the reference's text).
 */
export function parseWrappingBounds(b: Record<string, unknown>): WrappingBounds | undefined {
  const min = bound(b, 'min_wrapping_ttl');
  const max = bound(b, 'max_wrapping_ttl');
  if (min && max && max < min) throw new Error('max_wrapping_ttl cannot be less than min_wrapping_ttl');
  return min || max ? { min, max } : undefined;
}

/**
 * Bounds of the same pattern in several policies, merged as the reference's `NewACL`:
 * the lowest minimum and the highest maximum.
 */
export function mergeWrappingBounds(a: WrappingBounds | undefined, b: WrappingBounds | undefined): WrappingBounds | undefined {
  if (!a || !b) return a ?? b;
  const min = a.min && b.min ? Math.min(a.min, b.min) : a.min || b.min;
  return { min, max: Math.max(a.max, b.max) };
}

/**
 * Whether a request with wrap TTL `ttlS` (seconds; `null` = not wrapped) satisfies
 * `bounds`. A merged minimum above the maximum admits nothing (the reference).
 */
export function wrappingPermitted(bounds: WrappingBounds, ttlS: number | null): boolean {
  if (bounds.max && (ttlS === null || ttlS > bounds.max)) return false;
  if (bounds.min && (ttlS === null || ttlS < bounds.min)) return false;
  return !(bounds.min && bounds.max && bounds.max < bounds.min);
}
