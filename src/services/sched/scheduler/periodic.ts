/**
 * The periodic dispatcher on the leader (the reference's `PeriodicDispatch`): a timer per
 * enabled periodic job for its next launch (jobs/periodic.ts `nextLaunch`), set again after
 * each launch and whenever the job changes (the state's change feed). Only the leader runs it
 * (the scheduler starts it when it leads and stops it on stepping down); launches are
 * idempotent writes (jobs/periodic-launch.ts), so a failover never launches one time twice.
 * When it starts, a job whose recorded launch is followed by a launch time already past gets
 * that one launch at once (the reference launches one missed run, not every one).
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { ChangeBatch } from '../../../kernel/store/index.js';
import type { SchedDeps } from '../service-deps.js';
import { nextLaunch } from '../jobs/periodic.js';
import { launchPeriodic, type PeriodicLaunchDoc } from '../jobs/periodic-launch.js';
import { jobKey, type Job } from '../jobs/types.js';
import { T } from '../state.js';

/** The longest a Node timer waits; a later launch is reached through intermediate wake-ups. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** See the module doc. */
export class PeriodicDispatcher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private unsubscribe: (() => void) | undefined;
  private running = false;
  /** Launches in flight, awaited by {@link stop}. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: SchedDeps,
    private readonly log: Logger,
  ) {}

  /** Starts: every periodic job gets its timer, and its one missed launch if it has one. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.deps.state.subscribe((b) => this.onBatch(b));
    for (const job of this.deps.state.list<Job>(T.jobs)) if (job.Periodic) this.track(job, true);
  }

  /** Stops: no timer fires any more; waits for launches in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inflight]);
  }

  private onBatch(b: ChangeBatch): void {
    for (const c of b.changes) {
      if (c.table !== T.jobs) continue;
      const job = c.doc as unknown as Job | undefined;
      if (job) this.track(job, false);
      else this.untrack(c.id);
    }
  }

  private untrack(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  /** Sets `job`'s timer for its next launch (none when not periodic, disabled or stopped); `catchUp`: first its missed launch. */
  private track(job: Job, catchUp: boolean): void {
    const key = jobKey(job.Namespace, job.ID);
    this.untrack(key);
    if (!this.running || !job.Periodic?.Enabled || job.Stop) return;
    const now = this.deps.now();
    if (catchUp) {
      const last = this.deps.state.get<PeriodicLaunchDoc>(T.periodicLaunches, key);
      const missed = last && nextLaunch(job.Periodic, last.Launch / 1e6);
      if (missed !== undefined && missed <= now) this.launch(job, missed);
    }
    const next = nextLaunch(job.Periodic, now);
    if (next === undefined) return;
    const wait = next - now;
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        if (wait > MAX_TIMER_MS) return this.retrack(key);
        this.launch(job, next);
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Launches `job` at `launchMs`, then sets its next timer from the job as stored. */
  private launch(job: Job, launchMs: number): void {
    const p = launchPeriodic(this.deps, { namespace: job.Namespace, id: job.ID }, { launchMs, force: false, log: this.log })
      .catch((err: unknown) => this.log.warn({ err, job: job.ID }, 'scheduler: a periodic launch failed; the next launch time is tried'))
      .finally(() => {
        this.inflight.delete(p);
        this.retrack(jobKey(job.Namespace, job.ID));
      });
    this.inflight.add(p);
  }

  private retrack(key: string): void {
    if (this.timers.has(key)) return;
    const job = this.deps.state.get<Job>(T.jobs, key);
    if (job) this.track(job, false);
  }
}
