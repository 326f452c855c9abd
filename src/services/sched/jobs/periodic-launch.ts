/**
 * Launching a periodic job's child as a write (the reference's periodic dispatcher
 * `createEval` and `ForceRun`, jobs/periodic.ts): the child `<id>/periodic-<unix s>`
 * registered with a `periodic-job` evaluation and the launch time recorded, in one
 * transaction labelled `JobRegistered`. A launch whose child exists already (another leader
 * made it before a failover) is not made twice; with `ProhibitOverlap`, a scheduled launch
 * while a child is still pending or running is skipped (logged) but recorded as handled.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { SchedDeps } from '../service-deps.js';
import { schedBadRequest } from '../http.js';
import { LABEL, T } from '../state.js';
import { periodicChild } from './periodic.js';
import { jobStatusIn } from './status.js';
import { jobKey, type Job } from './types.js';
import { jobNotFound, result, storeJob, type JobWriteResult } from './write.js';

/** The last launch of a periodic job (the reference's `PeriodicLaunch`); `Launch` in Unix ns. */
export interface PeriodicLaunchDoc {
  readonly ID: string;
  readonly Namespace: string;
  readonly Launch: number;
}

/** How a launch went: made (with its child's ID and write), already made, skipped for overlap, or nothing to launch. */
export type LaunchOutcome =
  { readonly kind: 'launched'; readonly childId: string; readonly write: JobWriteResult } | { readonly kind: 'exists' | 'overlap' | 'gone' };

/**
 * Launches job `namespace`/`id` at `launchMs` (epoch ms). `force` (`periodic/force`): no
 * overlap check. @throws 404 `job not found` and 400 `can't force launch non-periodic job`
 * when forced; otherwise a job that is gone, stopped or no longer periodic is `gone`.
 */
export async function launchPeriodic(
  deps: SchedDeps,
  key: { namespace: string; id: string },
  o: { launchMs: number; force: boolean; log?: Logger },
): Promise<LaunchOutcome> {
  const { result: outcome, index } = await deps.state.txn((tx): LaunchOutcome => {
    const parent = tx.get<Job>(T.jobs, jobKey(key.namespace, key.id));
    if (o.force && !parent) throw jobNotFound();
    if (!parent?.Periodic || parent.Stop) {
      if (o.force) throw schedBadRequest("can't force launch non-periodic job");
      return { kind: 'gone' };
    }
    const child = periodicChild(parent, o.launchMs);
    const launch: PeriodicLaunchDoc = { ID: parent.ID, Namespace: parent.Namespace, Launch: o.launchMs * 1e6 };
    if (tx.get<Job>(T.jobs, jobKey(child.Namespace, child.ID))) return { kind: 'exists' };
    if (!o.force && parent.Periodic.ProhibitOverlap) {
      const busy = tx.list<Job>(T.jobs).some((j) => j.ParentID === parent.ID && j.Namespace === parent.Namespace && jobStatusIn(tx, j) !== 'dead');
      if (busy) {
        tx.put(T.periodicLaunches, jobKey(parent.Namespace, parent.ID), launch);
        return { kind: 'overlap' };
      }
    }
    const stored = storeJob(tx, child, undefined, { triggeredBy: 'periodic-job', nowNs: deps.now() * 1e6 });
    tx.put(T.periodicLaunches, jobKey(parent.Namespace, parent.ID), launch);
    return { kind: 'launched', childId: child.ID, write: result(stored.evaluation, stored.job.JobModifyIndex, tx.index) };
  }, LABEL.jobRegister);
  if (outcome.kind === 'overlap')
    o.log?.info({ job: key.id, namespace: key.namespace }, 'scheduler: skipping the launch of a periodic job: it prohibits overlap and a child still runs');
  return outcome.kind === 'launched' ? { ...outcome, write: { ...outcome.write, Index: index } } : outcome;
}
