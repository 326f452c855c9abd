/**
 * The jobs and evaluations group of `SchedClient` (reference/sched-workloads.md "Jobs",
 * "Evaluations and placement"), as `SchedClient.jobs`:
 *
 * ```ts
 * const sched = SchedClient.fromEnv(process.env);
 * const job = await sched.jobs.parseJob(readFileSync('web.hcl', 'utf8'));
 * const { EvalID } = await sched.jobs.registerJob(job);
 * const { data: ev } = await sched.jobs.readEvaluation(EvalID);
 * const { data: status } = await sched.jobs.readJob('web');
 * await sched.jobs.deregisterJob('web', { purge: true });
 * ```
 *
 * Every method rejects with `SchedApiError` on a status ≥ 400 and `SchedConnectionError` when
 * the service cannot be reached.
 *
 * @module
 */
import { BLOCKING_EXTRA_MS, type SchedCall, type SchedCallOptions, type SchedCallReply, type SchedMethod } from './sched-call.js';
import type { SchedPage } from './sched-csi-types.js';
import type {
  SchedAllocStub,
  SchedEvalListOptions,
  SchedEvaluation,
  SchedJob,
  SchedJobDiff,
  SchedDispatchReply,
  SchedJobListOptions,
  SchedJobPlanReply,
  SchedJobStub,
  SchedJobSummary,
  SchedJobWriteReply,
  SchedRegisterOptions,
} from './sched-job-types.js';
import type { SchedQueryOptions, SchedRead } from './sched-types.js';

const seg = encodeURIComponent;

/** Options naming a job's namespace (default: the client's). */
export interface SchedNamespaceOption {
  readonly namespace?: string;
}

const blocking = (o: SchedQueryOptions) => ({
  query: { index: o.index, wait: o.wait, stale: o.stale ? '' : undefined },
  extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
});

/** The job and evaluation methods of `SchedClient.jobs` (each one call through the client's `call`). */
export class SchedJobsApi {
  /** `call` reaches the service (`SchedClient.call`). */
  constructor(private readonly call: SchedCall) {}

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

  /**
   * `GET /v1/job/:id/versions?diffs=true` (`read-job`): the kept versions, newest first, and
   * `diffs[i]` from version i+1 to version i (or, with `diffVersion`, each other version
   * against that one). @throws SchedApiError 404 `job versions not found`; 400 for a `diffVersion` not kept.
   */
  async jobVersionDiffs(
    id: string,
    o: SchedQueryOptions & SchedNamespaceOption & { diffVersion?: number } = {},
  ): Promise<SchedRead<{ versions: SchedJob[]; diffs: SchedJobDiff[] }>> {
    const extra = o.diffVersion === undefined ? { diffs: 'true' } : { diff_version: String(o.diffVersion) };
    const r = await this.get<{ Versions: SchedJob[]; Diffs: SchedJobDiff[] | null }>(`/job/${seg(id)}/versions`, o, extra);
    return { data: { versions: r.data.Versions, diffs: r.data.Diffs ?? [] }, index: r.index };
  }

  /**
   * `POST /v1/job/:id/revert` (`submit-job`): registers version `version` again as the next
   * version; `enforcePriorVersion`: only if the current version is that one. @throws
   * SchedApiError 400 `can't revert to current version`, `current job has version <n>;
   * enforcing version <m>`; 404 for a job or version not kept.
   */
  async revertJob(id: string, version: number, o: SchedNamespaceOption & { enforcePriorVersion?: number } = {}): Promise<SchedJobWriteReply> {
    const body = { JobID: id, JobVersion: version, EnforcePriorVersion: o.enforcePriorVersion ?? null };
    return (await this.call<SchedJobWriteReply>('POST', `/job/${seg(id)}/revert`, { query: { namespace: o.namespace }, body })).data;
  }

  /**
   * `POST /v1/job/:id/dispatch` (`dispatch-job`): a child of parameterized job `id` with
   * `payload` (bytes, at most 16 KiB) and `meta`; the child's ID and evaluation. @throws
   * SchedApiError 400 for a job that is not parameterized or is stopped, a payload or meta the
   * job's `parameterized` block refuses; 404 `job not found`.
   */
  async dispatchJob(id: string, o: SchedNamespaceOption & { payload?: Uint8Array; meta?: Readonly<Record<string, string>> } = {}): Promise<SchedDispatchReply> {
    const body = { JobID: id, Payload: o.payload ? Buffer.from(o.payload).toString('base64') : '', Meta: o.meta ?? {} };
    return (await this.call<SchedDispatchReply>('POST', `/job/${seg(id)}/dispatch`, { query: { namespace: o.namespace }, body })).data;
  }

  /** `POST /v1/job/:id/periodic/force` (`submit-job`): launches a periodic job's child now. @throws SchedApiError 400 `can't force launch non-periodic job`; 404 `job not found`. */
  async forcePeriodic(id: string, o: SchedNamespaceOption = {}): Promise<{ EvalID: string; EvalCreateIndex: number; Index: number }> {
    return (
      await this.call<{ EvalID: string; EvalCreateIndex: number; Index: number }>('POST', `/job/${seg(id)}/periodic/force`, {
        query: { namespace: o.namespace },
      })
    ).data;
  }

  /** `POST /v1/job/:id/stable` (`submit-job`): marks version `version` stable or not. @throws SchedApiError 404 for a version not kept. */
  async setJobStability(id: string, version: number, stable: boolean, o: SchedNamespaceOption = {}): Promise<void> {
    await this.call('POST', `/job/${seg(id)}/stable`, { query: { namespace: o.namespace }, body: { JobID: id, JobVersion: version, Stable: stable } });
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
