/**
 * An allocation's health in its deployment, decided by the client that runs it (issue 29
 * scope 1, the contract's "Client" part; the reference's alloc health watcher hook and its
 * `allochealth.Tracker`):
 *
 * - tracked for an allocation with a `DeploymentID` whose group's update strategy
 *   (jobs/update.ts `groupUpdate` of the allocation's own job) is not `manual`, while its
 *   health is undecided (`DeploymentStatus.Healthy` null: a client that restarts does not
 *   decide again) — {@link healthStrategy};
 * - healthy once every task is running and, with `health_check = "checks"`, every check of
 *   the allocation's services is registered and passing (a check's `on_update`:
 *   `ignore_warnings` counts a warning as passing, `ignore` leaves the check out), without
 *   a break for `min_healthy_time`: a task that stops or restarts, or a check that stops
 *   passing, starts that time again;
 * - unhealthy when a task is dead (failed, or killed for a failed sibling), or when
 *   `healthy_deadline` (counted from the start of tracking) passes first; each task that
 *   made it unhealthy (the failed task; at the deadline, each task whose state or checks
 *   were not healthy) is named with the reference's reason (the `Alloc Unhealthy` task
 *   event's text; none when all was healthy but not yet for `min_healthy_time`, as the
 *   reference);
 * - decided once: `decided` is called a single time, after which the tracker does nothing.
 *
 * Times are epoch ms from `now`; the strategy's durations are ns (jobs/types.ts).
 *
 * @module
 */
import { formatGoDuration } from '../../../kernel/util/go-duration.js';
import type { MeshCheckStatus } from '../../../sdk/index.js';
import type { AllocDeploymentStatus, Job, TaskState, UpdateStrategy } from '../jobs/types.js';
import { groupUpdate } from '../jobs/update.js';

/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days); longer deadlines wait that long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The allocation fields {@link healthStrategy} reads. */
export interface HealthTracked {
  readonly TaskGroup: string;
  readonly Job: Pick<Job, 'Type' | 'Update' | 'TaskGroups'> | null;
  /** `''` or absent: not placed by a deployment. */
  readonly DeploymentID?: string;
  readonly DeploymentStatus?: Pick<AllocDeploymentStatus, 'Healthy'> | null;
}

/**
 * The update strategy the client tracks the health of allocation `a` by: its group's
 * (`groupUpdate`) when it has a `DeploymentID`, a strategy that is not `manual` and no
 * health decided yet; null otherwise (nothing to track).
 */
export function healthStrategy(a: HealthTracked): UpdateStrategy | null {
  if (!a.DeploymentID || !a.Job) return null;
  if (a.DeploymentStatus?.Healthy === true || a.DeploymentStatus?.Healthy === false) return null;
  const tg = a.Job.TaskGroups.find((g) => g.Name === a.TaskGroup);
  const u = tg ? groupUpdate(a.Job, tg) : null;
  return u && u.HealthCheck !== 'manual' ? u : null;
}

/** One check of the allocation's services as the health sees it. */
export interface CheckHealth {
  /** The service's name (as registered; as written when it is not registered). */
  readonly service: string;
  /** The task whose service it is; undefined: a group service (it counts for every task). */
  readonly task: string | undefined;
  /** Its status in the discovery agent; undefined: not registered, or not run yet. */
  readonly status: MeshCheckStatus | undefined;
  /** The check's `on_update`: `require_healthy`, `ignore_warnings` or `ignore`. */
  readonly onUpdate: string;
}

/** What the tracker is shown at each change. */
export interface HealthView {
  /** Each task's state, by task name. */
  readonly tasks: Readonly<Record<string, Pick<TaskState, 'State' | 'Failed' | 'Restarts'>>>;
  /** Every check the allocation's services should have (read with `health_check = "checks"` only). */
  readonly checks: readonly CheckHealth[];
}

/** The decision, told once. */
export interface HealthDecision {
  readonly healthy: boolean;
  /** Epoch ms of the decision. */
  readonly atMs: number;
  /** Unhealthy: task name → why (the reference's texts); empty when healthy. */
  readonly reasons: Readonly<Record<string, string>>;
}

/** What a tracker is given. */
export interface DeploymentHealthOptions {
  readonly strategy: Pick<UpdateStrategy, 'HealthCheck' | 'MinHealthyTime' | 'HealthyDeadline'>;
  /** Epoch ms. */
  readonly now: () => number;
  readonly decided: (d: HealthDecision) => void;
}

/** Does check `c` count as passing for the deployment (its `on_update`)? */
function checkPasses(c: CheckHealth): boolean {
  return c.onUpdate === 'ignore' || c.status === 'passing' || (c.status === 'warning' && c.onUpdate === 'ignore_warnings');
}

/** One allocation's health tracker; see the module doc. */
export class DeploymentHealth {
  private done = false;
  private view: HealthView = { tasks: {}, checks: [] };
  /** Since when (epoch ms) every task runs and every check passes; undefined: not now. */
  private healthySince: number | undefined;
  /** Since when each running task runs without a restart. */
  private readonly runningSince = new Map<string, { at: number; restarts: number }>();
  private minTimer: NodeJS.Timeout | undefined;
  private readonly deadlineTimer: NodeJS.Timeout;

  constructor(private readonly o: DeploymentHealthOptions) {
    this.deadlineTimer = setTimeout(() => this.decide(false), Math.min(MAX_TIMER_MS, o.strategy.HealthyDeadline / 1e6));
  }

  /** Whether the health is decided (or tracking stopped). */
  get finished(): boolean {
    return this.done;
  }

  /** The allocation as it is now: decides unhealthy for a dead task, (re)starts or breaks the `min_healthy_time` run. */
  observe(view: HealthView): void {
    if (this.done) return;
    this.view = view;
    const now = this.o.now();
    const states = Object.entries(view.tasks);
    let restarted = false;
    for (const [name, s] of states) {
      const since = this.runningSince.get(name);
      if (s.State !== 'running') this.runningSince.delete(name);
      else if (!since || since.restarts !== s.Restarts) {
        this.runningSince.set(name, { at: now, restarts: s.Restarts });
        restarted ||= since !== undefined;
      }
    }
    if (states.some(([, s]) => s.State === 'dead')) return this.decide(false, 'task');
    const useChecks = this.o.strategy.HealthCheck === 'checks';
    const ok = states.length > 0 && states.every(([, s]) => s.State === 'running') && (!useChecks || view.checks.every(checkPasses));
    if (!ok || restarted) this.breakRun();
    if (ok && this.healthySince === undefined) {
      this.healthySince = now;
      this.minTimer = setTimeout(() => this.decide(true), this.o.strategy.MinHealthyTime / 1e6);
    }
  }

  /** Stops tracking without a decision (the allocation stops, or the client does). */
  stop(): void {
    this.done = true;
    clearTimeout(this.deadlineTimer);
    clearTimeout(this.minTimer);
  }

  private breakRun(): void {
    this.healthySince = undefined;
    clearTimeout(this.minTimer);
    this.minTimer = undefined;
  }

  /** Decides (once): healthy, or unhealthy for a dead task (`task`) or the deadline. */
  private decide(healthy: boolean, why: 'task' | 'deadline' = 'deadline'): void {
    if (this.done) return;
    this.stop();
    const atMs = this.o.now();
    let reasons: Record<string, string> = {};
    if (!healthy && why === 'task')
      reasons = Object.fromEntries(Object.entries(this.view.tasks).flatMap(([task, s]) => (s.Failed ? [[task, 'Unhealthy because of failed task']] : [])));
    else if (!healthy) reasons = this.deadlineReasons(atMs);
    this.o.decided({ healthy, atMs, reasons });
  }

  /**
   * Why each task kept the allocation from being healthy by the deadline, as the reference's
   * tracker says it: its task state first, then the checks of its services and of the group's.
   */
  private deadlineReasons(atMs: number): Record<string, string> {
    const { MinHealthyTime, HealthCheck } = this.o.strategy;
    const out: Record<string, string> = {};
    for (const [task, s] of Object.entries(this.view.tasks)) {
      const since = this.runningSince.get(task);
      if (s.Failed) out[task] = 'Unhealthy because of failed task';
      else if (s.State !== 'running') out[task] = 'Task not running by deadline';
      else if (since && since.at + MinHealthyTime / 1e6 > atMs)
        out[task] = `Task not running for min_healthy_time of ${formatGoDuration(MinHealthyTime)} by deadline`;
      if (out[task] || HealthCheck !== 'checks') continue;
      const mine = this.view.checks.filter((c) => c.onUpdate !== 'ignore' && (c.task === undefined || c.task === task));
      const unregistered = mine.filter((c) => c.status === undefined).length;
      const failing = [...new Set(mine.filter((c) => c.status !== undefined && !checkPasses(c)).map((c) => c.service))];
      if (failing.length > 0) out[task] = `Services not healthy by deadline: ${failing.join(', ')}`;
      else if (unregistered > 0) out[task] = `Only ${mine.length - unregistered} out of ${mine.length} checks registered and passing`;
    }
    return out;
  }
}
