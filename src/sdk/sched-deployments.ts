/**
 * The deployments group of `SchedClient` (issue 29 item 1; the reference's deployments HTTP
 * API, `/v1/deployment*` and `/v1/job/:id/deployment(s)`), as `SchedClient.deployments`:
 *
 * ```ts
 * const sched = SchedClient.fromEnv(process.env);
 * const { data: latest } = await sched.deployments.jobLatestDeployment('web');
 * if (latest?.Status === 'running') await sched.deployments.promote(latest.ID);
 * ```
 *
 * Every method rejects with `SchedApiError` on a status ≥ 400 and `SchedConnectionError` when
 * the service cannot be reached.
 *
 * @module
 */
import { BLOCKING_EXTRA_MS, type SchedCall } from './sched-call.js';
import type { SchedAllocStub } from './sched-job-types.js';
import type { SchedQueryOptions, SchedRead } from './sched-types.js';

const seg = encodeURIComponent;

/** One task group's progress in a deployment (the reference's `DeploymentState`). */
export interface SchedDeploymentGroup {
  readonly AutoRevert: boolean;
  readonly AutoPromote: boolean;
  readonly Promoted: boolean;
  /** IDs of the canaries placed (null: none). */
  readonly PlacedCanaries: readonly string[] | null;
  readonly DesiredCanaries: number;
  readonly DesiredTotal: number;
  readonly PlacedAllocs: number;
  readonly HealthyAllocs: number;
  readonly UnhealthyAllocs: number;
  /** ns. */
  readonly ProgressDeadline: number;
  /** RFC 3339; Go's zero time when no deadline runs. */
  readonly RequireProgressBy: string;
}

/** A deployment (the reference's `Deployment`); `Status` `running`, `paused`, `failed`, `successful` or `cancelled`; times in Unix ns. */
export interface SchedDeployment {
  readonly ID: string;
  readonly Namespace: string;
  readonly JobID: string;
  readonly JobVersion: number;
  readonly JobModifyIndex: number;
  readonly JobSpecModifyIndex: number;
  readonly JobCreateIndex: number;
  readonly IsMultiregion: boolean;
  readonly Status: string;
  readonly StatusDescription: string;
  readonly EvalPriority: number;
  readonly TaskGroups: Readonly<Record<string, SchedDeploymentGroup>>;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** What a deployment write replies (the reference's `DeploymentUpdateResponse`). */
export interface SchedDeploymentUpdateReply {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly DeploymentModifyIndex: number;
  /** The job version an auto-revert registered again, when one did. */
  readonly RevertedJobVersion?: number | null;
  readonly Index: number;
}

/** Read options with a namespace (default: the client's; `*` lists every readable one). */
export type SchedDeploymentReadOptions = SchedQueryOptions & { readonly namespace?: string };

/** The deployment methods of `SchedClient.deployments` (each one call through the client's `call`). */
export class SchedDeploymentsApi {
  /** `call` reaches the service (`SchedClient.call`). */
  constructor(private readonly call: SchedCall) {}

  /** `GET /v1/deployments` (`read-job`): deployments newest first; `prefix` filters IDs. */
  async list(o: SchedDeploymentReadOptions & { prefix?: string } = {}): Promise<SchedRead<SchedDeployment[]>> {
    return this.get<SchedDeployment[]>('/deployments', o, { prefix: o.prefix || undefined });
  }

  /** `GET /v1/deployment/:id` (`read-job`). @throws SchedApiError 404 `deployment not found`. */
  async read(id: string, o: SchedDeploymentReadOptions = {}): Promise<SchedRead<SchedDeployment>> {
    return this.get<SchedDeployment>(`/deployment/${seg(id)}`, o);
  }

  /** `GET /v1/deployment/allocations/:id` (`read-job`): the allocations placed by the deployment, as stubs. @throws SchedApiError 404 `deployment not found`. */
  async allocations(id: string, o: SchedDeploymentReadOptions = {}): Promise<SchedRead<SchedAllocStub[]>> {
    return this.get<SchedAllocStub[]>(`/deployment/allocations/${seg(id)}`, o);
  }

  /**
   * `POST /v1/deployment/promote/:id` (`submit-job`): promotes the canaries of `groups` (all
   * groups when none are named). @throws SchedApiError 400 `can't promote terminal deployment`,
   * `Task group "<g>" has <h>/<n> healthy allocations`, …; 404 `deployment not found`.
   */
  async promote(id: string, o: { groups?: readonly string[]; namespace?: string } = {}): Promise<SchedDeploymentUpdateReply> {
    const groups = o.groups && o.groups.length > 0 ? o.groups : null;
    return this.write(`/deployment/promote/${seg(id)}`, { DeploymentID: id, All: groups === null, Groups: groups }, o.namespace);
  }

  /** `POST /v1/deployment/fail/:id` (`submit-job`): marks it failed (and auto-reverts when its groups ask). @throws SchedApiError 400 `can't fail terminal deployment`; 404. */
  async fail(id: string, o: { namespace?: string } = {}): Promise<SchedDeploymentUpdateReply> {
    return this.write(`/deployment/fail/${seg(id)}`, { DeploymentID: id }, o.namespace);
  }

  /** `POST /v1/deployment/pause/:id` (`submit-job`): pauses (`pause` true) or resumes it. @throws SchedApiError 400 `can't pause terminal deployment` / `can't resume terminal deployment`; 404. */
  async pause(id: string, pause: boolean, o: { namespace?: string } = {}): Promise<SchedDeploymentUpdateReply> {
    return this.write(`/deployment/pause/${seg(id)}`, { DeploymentID: id, Pause: pause }, o.namespace);
  }

  /**
   * `POST /v1/deployment/allocation-health/:id` (`submit-job`): sets the health of allocations
   * of the deployment by hand (`health_check = "manual"`). @throws SchedApiError 400 `can't set
   * health of allocations for a terminal deployment`, an allocation not in the deployment; 404.
   */
  async allocationHealth(
    id: string,
    health: { healthy?: readonly string[]; unhealthy?: readonly string[] },
    o: { namespace?: string } = {},
  ): Promise<SchedDeploymentUpdateReply> {
    const body = { DeploymentID: id, HealthyAllocationIDs: health.healthy ?? [], UnhealthyAllocationIDs: health.unhealthy ?? [] };
    return this.write(`/deployment/allocation-health/${seg(id)}`, body, o.namespace);
  }

  /** `GET /v1/job/:id/deployments` (`read-job`): the job's deployments, newest first (`all`: of every job with this ID ever registered). @throws SchedApiError 404 `job not found`. */
  async jobDeployments(jobId: string, o: SchedDeploymentReadOptions & { all?: boolean } = {}): Promise<SchedRead<SchedDeployment[]>> {
    return this.get<SchedDeployment[]>(`/job/${seg(jobId)}/deployments`, o, { all: o.all ? 'true' : undefined });
  }

  /** `GET /v1/job/:id/deployment` (`read-job`): the job's latest deployment, or null. @throws SchedApiError 404 `job not found`. */
  async jobLatestDeployment(jobId: string, o: SchedDeploymentReadOptions = {}): Promise<SchedRead<SchedDeployment | null>> {
    return this.get<SchedDeployment | null>(`/job/${seg(jobId)}/deployment`, o);
  }

  // ---- plumbing -----------------------------------------------------------------------

  private async write(path: string, body: unknown, namespace: string | undefined): Promise<SchedDeploymentUpdateReply> {
    return (await this.call<SchedDeploymentUpdateReply>('POST', path, { query: { namespace }, body })).data;
  }

  private async get<T>(path: string, o: SchedDeploymentReadOptions, extra: Record<string, string | undefined> = {}): Promise<SchedRead<T>> {
    const r = await this.call<T>('GET', path, {
      query: { index: o.index, wait: o.wait, stale: o.stale ? '' : undefined, namespace: o.namespace, ...extra },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: r.data, index: r.index };
  }
}
