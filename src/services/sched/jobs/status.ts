/**
 * A job's status and summary from its allocations and evaluations, as the reference computes
 * them (its state store's `getJobStatus` and the job summary it keeps per task group;
 * reference/sched-workloads.md "Jobs"). Pure functions over documents, plus readers that find
 * a job's allocations and evaluations in the state or in a write's transaction, so the jobs
 * API and the scheduler set the same status.
 *
 * @module
 */
import type { Indexed } from '../../../kernel/store/index.js';
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import { T } from '../state.js';
import { jobKey, type Evaluation, type Job } from './types.js';

/** Anything that lists a table (the state, a transaction). */
export interface TableReader {
  list<D>(table: string): (D & Indexed)[];
  listBy<D>(table: string, group: string, key: string): (D & Indexed)[];
}

/** Is the evaluation finished (`complete`, `failed`, `canceled`)? A `pending` or `blocked` one is not (reference `Evaluation.TerminalStatus`). */
function evalTerminal(e: Pick<Evaluation, 'Status'>): boolean {
  return e.Status === 'complete' || e.Status === 'failed' || e.Status === 'canceled';
}

/**
 * The reference's job status (`getJobStatus`): a `system`, parameterized or periodic job is `running`
 * until stopped, then `dead`; otherwise `running` while any allocation is not terminal, else `pending` while any
 * evaluation is not terminal, else `dead` when it has had allocations or evaluations (or is
 * stopped), else `pending`.
 *
 * @param allocs the job's allocations (same namespace and ID)
 * @param evals the job's evaluations
 */
export function jobStatus(
  job: Pick<Job, 'Type' | 'Stop' | 'ParameterizedJob' | 'Periodic'>,
  allocs: readonly Pick<StoredAlloc, 'DesiredStatus' | 'ClientStatus'>[],
  evals: readonly Pick<Evaluation, 'Status'>[] = [],
): 'pending' | 'running' | 'dead' {
  // A parameterized or periodic job is never scheduled itself: it runs (takes dispatches, launches) until stopped.
  if (job.Type === 'system' || job.ParameterizedJob || job.Periodic) return job.Stop ? 'dead' : 'running';
  if (allocs.some((a) => !allocTerminal(a))) return 'running';
  if (evals.some((e) => !evalTerminal(e))) return 'pending';
  if (allocs.length > 0 || evals.length > 0 || job.Stop) return 'dead';
  return 'pending';
}

/** The allocations of job `namespace`/`id` in `read`. */
export function allocsOfJob(read: TableReader, namespace: string, id: string): (StoredAlloc & Indexed)[] {
  return read.listBy<StoredAlloc>(T.allocs, 'job', jobKey(namespace, id));
}

/** The evaluations of job `namespace`/`id` in `read`, oldest first. */
export function evalsOfJob(read: TableReader, namespace: string, id: string): (Evaluation & Indexed)[] {
  return read.listBy<Evaluation>(T.evals, 'job', jobKey(namespace, id)).sort((a, b) => a.CreateIndex - b.CreateIndex || (a.ID < b.ID ? -1 : 1));
}

/** {@link jobStatus} of `job` from what `read` holds (the state, or a write's transaction: call it after writing the evaluation). */
export function jobStatusIn(
  read: TableReader,
  job: Pick<Job, 'ID' | 'Namespace' | 'Type' | 'Stop' | 'ParameterizedJob' | 'Periodic'>,
): 'pending' | 'running' | 'dead' {
  return jobStatus(job, allocsOfJob(read, job.Namespace, job.ID), evalsOfJob(read, job.Namespace, job.ID));
}

/** A parent job's children (dispatched or launched jobs) by status (the reference's `JobChildrenSummary`). */
export interface ChildCounts {
  Pending: number;
  Running: number;
  Dead: number;
}

/** The children of job `namespace`/`id` in `read` by status; all zero for a job that has none. */
export function childCounts(read: TableReader, namespace: string, id: string): ChildCounts {
  const counts: ChildCounts = { Pending: 0, Running: 0, Dead: 0 };
  for (const child of read.list<Job>(T.jobs)) {
    if (child.ParentID !== id || child.Namespace !== namespace) continue;
    const status = jobStatusIn(read, child);
    counts[status === 'pending' ? 'Pending' : status === 'running' ? 'Running' : 'Dead']++;
  }
  return counts;
}

/** One task group's allocation counts (reference `TaskGroupSummary`). */
interface GroupSummary {
  Queued: number;
  Complete: number;
  Failed: number;
  Running: number;
  Starting: number;
  Lost: number;
  Unknown: number;
}

/**
 * The job summary (`GET /v1/job/:id/summary`, the list stubs' `JobSummary`): per group the
 * allocations by client status (`pending` counts as `Starting`), and `Queued` as the latest
 * evaluation that reported `QueuedAllocations` left it.
 */
export function jobSummary(
  job: Pick<Job, 'ID' | 'Namespace' | 'TaskGroups' | 'CreateIndex' | 'ModifyIndex'>,
  allocs: readonly Pick<StoredAlloc, 'TaskGroup' | 'ClientStatus'>[],
  evals: readonly Pick<Evaluation, 'QueuedAllocations'>[],
  children: ChildCounts = { Pending: 0, Running: 0, Dead: 0 },
): Record<string, unknown> {
  const summary: Record<string, GroupSummary> = {};
  for (const g of job.TaskGroups) summary[g.Name] = { Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 };
  const queued = [...evals].reverse().find((e) => e.QueuedAllocations !== null)?.QueuedAllocations ?? {};
  for (const [group, n] of Object.entries(queued)) if (summary[group]) summary[group].Queued = n;
  const field: Record<string, keyof GroupSummary> = {
    pending: 'Starting',
    running: 'Running',
    complete: 'Complete',
    failed: 'Failed',
    lost: 'Lost',
    unknown: 'Unknown',
  };
  for (const a of allocs) {
    const s = summary[a.TaskGroup];
    const f = field[a.ClientStatus];
    if (s && f) s[f]++;
  }
  return {
    JobID: job.ID,
    Namespace: job.Namespace,
    Summary: summary,
    Children: children,
    CreateIndex: job.CreateIndex,
    ModifyIndex: job.ModifyIndex,
  };
}

/** A job's allocations and evaluations, found once for many jobs (the job list). */
export interface JobRelations {
  readonly allocs: (StoredAlloc & Indexed)[];
  readonly evals: (Evaluation & Indexed)[];
}

/** The allocations and evaluations of every job in `read`, keyed `<namespace>/<job id>` (evaluations oldest first). */
export function relationsByJob(read: TableReader): Map<string, JobRelations> {
  const out = new Map<string, JobRelations>();
  const of = (ns: string, id: string) => {
    const key = `${ns}/${id}`;
    let r = out.get(key);
    if (!r) out.set(key, (r = { allocs: [], evals: [] }));
    return r;
  };
  for (const a of read.list<StoredAlloc>(T.allocs)) of(a.Namespace, a.JobID).allocs.push(a);
  for (const e of read.list<Evaluation>(T.evals)) of(e.Namespace, e.JobID).evals.push(e);
  for (const r of out.values()) r.evals.sort((a, b) => a.CreateIndex - b.CreateIndex || (a.ID < b.ID ? -1 : 1));
  return out;
}
