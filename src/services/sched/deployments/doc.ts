/**
 * A deployment document (the reference's `structs.Deployment` and `DeploymentState`;
 * contract 29 "Server"): stored in `T.deployments` keyed by its ID, one per job version of a
 * service job whose groups have an update strategy. Its per-group counts are recomputed from
 * the allocations that carry its ID ({@link recount}) whenever a write touches them, so they
 * never drift from what the allocations say.
 *
 * @module
 */
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { formatTime } from '../../../kernel/util/duration.js';
import type { Job, TaskGroup, UpdateStrategy } from '../jobs/types.js';
import { T } from '../state.js';
import type { ExistingAlloc } from '../scheduler/model.js';

/** Deployment statuses (the reference's `DeploymentStatus*`). */
export const DEPLOYMENT_STATUS = {
  running: 'running',
  paused: 'paused',
  failed: 'failed',
  successful: 'successful',
  cancelled: 'cancelled',
} as const;

/** The reference's `DeploymentStatusDescription*` texts. */
export const DEPLOYMENT_TEXT = {
  running: 'Deployment is running',
  runningNeedsPromotion: 'Deployment is running but requires manual promotion',
  runningAutoPromotion: 'Deployment is running pending automatic promotion',
  paused: 'Deployment is paused',
  successful: 'Deployment completed successfully',
  stoppedJob: 'Cancelled because job is stopped',
  newerJob: 'Cancelled due to newer version of job',
  failedAllocations: 'Failed due to unhealthy allocations',
  progressDeadline: 'Failed due to progress deadline',
  failedByUser: 'Deployment marked as failed',
} as const;

/** The reference's description of a failure that auto-reverted to `version`. */
export const rollbackText = (why: string, version: number) => `${why} - rolling back to job version ${version}`;
/** The reference's description of a failure that found no stable version to revert to. */
export const noRollbackText = (why: string) => `${why} - no stable job version to auto revert to`;

/** Go's zero `time.Time` in JSON: no progress deadline runs. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** One task group's progress (the reference's `DeploymentState`); `ProgressDeadline` ns, `RequireProgressBy` RFC 3339. */
export interface DeploymentGroupState {
  readonly AutoRevert: boolean;
  readonly AutoPromote: boolean;
  readonly Promoted: boolean;
  readonly PlacedCanaries: readonly string[] | null;
  readonly DesiredCanaries: number;
  readonly DesiredTotal: number;
  readonly PlacedAllocs: number;
  readonly HealthyAllocs: number;
  readonly UnhealthyAllocs: number;
  readonly ProgressDeadline: number;
  readonly RequireProgressBy: string;
}

/** A deployment (the reference's `Deployment`); `CreateTime`/`ModifyTime` Unix ns. */
export interface Deployment {
  readonly ID: string;
  readonly Namespace: string;
  readonly JobID: string;
  readonly JobVersion: number;
  readonly JobModifyIndex: number;
  readonly JobSpecModifyIndex: number;
  readonly JobCreateIndex: number;
  readonly IsMultiregion: false;
  readonly Status: string;
  readonly StatusDescription: string;
  readonly EvalPriority: number;
  readonly TaskGroups: Readonly<Record<string, DeploymentGroupState>>;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** A stored deployment. */
export type StoredDeployment = Deployment & Indexed;

/** Is `d` still running or paused (the reference's `Deployment.Active`)? */
export const deploymentActive = (d: Pick<Deployment, 'Status'>): boolean => d.Status === DEPLOYMENT_STATUS.running || d.Status === DEPLOYMENT_STATUS.paused;

/** Is `d` for the version of `job` as stored now? */
export const forJobVersion = (d: Deployment, job: Pick<Job, 'Version' | 'JobModifyIndex' | 'CreateIndex'>): boolean =>
  d.JobVersion === job.Version && d.JobModifyIndex === job.JobModifyIndex && d.JobCreateIndex === job.CreateIndex;

/** A group's fresh state in a new deployment for strategy `u`. */
export function newGroupState(tg: TaskGroup, u: UpdateStrategy, desiredCanaries: number): DeploymentGroupState {
  return {
    AutoRevert: u.AutoRevert,
    AutoPromote: u.AutoPromote,
    Promoted: false,
    PlacedCanaries: null,
    DesiredCanaries: desiredCanaries,
    DesiredTotal: tg.Count,
    PlacedAllocs: 0,
    HealthyAllocs: 0,
    UnhealthyAllocs: 0,
    ProgressDeadline: u.ProgressDeadline,
    RequireProgressBy: ZERO_TIME,
  };
}

/** The running description of `d`: waiting for (manual or automatic) promotion, or plain running. */
export function runningText(groups: Deployment['TaskGroups']): string {
  const waiting = Object.values(groups).filter((g) => g.DesiredCanaries > 0 && !g.Promoted);
  if (waiting.length === 0) return DEPLOYMENT_TEXT.running;
  return waiting.every((g) => g.AutoPromote) ? DEPLOYMENT_TEXT.runningAutoPromotion : DEPLOYMENT_TEXT.runningNeedsPromotion;
}

/** The deployment `newId()` for the stored version of `job`, with `groups`, at `nowNs`. */
export function newDeployment(id: string, job: Job, groups: Record<string, DeploymentGroupState>, nowNs: number): Deployment {
  return {
    ID: id,
    Namespace: job.Namespace,
    JobID: job.ID,
    JobVersion: job.Version,
    JobModifyIndex: job.JobModifyIndex,
    JobSpecModifyIndex: job.JobModifyIndex,
    JobCreateIndex: job.CreateIndex,
    IsMultiregion: false,
    Status: DEPLOYMENT_STATUS.running,
    StatusDescription: runningText(groups),
    EvalPriority: job.Priority,
    TaskGroups: groups,
    CreateTime: nowNs,
    ModifyTime: nowNs,
  };
}

/** RFC 3339 of Unix ns `ns` + `deadlineNs` (the zero time when there is no deadline). */
export const progressBy = (nowNs: number, deadlineNs: number): string => (deadlineNs > 0 ? formatTime(new Date((nowNs + deadlineNs) / 1e6)) : ZERO_TIME);

/** The allocations of deployment `d` (every status). */
export function deploymentAllocs(tx: Pick<Txn, 'listBy'>, d: Pick<Deployment, 'ID' | 'Namespace' | 'JobID'>): ExistingAlloc[] {
  return tx.listBy<ExistingAlloc>(T.allocs, 'job', `${d.Namespace}/${d.JobID}`).filter((a) => a.DeploymentID === d.ID);
}

/**
 * `d` with each group's `PlacedAllocs`, `HealthyAllocs`, `UnhealthyAllocs` and
 * `PlacedCanaries` counted from `allocs` (its allocations): canaries stay listed once
 * promoted (their flag is cleared then).
 */
export function recount<D extends Deployment>(d: D, allocs: readonly ExistingAlloc[]): D {
  const groups: Record<string, DeploymentGroupState> = {};
  for (const [name, g] of Object.entries(d.TaskGroups)) {
    const mine = allocs.filter((a) => a.TaskGroup === name && a.DeploymentID === d.ID);
    const canaries = new Set(g.PlacedCanaries ?? []);
    for (const a of mine) if (a.DeploymentStatus?.Canary) canaries.add(a.ID);
    groups[name] = {
      ...g,
      PlacedCanaries: canaries.size > 0 ? [...canaries] : null,
      PlacedAllocs: mine.length,
      HealthyAllocs: mine.filter((a) => a.DeploymentStatus?.Healthy === true).length,
      UnhealthyAllocs: mine.filter((a) => a.DeploymentStatus?.Healthy === false).length,
    };
  }
  return { ...d, TaskGroups: groups };
}
