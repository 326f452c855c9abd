/**
 * A job's `Status` as the reference computes it (`nomad/state/state_store.go`
 * `getJobStatus`; reference/sched-workloads.md "Jobs"), and its refresh inside a write.
 * Scheduler-internal until the jobs API's `jobStatus` is merged (that one is the contract;
 * this one adds the evaluations, as the reference does).
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import { allocTerminal } from '../alloc.js';
import { jobKey, type Evaluation, type Job } from '../jobs/types.js';
import { T } from '../state.js';
import type { ExistingAlloc } from './model.js';

const EVAL_TERMINAL = new Set(['complete', 'failed', 'canceled']);

/**
 * `system` jobs: `running` until stopped, then `dead`. Others: `running` while an allocation
 * is not terminal; else `pending` while an evaluation is not terminal (`pending`, `blocked`);
 * else `dead` when stopped or once anything ran or was evaluated; else `pending`.
 */
export function computeJobStatus(job: Pick<Job, 'Type' | 'Stop'>, allocs: readonly Pick<ExistingAlloc, 'DesiredStatus' | 'ClientStatus'>[], evals: readonly Pick<Evaluation, 'Status'>[]): string {
  if (job.Type === 'system') return job.Stop ? 'dead' : 'running';
  if (allocs.some((a) => !allocTerminal(a))) return 'running';
  if (evals.some((e) => !EVAL_TERMINAL.has(e.Status))) return 'pending';
  if (job.Stop || allocs.length > 0 || evals.length > 0) return 'dead';
  return 'pending';
}

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
  const status = computeJobStatus(job, ofJob<ExistingAlloc>(T.allocs, added.allocs), ofJob<Evaluation>(T.evals, added.evals));
  if (status !== job.Status) tx.put<Job>(T.jobs, key, { ...job, Status: status });
}
