/**
 * Go `time.Duration` on the scheduler's wire (reference/sched.md §1.1, §2.2): auth methods
 * carry durations as strings like `"1h0m0s"` (`""` for 0) and accept a string or a number
 * of nanoseconds. Parsing and formatting are the kernel's (kernel/util/go-duration.ts).
 *
 * @module
 */
import { formatGoDuration } from '../../../kernel/util/go-duration.js';

/** One second in nanoseconds. */
export const SECOND_NS = 1e9;
/** One minute in nanoseconds. */
export const MINUTE_NS = 60e9;
/** One hour in nanoseconds. */
export const HOUR_NS = 3600e9;

/** The wire form of an auth-method duration field: `""` for 0, else {@link formatGoDuration} (sched.md §2.2). */
export function wireDuration(ns: number): string {
  return ns === 0 ? '' : formatGoDuration(ns);
}
