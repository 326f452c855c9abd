/**
 * The restart policy of a task group applied to one task's exits (the reference's client
 * restart tracker; reference/sched-workloads.md "Client agent": within `Interval`, up to
 * `Attempts` restarts spaced by `Delay`; then `Mode = "fail"` fails the task, `"delay"`
 * waits for the interval to end). Pure: the caller supplies the clock.
 *
 * @module
 */
import type { RestartPolicy } from '../jobs/types.js';
import { formatGoDuration } from '../../../kernel/util/go-duration.js';

/** Reasons as the reference words them (`client/allocrunner/taskrunner/restarts`). */
const REASON = {
  withinPolicy: 'Restart within policy',
  noRestarts: 'Policy allows no restarts',
  success: 'Restart unnecessary as task terminated successfully',
  delay: 'Exceeded allowed attempts, applying a delay',
} as const;

/** What to do after an exit. */
export type RestartDecision =
  | { readonly restart: true; readonly delayMs: number; readonly reason: string }
  | { readonly restart: false; readonly failed: boolean; readonly reason: string };

/** Counts restarts within the policy's interval. */
export class RestartTracker {
  private count = 0;
  private windowStart: number;

  /** @param nowMs epoch ms when the task first started */
  constructor(
    private readonly policy: RestartPolicy,
    private readonly batch: boolean,
    nowMs: number,
  ) {
    this.windowStart = nowMs;
  }

  /**
   * The decision for an exit with `exitCode` at `nowMs` (a signal death counts as a failure).
   * Batch tasks that exit 0 are done; everything else restarts while the policy allows.
   */
  onExit(exitCode: number, nowMs: number): RestartDecision {
    if (this.batch && exitCode === 0) return { restart: false, failed: false, reason: REASON.success };
    const p = this.policy;
    const intervalMs = p.Interval / 1e6;
    if (nowMs - this.windowStart > intervalMs) {
      this.windowStart = nowMs;
      this.count = 0;
    }
    this.count += 1;
    if (this.count <= p.Attempts) return { restart: true, delayMs: p.Delay / 1e6, reason: REASON.withinPolicy };
    if (p.Mode === 'delay') {
      const wait = Math.max(0, this.windowStart + intervalMs - nowMs);
      this.windowStart += intervalMs;
      this.count = 0;
      return { restart: true, delayMs: Math.max(wait, p.Delay / 1e6), reason: REASON.delay };
    }
    if (p.Attempts === 0) return { restart: false, failed: true, reason: REASON.noRestarts };
    return { restart: false, failed: true, reason: `Exceeded allowed attempts ${p.Attempts} in interval ${formatGoDuration(p.Interval)} and mode is "fail"` };
  }
}
