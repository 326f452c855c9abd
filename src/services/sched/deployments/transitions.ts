/**
 * What happens to a deployment, inside one transaction (the reference's
 * `nomad/deploymentwatcher` and its state store updates; contract 29 "Server"): the checks the
 * leader's watcher makes after each change of its allocations (watcher.ts) and the writes of
 * the deployment routes (operations.ts) share these.
 *
 * - {@link checkIn}: counts from the allocations; an unhealthy allocation fails it; a newly
 *   healthy one moves its groups' `RequireProgressBy` to now + `ProgressDeadline` and makes a
 *   `deployment-watcher` evaluation (the next batch rolls); every canary healthy in groups
 *   that all `AutoPromote` promotes it; every group at `DesiredTotal` healthy (and promoted)
 *   makes it `successful` and its job version `Stable`.
 * - {@link failIn}: `failed` with the reason; with `AutoRevert` in a group, the job's latest
 *   stable version older than the deployment's is registered again (`… - rolling back to job
 *   version N`) when the job still is at the deployment's version; otherwise a
 *   `deployment-watcher` evaluation (canaries stop, nothing more rolls).
 * - {@link promoteIn}: groups promoted, their canaries' `Canary` flag cleared (the client then
 *   registers normal tags), an evaluation (the rest rolls).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { schedBadRequest } from '../http.js';
import { jobKey, newEvaluation, type Evaluation, type Job } from '../jobs/types.js';
import { putStability } from '../jobs/versions.js';
import { storeJob } from '../jobs/write.js';
import type { StoredJob } from '../jobs/render.js';
import type { ExistingAlloc } from '../scheduler/model.js';
import { T } from '../state.js';
import {
  DEPLOYMENT_STATUS,
  DEPLOYMENT_TEXT,
  deploymentActive,
  deploymentAllocs,
  noRollbackText,
  progressBy,
  recount,
  rollbackText,
  runningText,
  type Deployment,
  type DeploymentGroupState,
  type StoredDeployment,
} from './doc.js';

/** `TriggeredBy` of the evaluations a deployment makes (the reference's `EvalTriggerDeploymentWatcher`). */
const WATCHER_TRIGGER = 'deployment-watcher';

/** What a deployment write did (the reference's `DeploymentUpdateResponse` without `Index`). */
export interface TransitionResult {
  readonly evaluation?: Evaluation & Indexed;
  readonly revertedVersion?: number;
}

/** A pending `deployment-watcher` evaluation of `d`'s job (as stored, else from `d`). */
export function watcherEval(tx: Txn, d: Deployment, nowNs: number): Evaluation & Indexed {
  const job = tx.get<Job>(T.jobs, jobKey(d.Namespace, d.JobID));
  const id = randomUUID();
  const e = newEvaluation(
    id,
    job ?? { ID: d.JobID, Namespace: d.Namespace, Type: 'service', Priority: d.EvalPriority, JobModifyIndex: d.JobModifyIndex },
    { triggeredBy: WATCHER_TRIGGER, nowNs },
    { DeploymentID: d.ID },
  );
  return tx.put<Evaluation>(T.evals, id, e);
}

/** Writes `d` (at `nowNs`) and returns it stored. */
const save = (tx: Txn, d: Deployment, nowNs: number): StoredDeployment => tx.put<Deployment>(T.deployments, d.ID, { ...d, ModifyTime: nowNs });

/** The latest stable version of job `d.JobID` older than `d.JobVersion`, if kept. */
function latestStable(tx: Txn, d: Deployment): Job | undefined {
  let best: Job | undefined;
  for (const v of tx.listPrefix<Job>(T.jobVersions, `${d.Namespace}/${d.JobID}/`)) {
    if (v.ID !== d.JobID || !v.Stable || v.Version >= d.JobVersion) continue;
    if (!best || v.Version > best.Version) best = v;
  }
  return best;
}

/** Fails `d` with `why` in `tx` (see the module doc). */
export function failIn(tx: Txn, d: Deployment, why: string, nowNs: number): TransitionResult {
  const revert = Object.values(d.TaskGroups).some((g) => g.AutoRevert);
  const job = tx.get<StoredJob>(T.jobs, jobKey(d.Namespace, d.JobID));
  if (revert && job && job.Version === d.JobVersion && !job.Stop) {
    const stable = latestStable(tx, d);
    if (stable) {
      save(tx, { ...d, Status: DEPLOYMENT_STATUS.failed, StatusDescription: rollbackText(why, stable.Version) }, nowNs);
      const stored = storeJob(tx, { ...stable, Stop: false }, job, { triggeredBy: 'job-register', nowNs });
      return { evaluation: stored.evaluation, revertedVersion: stable.Version };
    }
    save(tx, { ...d, Status: DEPLOYMENT_STATUS.failed, StatusDescription: noRollbackText(why) }, nowNs);
    return { evaluation: watcherEval(tx, d, nowNs) };
  }
  save(tx, { ...d, Status: DEPLOYMENT_STATUS.failed, StatusDescription: why }, nowNs);
  return { evaluation: watcherEval(tx, d, nowNs) };
}

/** Healthy canaries of group `name` of `d` among `allocs`. */
const healthyCanaries = (d: Deployment, name: string, allocs: readonly ExistingAlloc[]): number => {
  const placed = new Set(d.TaskGroups[name]?.PlacedCanaries ?? []);
  return allocs.filter((a) => placed.has(a.ID) && a.DeploymentStatus?.Healthy === true).length;
};

/**
 * Promotes groups `groups` of `d` (all with canaries when undefined) in `tx`. @throws 400
 * `no canaries to promote`, `deployment has no task group "<g>"`, `Task group "<g>" has
 * <h>/<n> healthy allocations` (the reference's texts).
 */
export function promoteIn(tx: Txn, d: Deployment, groups: readonly string[] | undefined, nowNs: number): TransitionResult {
  const allocs = deploymentAllocs(tx, d);
  const counted = recount(d, allocs);
  for (const g of groups ?? []) if (!counted.TaskGroups[g]) throw schedBadRequest(`deployment has no task group "${g}"`);
  const names = (groups ?? Object.keys(counted.TaskGroups)).filter((n) => counted.TaskGroups[n]!.DesiredCanaries > 0 && !counted.TaskGroups[n]!.Promoted);
  if (names.length === 0) throw schedBadRequest('no canaries to promote');
  for (const n of names) {
    const g = counted.TaskGroups[n]!;
    const healthy = healthyCanaries(counted, n, allocs);
    if (healthy < g.DesiredCanaries) throw schedBadRequest(`Task group "${n}" has ${healthy}/${g.DesiredCanaries} healthy allocations`);
  }
  const promoted: Record<string, DeploymentGroupState> = { ...counted.TaskGroups };
  for (const n of names) promoted[n] = { ...promoted[n]!, Promoted: true };
  for (const a of allocs) {
    if (!names.includes(a.TaskGroup) || !a.DeploymentStatus?.Canary) continue;
    tx.put<ExistingAlloc>(T.allocs, a.ID, { ...a, DeploymentStatus: { ...a.DeploymentStatus, Canary: false }, ModifyTime: nowNs });
  }
  const next = { ...counted, TaskGroups: promoted };
  save(tx, d.Status === DEPLOYMENT_STATUS.running ? { ...next, StatusDescription: runningText(promoted) } : next, nowNs);
  return { evaluation: watcherEval(tx, next, nowNs) };
}

/** What {@link checkIn} changed (the watcher types its write by it). */
export type CheckOutcome = 'none' | 'health' | 'promotion' | 'status';

/** Is every group of `d` done: its healthy allocations at `DesiredTotal` and its canaries promoted? */
const complete = (d: Deployment): boolean =>
  Object.values(d.TaskGroups).every((g) => g.HealthyAllocs >= g.DesiredTotal && (g.DesiredCanaries === 0 || g.Promoted));

/**
 * Brings deployment `id` up to date with its allocations in `tx` (see the module doc).
 * Returns what changed: nothing, counts (`health`), a promotion, or its status.
 */
export function checkIn(tx: Txn, id: string, nowNs: number): CheckOutcome {
  const d = tx.get<StoredDeployment>(T.deployments, id);
  if (!d || !deploymentActive(d)) return 'none';
  const allocs = deploymentAllocs(tx, d);
  const counted = recount(d, allocs);
  if (Object.values(counted.TaskGroups).some((g) => g.UnhealthyAllocs > 0)) {
    failIn(tx, counted, DEPLOYMENT_TEXT.failedAllocations, nowNs);
    return 'status';
  }
  if (d.Status !== DEPLOYMENT_STATUS.running) {
    if (JSON.stringify(counted) === JSON.stringify(d)) return 'none';
    save(tx, counted, nowNs);
    return 'health';
  }
  const groups: Record<string, DeploymentGroupState> = { ...counted.TaskGroups };
  let progressed = false;
  for (const [name, g] of Object.entries(groups)) {
    if (g.HealthyAllocs > (d.TaskGroups[name]?.HealthyAllocs ?? 0)) {
      progressed = true;
      groups[name] = { ...g, RequireProgressBy: g.ProgressDeadline > 0 ? progressBy(nowNs, g.ProgressDeadline) : g.RequireProgressBy };
    }
  }
  const next = { ...counted, TaskGroups: groups };
  const waiting = Object.entries(groups).filter(([, g]) => g.DesiredCanaries > 0 && !g.Promoted);
  if (waiting.length > 0 && waiting.every(([n, g]) => g.AutoPromote && healthyCanaries(next, n, allocs) >= g.DesiredCanaries)) {
    promoteIn(tx, next, undefined, nowNs);
    return 'promotion';
  }
  if (complete(next)) {
    save(tx, { ...next, Status: DEPLOYMENT_STATUS.successful, StatusDescription: DEPLOYMENT_TEXT.successful }, nowNs);
    putStability(tx, { namespace: d.Namespace, id: d.JobID, version: d.JobVersion }, true);
    return 'status';
  }
  if (JSON.stringify(next) === JSON.stringify(d)) return 'none';
  save(tx, next, nowNs);
  // A newly healthy allocation frees a place in MaxParallel: the scheduler places the next batch.
  if (progressed) watcherEval(tx, next, nowNs);
  return 'health';
}

/** Is a group of running deployment `d` past its `RequireProgressBy` at `nowMs` without being done? */
export function pastDeadline(d: Deployment, nowMs: number): boolean {
  if (d.Status !== DEPLOYMENT_STATUS.running) return false;
  return Object.values(d.TaskGroups).some((g) => {
    if (g.ProgressDeadline <= 0 || g.RequireProgressBy.startsWith('0001-')) return false;
    const done = g.HealthyAllocs >= g.DesiredTotal && (g.DesiredCanaries === 0 || g.Promoted);
    return !done && Date.parse(g.RequireProgressBy) <= nowMs;
  });
}
