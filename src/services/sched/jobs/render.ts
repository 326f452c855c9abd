/**
 * How jobs and evaluations look on the API and the event stream: the stored documents
 * (types.ts) with the reference's fields Cairn does not model set to their zero values, the
 * job list stub, and the evaluation as read (reference/sched-workloads.md "Jobs",
 * "Evaluations and placement").
 *
 * @module
 */
import { formatTime } from '../../../kernel/util/duration.js';
import type { Indexed } from '../../../kernel/store/index.js';
import type { Evaluation, Job } from './types.js';

/** A stored job. */
export type StoredJob = Job & Indexed;

/** The job as `GET /v1/job/:id` shows it: the stored job with the reference's unmodelled fields (spreads, …) empty, and `Status` as given (computed at read time). */
export function renderJob(job: StoredJob, status: string = job.Status): Record<string, unknown> {
  return {
    Affinities: null,
    Spreads: null,
    Periodic: null,
    ParameterizedJob: null,
    Dispatched: false,
    Payload: null,
    Multiregion: null,
    Reschedule: null,
    Migrate: null,
    ...job,
    Status: status,
  };
}

/** The list item of `GET /v1/jobs` (the reference's `JobListStub`), with its summary. */
export function jobStub(job: StoredJob, status: string, summary: Record<string, unknown>): Record<string, unknown> {
  return {
    ID: job.ID,
    ParentID: job.ParentID,
    Name: job.Name,
    Namespace: job.Namespace,
    Datacenters: job.Datacenters,
    NodePool: job.NodePool,
    Multiregion: null,
    Type: job.Type,
    Priority: job.Priority,
    Periodic: Boolean(job.Periodic),
    ParameterizedJob: Boolean(job.ParameterizedJob),
    Stop: job.Stop,
    Status: status,
    StatusDescription: job.StatusDescription,
    JobSummary: summary,
    CreateIndex: job.CreateIndex,
    ModifyIndex: job.ModifyIndex,
    JobModifyIndex: job.JobModifyIndex,
    SubmitTime: job.SubmitTime,
    Meta: job.Meta,
  };
}

/** Go's zero `time.Time` in JSON: an evaluation without a `WaitUntil`. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * The evaluation as read and in events: the stored one (`DeploymentID` `""` unless a
 * deployment's watcher made it) with the reference's unmodelled fields empty, and `WaitUntil` (stored in Unix ns) as the
 * reference's `time.Time`: an RFC3339 string, Go's zero time when there is none.
 */
export function renderEval(e: Evaluation & Indexed): Record<string, unknown> {
  return {
    DeploymentID: '',
    AnnotatePlan: false,
    EscapedComputedClass: false,
    ClassEligibility: null,
    QuotaLimitReached: '',
    SnapshotIndex: 0,
    RelatedEvals: null,
    ...e,
    WaitUntil: e.WaitUntil ? formatTime(new Date(e.WaitUntil / 1e6)) : ZERO_TIME,
  };
}
