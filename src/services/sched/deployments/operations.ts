/**
 * The deployment writes of the API (the reference's `Deployment.Promote`, `.Fail`, `.Pause`,
 * `.SetAllocHealth` endpoints and their watcher operations), each one transaction:
 *
 * ```text
 * promote            DeploymentPromotion     groups promoted, canaries' flag cleared, an evaluation
 * fail               DeploymentStatusUpdate  failed ("Deployment marked as failed"), auto-revert
 * pause / resume     DeploymentStatusUpdate  paused ("Deployment is paused") / running, deadlines
 *                                            restarted, an evaluation
 * allocation-health  DeploymentAllocHealth   the allocations' health set by hand, counts
 * ```
 *
 * A terminal deployment refuses each with the reference's texts (`can't promote terminal
 * deployment`, …). Each answers the reference's `DeploymentUpdateResponse`.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { schedBadRequest, schedNotFound } from '../http.js';
import type { ExistingAlloc } from '../scheduler/model.js';
import type { SchedDeps } from '../service-deps.js';
import { LABEL, T } from '../state.js';
import { DEPLOYMENT_STATUS, DEPLOYMENT_TEXT, deploymentActive, deploymentAllocs, progressBy, recount, runningText, type StoredDeployment } from './doc.js';
import { failIn, promoteIn, watcherEval, type TransitionResult } from './transitions.js';

/** The reference's `DeploymentUpdateResponse`. */
export interface DeploymentUpdateResponse {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly DeploymentModifyIndex: number;
  /** The job version an auto-revert registered again; null when none did. */
  readonly RevertedJobVersion: number | null;
  readonly Index: number;
}

/** 404 `deployment not found`. */
export const deploymentNotFound = () => schedNotFound('deployment not found');

/** Runs `fn` on active deployment `id` in one write labelled `label`. @throws 404; 400 `terminal` for a terminal deployment. */
async function write(
  deps: SchedDeps,
  { id, label, terminal }: { id: string; label: string; terminal: string },
  fn: (tx: Txn, d: StoredDeployment, nowNs: number) => TransitionResult,
): Promise<DeploymentUpdateResponse> {
  const nowNs = deps.now() * 1e6;
  const { result, index } = await deps.state.txn((tx) => {
    const d = tx.get<StoredDeployment>(T.deployments, id);
    if (!d) throw deploymentNotFound();
    if (!deploymentActive(d)) throw schedBadRequest(terminal);
    const r = fn(tx, d, nowNs);
    return { r, modify: tx.index };
  }, label);
  return {
    EvalID: result.r.evaluation?.ID ?? '',
    EvalCreateIndex: result.r.evaluation?.CreateIndex ?? 0,
    DeploymentModifyIndex: result.modify,
    RevertedJobVersion: result.r.revertedVersion ?? null,
    Index: index,
  };
}

/** Promotes the canaries of `groups` (all when undefined). @throws the errors of `promoteIn`; 400 `can't promote terminal deployment`; 404. */
export function promoteDeployment(deps: SchedDeps, id: string, groups: readonly string[] | undefined): Promise<DeploymentUpdateResponse> {
  return write(deps, { id, label: LABEL.deploymentPromotion, terminal: "can't promote terminal deployment" }, (tx, d, nowNs) =>
    promoteIn(tx, d, groups, nowNs),
  );
}

/** Marks it failed (auto-reverting when a group asks). @throws 400 `can't fail terminal deployment`; 404. */
export function failDeployment(deps: SchedDeps, id: string): Promise<DeploymentUpdateResponse> {
  return write(deps, { id, label: LABEL.deploymentStatus, terminal: "can't fail terminal deployment" }, (tx, d, nowNs) =>
    failIn(tx, d, DEPLOYMENT_TEXT.failedByUser, nowNs),
  );
}

/** Pauses (`pause`) or resumes it; resuming restarts the progress deadlines and makes an evaluation. @throws 400 `can't pause terminal deployment` / `can't resume terminal deployment`; 404. */
export function pauseDeployment(deps: SchedDeps, id: string, pause: boolean): Promise<DeploymentUpdateResponse> {
  const terminal = pause ? "can't pause terminal deployment" : "can't resume terminal deployment";
  return write(deps, { id, label: LABEL.deploymentStatus, terminal }, (tx, d, nowNs) => {
    if (pause) {
      tx.put(T.deployments, d.ID, { ...d, Status: DEPLOYMENT_STATUS.paused, StatusDescription: DEPLOYMENT_TEXT.paused, ModifyTime: nowNs });
      return {};
    }
    // The time spent paused does not count against the progress deadline.
    const groups = Object.fromEntries(
      Object.entries(d.TaskGroups).map(([n, g]) => [
        n,
        g.ProgressDeadline > 0 && g.PlacedAllocs > 0 ? { ...g, RequireProgressBy: progressBy(nowNs, g.ProgressDeadline) } : g,
      ]),
    );
    const next = { ...d, Status: DEPLOYMENT_STATUS.running, StatusDescription: runningText(groups), TaskGroups: groups, ModifyTime: nowNs };
    tx.put(T.deployments, d.ID, next);
    return { evaluation: watcherEval(tx, next, nowNs) };
  });
}

/**
 * Sets the health of allocations of the deployment by hand (the reference's
 * `SetAllocHealth`, for `health_check = "manual"`); the watcher then acts on it (an unhealthy
 * one fails the deployment). @throws 400 `must specify at least one healthy/unhealthy
 * allocation ID`, `Deployment "<id>" does not contain allocation "<alloc>"`, `can't set health
 * of allocations for a terminal deployment`; 404.
 */
export function setAllocHealth(deps: SchedDeps, id: string, healthy: readonly string[], unhealthy: readonly string[]): Promise<DeploymentUpdateResponse> {
  if (healthy.length + unhealthy.length === 0) throw schedBadRequest('must specify at least one healthy/unhealthy allocation ID');
  const terminal = "can't set health of allocations for a terminal deployment";
  return write(deps, { id, label: LABEL.deploymentAllocHealth, terminal }, (tx, d, nowNs) => {
    const stamp = formatTime(new Date(nowNs / 1e6));
    const set = (allocId: string, ok: boolean) => {
      const a = tx.get<ExistingAlloc>(T.allocs, allocId);
      if (!a || a.DeploymentID !== d.ID) throw schedBadRequest(`Deployment ${JSON.stringify(d.ID)} does not contain allocation ${JSON.stringify(allocId)}`);
      tx.put<ExistingAlloc>(T.allocs, a.ID, {
        ...a,
        DeploymentStatus: { Healthy: ok, Timestamp: stamp, Canary: a.DeploymentStatus?.Canary ?? false },
        ModifyTime: nowNs,
      });
    };
    for (const a of healthy) set(a, true);
    for (const a of unhealthy) set(a, false);
    tx.put(T.deployments, d.ID, { ...recount(d, deploymentAllocs(tx, d)), ModifyTime: nowNs });
    return { evaluation: watcherEval(tx, d, nowNs) };
  });
}
