/**
 * A job's versions as writes (the reference's `Job.Revert` and `Job.Stable` endpoints,
 * reference/sched-workloads.md "Jobs"): reverting registers a kept version's spec again as
 * the next version (a new evaluation, label `JobRegistered`); marking a version stable sets
 * its `Stable` flag, and the job's when it is the current version (label `JobRegistered`:
 * the job document a subscriber sees changed). Deployments mark versions stable when they
 * succeed; auto-revert goes back to the last stable one.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import type { SchedDeps } from '../service-deps.js';
import { schedBadRequest, schedNotFound } from '../http.js';
import { LABEL, T } from '../state.js';
import type { StoredJob } from './render.js';
import { jobKey, jobVersionKey, type Job } from './types.js';
import { jobNotFound, result, storeJob, type JobWriteResult } from './write.js';

/** A version to revert to or mark, and the job it belongs to. */
export interface JobVersionRef {
  readonly namespace: string;
  readonly id: string;
  /** The version, as `Version` numbers them (0 first). */
  readonly version: number;
}

const versionNotFound = (r: JobVersionRef) => schedNotFound(`job "${r.id}" in namespace "${r.namespace}" at version ${r.version} not found`);

/**
 * Registers version `r.version` of the job again as its next version, with a
 * `job-register` evaluation. `enforcePriorVersion`: only if the current version is that one.
 * @throws 404 `job not found`; 400 `can't revert to current version`; 400 `current job has
 *   version <n>; enforcing version <m>`; 404 `job "<id>" in namespace "<ns>" at version <v>
 *   not found` (the reference's texts; it answers 500 for each).
 */
export async function revertJob(deps: SchedDeps, r: JobVersionRef, enforcePriorVersion: number | undefined): Promise<JobWriteResult> {
  const nowNs = deps.now() * 1e6;
  const { result: out, index } = await deps.state.txn((tx) => {
    const current = tx.get<StoredJob>(T.jobs, jobKey(r.namespace, r.id));
    if (!current) throw jobNotFound();
    if (r.version === current.Version) throw schedBadRequest("can't revert to current version");
    if (enforcePriorVersion !== undefined && current.Version !== enforcePriorVersion)
      throw schedBadRequest(`current job has version ${current.Version}; enforcing version ${enforcePriorVersion}`);
    const old = tx.get<Job>(T.jobVersions, jobVersionKey(r.namespace, r.id, r.version));
    if (!old) throw versionNotFound(r);
    const stored = storeJob(tx, old, current, { triggeredBy: 'job-register', nowNs });
    return result(stored.evaluation, stored.job.JobModifyIndex, tx.index);
  }, LABEL.jobRegister);
  return { ...out, Index: index };
}

/**
 * Sets `Stable` of version `r.version` (and of the job when it is the current version).
 * Returns the write's index. @throws 404 `job "<id>" in namespace "<ns>" at version <v> not found`.
 */
export async function setJobStability(deps: SchedDeps, r: JobVersionRef, stable: boolean): Promise<number> {
  const { index } = await deps.state.txn((tx) => {
    if (!putStability(tx, r, stable)) throw versionNotFound(r);
  }, LABEL.jobRegister);
  return index;
}

/** Sets `Stable` of version `r.version` (and of the job when it is the current version) in `tx`; false when that version is not kept. */
export function putStability(tx: Txn, r: JobVersionRef, stable: boolean): boolean {
  const version = tx.get<Job>(T.jobVersions, jobVersionKey(r.namespace, r.id, r.version));
  if (!version) return false;
  tx.put(T.jobVersions, jobVersionKey(r.namespace, r.id, r.version), { ...version, Stable: stable });
  const current = tx.get<StoredJob>(T.jobs, jobKey(r.namespace, r.id));
  if (current?.Version === r.version) tx.put(T.jobs, jobKey(r.namespace, r.id), { ...current, Stable: stable });
  return true;
}
