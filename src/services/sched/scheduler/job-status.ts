/**
 * The refresh of a job's `Status` inside a scheduler write, with the jobs API's
 * {@link jobStatus} (jobs/status.ts, the reference's `getJobStatus`). It finds the job's
 * documents through the state's cached order rather than listing tables in the transaction.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import { jobStatus } from '../jobs/status.js';
import { jobKey, type Evaluation, type Job } from '../jobs/types.js';
import { T } from '../state.js';
import type { ExistingAlloc } from './model.js';

/**
 * Recomputes and, when it changed, stores the status of job `namespace/jobId` inside `tx` (no
 * job: nothing). The job's allocations and evaluations are found in `state` (its cached
 * order, where a transaction's list sorts the whole table) and read again through `tx`, so
 * this transaction's own changes count; `added` names the documents this transaction created.
 */
export function refreshJobStatus(
  tx: Txn,
  state: Pick<Txn, 'list'>,
  namespace: string,
  jobId: string,
  added: { readonly allocs?: readonly string[]; readonly evals?: readonly string[] } = {},
): void {
  const key = jobKey(namespace, jobId);
  const job = tx.get<Job>(T.jobs, key);
  if (!job) return;
  const ofJob = <D extends { ID: string; JobID: string; Namespace: string }>(table: string, extra: readonly string[] = []): D[] => {
    const ids = new Set(state.list<D>(table).filter((d) => d.JobID === jobId && d.Namespace === namespace).map((d) => d.ID));
    for (const id of extra) ids.add(id);
    return [...ids].flatMap((id) => tx.get<D>(table, id) ?? []);
  };
  const status = jobStatus(job, ofJob<ExistingAlloc>(T.allocs, added.allocs), ofJob<Evaluation>(T.evals, added.evals));
  if (status !== job.Status) tx.put<Job>(T.jobs, key, { ...job, Status: status });
}
