/**
 * The refresh of a job's stored `Status` inside a write that changed its allocations or
 * evaluations (the scheduler's, a client's report), with the jobs API's {@link jobStatusIn}
 * (jobs/status.ts, the reference's `getJobStatus`): the transaction's `listBy` finds the job's
 * documents by the state's `job` group, this transaction's own writes included.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import { jobStatusIn } from '../jobs/status.js';
import { jobKey, type Job } from '../jobs/types.js';
import { T } from '../state.js';

/** Recomputes and, when it changed, stores the status of job `namespace/jobId` inside `tx` (no job: nothing). Call it after the write's own changes. */
export function refreshJobStatus(tx: Txn, namespace: string, jobId: string): void {
  const key = jobKey(namespace, jobId);
  const job = tx.get<Job>(T.jobs, key);
  if (!job) return;
  const status = jobStatusIn(tx, job);
  if (status !== job.Status) tx.put<Job>(T.jobs, key, { ...job, Status: status });
}
