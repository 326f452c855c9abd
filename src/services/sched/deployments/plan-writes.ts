/**
 * A plan's deployment writes (scheduler/model.ts `DeploymentWrites`), applied inside the
 * plan's transaction (label `PlanResult`, as the reference's plan apply upserts its
 * deployment): cancellations, and the job version's deployment created or updated. A
 * deployment stored meanwhile keeps what others changed (status, promotion); the plan only
 * sets the groups' desired counts. A group's progress deadline starts with the deployment's
 * first placement; the counts come from the allocations as the transaction left them.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import type { DeploymentWrites } from '../scheduler/model.js';
import { T } from '../state.js';
import { DEPLOYMENT_STATUS, deploymentActive, deploymentAllocs, progressBy, recount, ZERO_TIME, type Deployment, type StoredDeployment } from './doc.js';

/** Writes `w` in `tx` at `nowNs` (Unix ns). */
export function applyDeploymentWrites(tx: Txn, w: DeploymentWrites | undefined, nowNs: number): void {
  if (!w) return;
  for (const c of w.cancel) {
    const d = tx.get<StoredDeployment>(T.deployments, c.id);
    if (d && deploymentActive(d))
      tx.put<Deployment>(T.deployments, d.ID, { ...d, Status: DEPLOYMENT_STATUS.cancelled, StatusDescription: c.description, ModifyTime: nowNs });
  }
  const up = w.upsert;
  if (!up) return;
  const stored = tx.get<StoredDeployment>(T.deployments, up.ID);
  const groups: Record<string, Deployment['TaskGroups'][string]> = {};
  for (const [name, g] of Object.entries(up.TaskGroups)) {
    const was = stored?.TaskGroups[name];
    const merged = was ? { ...was, DesiredTotal: g.DesiredTotal, DesiredCanaries: Math.max(was.DesiredCanaries, g.DesiredCanaries) } : g;
    const running = (stored?.Status ?? up.Status) === DEPLOYMENT_STATUS.running;
    groups[name] =
      running && merged.RequireProgressBy === ZERO_TIME && merged.ProgressDeadline > 0
        ? { ...merged, RequireProgressBy: progressBy(nowNs, merged.ProgressDeadline) }
        : merged;
  }
  const next: Deployment = { ...(stored ?? up), TaskGroups: groups, ModifyTime: nowNs };
  tx.put<Deployment>(T.deployments, up.ID, recount(next, deploymentAllocs(tx, next)));
}
