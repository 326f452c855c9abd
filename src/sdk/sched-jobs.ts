/**
 * The jobs and evaluations half of `SchedClient` (reference/sched-workloads.md "Jobs",
 * "Evaluations and placement"): `SchedClient` extends {@link SchedJobsApi}, so these are
 * plain client methods:
 *
 * ```ts
 * const sched = SchedClient.fromEnv(process.env);
 * const job = await sched.parseJob(readFileSync('web.hcl', 'utf8'));
 * const { EvalID } = await sched.registerJob(job);
 * const { data: ev } = await sched.readEvaluation(EvalID);
 * const { data: status } = await sched.readJob('web');
 * await sched.deregisterJob('web', { purge: true });
 * ```
 *
 * Every method rejects with `SchedApiError` on a status ≥ 400 and `SchedConnectionError` when
 * the service cannot be reached.
 *
 * @module
 */
import type { SchedCallOptions, SchedCallReply, SchedMethod } from './sched-call.js';
import type { SchedPage } from './sched-csi-types.js';
import type {
  SchedAllocStub,
  SchedEvalListOptions,
  SchedEvaluation,
  SchedJob,
  SchedJobListOptions,
  SchedJobPlanReply,
  SchedJobStub,
  SchedJobSummary,
  SchedJobWriteReply,
  SchedRegisterOptions,
} from './sched-job-types.js';
import { SchedCsiApi } from './sched-volumes.js';
import type { SchedQueryOptions, SchedRead } from './sched-types.js';

const seg = encodeURIComponent;

/** Longest a blocking read may take on top of the client's limit (the server's 300 s cap, its jitter and a margin), in ms. */
const BLOCKING_EXTRA_MS = 330_000;

/** Options naming a job's namespace (default: the client's). */
export interface SchedNamespaceOption {
  readonly namespace?: string;
}

const blocking = (o: SchedQueryOptions) => ({
  query: { index: o.index, wait: o.wait, stale: o.stale ? '' : undefined },
  extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
});

/** The job and evaluation methods `SchedClient` inherits (each one call through `call`). */
export abstract class SchedJobsApi extends SchedCsiApi {
  // ---- jobs ---------------------------------------------------------------------------

  /**
   * `POST /v1/jobs/parse` (`parse-job` or `submit-job`): an HCL job file as the job JSON; with
   * `canonicalize`, with the defaults a register applies. @throws SchedApiError 400
   * `<file>:<line>: <problem>`.
   */
  async parseJob(hcl: string, o: { canonicalize?: boolean } = {}): Promise<SchedJob> {
    return (await this.call<SchedJob>('POST', '/jobs/parse', { body: { JobHCL: hcl, Canonicalize: o.canonicalize ?? false } })).data;
  }

  /**
   * `POST /v1/jobs` (`submit-job` in the job's namespace): registers `job` with a pending
   * evaluation. @throws SchedApiError 400 with the checks' texts, `Enforcing job modify index …`; 403.
   */
  async registerJob(job: SchedJob, o: SchedRegisterOptions = {}): Promise<SchedJobWriteReply> {
    const body = { Job: job, EnforceIndex: o.enforceIndex ?? false, JobModifyIndex: o.jobModifyIndex ?? 0, PreserveCounts: o.preserveCounts ?? false };
    return (await this.call<SchedJobWriteReply>('POST', '/jobs', { body })).data;
  }

  /**
   * `POST /v1/job/:id/plan` (`submit-job` in the job's namespace): what registering `job`
   * would change (the scheduler's dry run; nothing is written); `diff` (default true) asks
   * for the `Diff`. @throws SchedApiError 400 with the checks' texts; 403.
   */
  async planJob(job: SchedJob, o: { diff?: boolean } = {}): Promise<SchedJobPlanReply> {
    return (await this.call<SchedJobPlanReply>('POST', `/job/${seg(job.ID)}/plan`, { body: { Job: job, Diff: o.diff ?? true } })).data;
  }

  /** `GET /v1/jobs` (`list-jobs`): one page of job stubs in `<namespace>.<ID>` order; `nextToken` undefined on the last page. */
  async listJobs(o: SchedJobListOptions = {}): Promise<SchedPage<SchedJobStub[]>> {
    return this.page<SchedJobStub>('/jobs', o, {});
  }

  /** `GET /v1/job/:id` (`read-job`): the job, `Status` computed from its allocations. @throws SchedApiError 404 `job not found`. */
  async readJob(id: string, o: SchedQueryOptions & SchedNamespaceOption = {}): Promise<SchedRead<SchedJob>> {
    return this.get<SchedJob>(`/job/${seg(id)}`, o);
  }

  /** `DELETE /v1/job/:id` (`submit-job`): stops the job (`Stop: true`), or with `purge` deletes it; a `job-deregister` evaluation. @throws SchedApiError 404 `job not found`. */
  async deregisterJob(id: string, o: SchedNamespaceOption & { purge?: boolean } = {}): Promise<SchedJobWriteReply> {
    return (await this.call<SchedJobWriteReply>('DELETE', `/job/${seg(id)}`, { query: { namespace: o.namespace, purge: o.purge ? 'true' : undefined } })).data;
  }

  /** `GET /v1/job/:id/versions` (`read-job`): the kept versions, newest first. @throws SchedApiError 404 `job versions not found`. */
  async jobVersions(id: string, o: SchedQueryOptions & SchedNamespaceOption = {}): Promise<SchedRead<SchedJob[]>> {
    const r = await this.get<{ Versions: SchedJob[] }>(`/job/${seg(id)}/versions`, o);
    return { data: r.data.Versions, index: r.index };
  }

  /** `GET /v1/job/:id/allocations` (`read-job`): allocation stubs; `all` adds those of an earlier job with the same ID. */
  async jobAllocations(id: string, o: SchedQueryOptions & SchedNamespaceOption & { all?: boolean } = {}): Promise<SchedRead<SchedAllocStub[]>> {
    return this.get<SchedAllocStub[]>(`/job/${seg(id)}/allocations`, o, { all: o.all ? 'true' : undefined });
  }

  /** `GET /v1/job/:id/evaluations` (`read-job`): the job's evaluations, oldest first. */
  async jobEvaluations(id: string, o: SchedQueryOptions & SchedNamespaceOption = {}): Promise<SchedRead<SchedEvaluation[]>> {
    return this.get<SchedEvaluation[]>(`/job/${seg(id)}/evaluations`, o);
  }

  /** `GET /v1/job/:id/summary` (`read-job`): allocation counts per task group. @throws SchedApiError 404 `job not found`. */
  async jobSummary(id: string, o: SchedQueryOptions & SchedNamespaceOption = {}): Promise<SchedRead<SchedJobSummary>> {
    return this.get<SchedJobSummary>(`/job/${seg(id)}/summary`, o);
  }

  /** `POST /v1/job/:id/evaluate` (`submit-job`): a new pending evaluation of the job as it is. @throws SchedApiError 404 `job not found`. */
  async evaluateJob(id: string, o: SchedNamespaceOption = {}): Promise<SchedJobWriteReply> {
    return (await this.call<SchedJobWriteReply>('POST', `/job/${seg(id)}/evaluate`, { query: { namespace: o.namespace }, body: { JobID: id } })).data;
  }

  /**
   * `POST /v1/job/:id/scale` (`scale-job` or `submit-job`): sets group `group`'s count, a new
   * version with a `job-scaling` evaluation. @throws SchedApiError 400 for an unknown group or
   * a negative count; 404 `job not found`.
   */
  async scaleJob(id: string, group: string, count: number, o: SchedNamespaceOption & { message?: string } = {}): Promise<SchedJobWriteReply> {
    const body = { Count: count, Target: { Group: group }, Message: o.message ?? '' };
    return (await this.call<SchedJobWriteReply>('POST', `/job/${seg(id)}/scale`, { query: { namespace: o.namespace }, body })).data;
  }

  // ---- evaluations --------------------------------------------------------------------

  /** `GET /v1/evaluations` (`read-job`): one page of evaluations, oldest first. @throws SchedApiError 400 when `filter` is given with `status` or `job`. */
  async listEvaluations(o: SchedEvalListOptions = {}): Promise<SchedPage<SchedEvaluation[]>> {
    return this.page<SchedEvaluation>('/evaluations', o, { status: o.status || undefined, job: o.job || undefined });
  }

  /** `GET /v1/evaluation/:id` (`read-job`). @throws SchedApiError 404 `eval not found`. */
  async readEvaluation(id: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedEvaluation>> {
    return this.get<SchedEvaluation>(`/evaluation/${seg(id)}`, o);
  }

  /** `GET /v1/evaluation/:id/allocations` (`read-job`): the allocations the evaluation placed. @throws SchedApiError 404 `eval not found`. */
  async evaluationAllocations(id: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedAllocStub[]>> {
    return this.get<SchedAllocStub[]>(`/evaluation/${seg(id)}/allocations`, o);
  }

  // ---- plumbing -----------------------------------------------------------------------

  private async get<T>(path: string, o: SchedQueryOptions & SchedNamespaceOption, extra: Record<string, string | undefined> = {}): Promise<SchedRead<T>> {
    const b = blocking(o);
    const r = await this.call<T>('GET', path, { ...b, query: { ...b.query, namespace: o.namespace, ...extra } });
    return { data: r.data, index: r.index };
  }

  private async page<T>(path: string, o: SchedJobListOptions, extra: Record<string, string | undefined>): Promise<SchedPage<T[]>> {
    const r: SchedCallReply<T[] | null> = await this.call<T[] | null>('GET' as SchedMethod, path, {
      query: {
        namespace: o.namespace,
        prefix: o.prefix || undefined,
        filter: o.filter || undefined,
        per_page: o.perPage || undefined,
        next_token: o.nextToken || undefined,
        index: o.index,
        wait: o.wait,
        ...extra,
      },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    } satisfies SchedCallOptions);
    const next = r.headers['x-sched-nexttoken'];
    const token = Array.isArray(next) ? next[0] : next;
    return { data: r.data ?? [], index: r.index, nextToken: token ? token : undefined };
  }
}
