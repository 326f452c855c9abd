/**
 * `POST /v1/job/:id/dispatch` as a write (the reference's `Job.Dispatch`): the child job of a
 * parameterized job (parameterized.ts `dispatchedJob`) registered with a `job-register`
 * evaluation in one transaction, label `JobRegistered`.
 *
 * @module
 */
import type { SchedDeps } from '../service-deps.js';
import { LABEL, T } from '../state.js';
import { dispatchedJob, type DispatchRequest } from './parameterized.js';
import { jobKey, type Job } from './types.js';
import { jobNotFound, storeJob } from './write.js';

/** What a dispatch replies (the reference's `JobDispatchResponse`). */
export interface DispatchResult {
  readonly DispatchedJobID: string;
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobCreateIndex: number;
  readonly Index: number;
}

/**
 * Dispatches parameterized job `namespace`/`id` with `req`. @throws 404 `job not found`; the
 * 400s of {@link dispatchedJob} (not parameterized, stopped, payload and meta checks).
 */
export async function dispatchJob(deps: SchedDeps, namespace: string, id: string, req: DispatchRequest): Promise<DispatchResult> {
  const nowMs = deps.now();
  const { result, index } = await deps.state.txn((tx) => {
    const parent = tx.get<Job>(T.jobs, jobKey(namespace, id));
    if (!parent) throw jobNotFound();
    const child = dispatchedJob(parent, req, nowMs);
    const stored = storeJob(tx, child, undefined, { triggeredBy: 'job-register', nowNs: nowMs * 1e6 });
    return {
      DispatchedJobID: child.ID,
      EvalID: stored.evaluation?.ID ?? '',
      EvalCreateIndex: stored.evaluation?.CreateIndex ?? 0,
      JobCreateIndex: stored.job.CreateIndex,
    };
  }, LABEL.jobRegister);
  return { ...result, Index: index };
}
