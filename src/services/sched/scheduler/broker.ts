/**
 * The evaluation broker (reference/sched-workloads.md "Evaluations and placement"; the
 * reference's `nomad/eval_broker.go`, in one process): pending evaluations offered to it
 * run on a small pool of workers, highest `Priority` first, then oldest; never two of one
 * job at once (the next waits until the running one ends); one with `WaitUntil` in the
 * future waits on a timer. The broker holds evaluation IDs only: a worker reads the
 * evaluation again when it runs it. Fed by the leader (leader.ts) from the state's change
 * feed, so nothing polls.
 *
 * @module
 */
import type { Evaluation } from '../jobs/types.js';

/** Options of {@link EvalBroker}. */
export interface EvalBrokerOptions {
  /** Evaluations run at once. */
  readonly workers: number;
  /** Runs one evaluation; its rejection is the runner's to report (the broker ignores it). */
  readonly run: (evalId: string) => Promise<void>;
  /** Clock in epoch ms. */
  readonly now: () => number;
}

interface Entry {
  readonly id: string;
  readonly job: string;
  readonly priority: number;
  readonly order: number;
}

/** See the module doc. */
export class EvalBroker {
  private readonly ready = new Map<string, Entry>();
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private readonly runningEvals = new Set<string>();
  /** Offered again while running (e.g. blocked by its own run, then unblocked): offered once more when that run ends. */
  private readonly again = new Map<string, Evaluation>();
  private readonly busyJobs = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private enabled = false;
  private seq = 0;

  constructor(private readonly o: EvalBrokerOptions) {}

  /** Starts taking evaluations (the leader's start). */
  start(): void {
    this.enabled = true;
  }

  /** Stops: forgets what waits and waits for the running evaluations to end. */
  async stop(): Promise<void> {
    this.enabled = false;
    this.ready.clear();
    this.again.clear();
    for (const t of this.delayed.values()) clearTimeout(t);
    this.delayed.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Evaluations waiting (ready or delayed), not counting those running. */
  get depth(): number {
    return this.ready.size + this.delayed.size;
  }

  /** Offers `e` as stored now: a pending one is queued (or timed for its `WaitUntil`), any other status withdraws it. */
  offer(e: Evaluation): void {
    if (!this.enabled) return;
    if (e.Status !== 'pending') {
      this.ready.delete(e.ID);
      this.again.delete(e.ID);
      this.clearDelay(e.ID);
      return;
    }
    if (this.runningEvals.has(e.ID)) {
      this.again.set(e.ID, e);
      return;
    }
    if (this.ready.has(e.ID) || this.delayed.has(e.ID)) return;
    const waitMs = e.WaitUntil ? e.WaitUntil / 1e6 - this.o.now() : 0;
    if (waitMs > 0) {
      const t = setTimeout(() => {
        this.delayed.delete(e.ID);
        if (this.enabled) this.queue(e);
      }, waitMs);
      t.unref();
      this.delayed.set(e.ID, t);
      return;
    }
    this.queue(e);
  }

  private clearDelay(id: string): void {
    const t = this.delayed.get(id);
    if (t) clearTimeout(t);
    this.delayed.delete(id);
  }

  private queue(e: Evaluation): void {
    this.ready.set(e.ID, { id: e.ID, job: `${e.Namespace}/${e.JobID}`, priority: e.Priority, order: this.seq++ });
    this.pump();
  }

  /** Starts the best ready evaluations whose jobs are idle, up to the worker count. */
  private pump(): void {
    while (this.enabled && this.runningEvals.size < this.o.workers) {
      let best: Entry | undefined;
      for (const e of this.ready.values()) {
        if (this.busyJobs.has(e.job)) continue;
        if (!best || e.priority > best.priority || (e.priority === best.priority && e.order < best.order)) best = e;
      }
      if (!best) return;
      const picked = best;
      this.ready.delete(picked.id);
      this.runningEvals.add(picked.id);
      this.busyJobs.add(picked.job);
      const run = this.o
        .run(picked.id)
        .catch(() => undefined)
        .finally(() => {
          this.runningEvals.delete(picked.id);
          this.busyJobs.delete(picked.job);
          this.inFlight.delete(run);
          const again = this.again.get(picked.id);
          this.again.delete(picked.id);
          if (again) this.offer(again);
          this.pump();
        });
      this.inFlight.add(run);
    }
  }
}
