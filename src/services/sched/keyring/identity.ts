/**
 * Workload identities (issue 27 scope 2; reference/integration.md §4): the JWT the servers
 * sign for a task, its claims under Cairn's names, and which identities a task has.
 *
 * ```text
 * reference            Cairn
 * nomad_namespace      cairn_namespace
 * nomad_job_id         cairn_job_id        (the parent job's ID for dispatched and periodic children)
 * nomad_allocation_id  cairn_allocation_id
 * nomad_task           cairn_task          (absent on the identity of a group's service)
 * nomad_service        cairn_service       (service identities only, jobs/consul-identities.ts)
 * sub                  <region>:<namespace>:<job>:<group>:<task, or the service of a service identity>:<identity name>
 * aud                  the identity's `aud`; the default identity's: "cairn-sched" (the reference: "nomadproject.io")
 * iat, nbf             signing time (Unix s); exp = iat + ttl when the identity has a ttl; iss = server.oidc_issuer when set
 * ```
 *
 * Every task has a default identity (named `default`), signed when the plan is applied and
 * stored with the allocation (`SignedIdentities`, task → JWT), shown only to the allocation's
 * own node. Named identities (`identity { name = … }`) and any identity with a `ttl` are signed
 * on the client's request (`POST /v1/allocation/:id/identities`, routes/alloc-identities.ts).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Job, Task, TaskGroup, WorkloadIdentity } from '../jobs/types.js';

/**
 * The audience of the default identity, which the scheduler's own API accepts as a token
 * (resolve.ts): it names the service the token is meant for, as the reference's
 * `nomadproject.io` does.
 */
export const DEFAULT_AUDIENCE = 'cairn-sched';
/** The default identity's name. */
export const DEFAULT_IDENTITY = 'default';

/** The default identity a task has when its job sets none: not exposed to the task, no TTL. */
const IMPLICIT_DEFAULT: WorkloadIdentity = {
  Name: DEFAULT_IDENTITY,
  Audience: null,
  ChangeMode: '',
  ChangeSignal: '',
  Env: false,
  File: false,
  Filepath: '',
  TTL: 0,
};

/** Every identity of `task`: its default one first (as set, or the implicit one), then its named ones. */
export function identitiesOf(task: Pick<Task, 'Identity' | 'Identities'>): WorkloadIdentity[] {
  return [task.Identity ?? IMPLICIT_DEFAULT, ...(task.Identities ?? [])];
}

/**
 * Identity `name` of task `task` of `group`, or of one of its services (service identities,
 * jobs/consul-identities.ts); `task` `''` names a group's service identity. Undefined: none.
 */
export function findIdentity(group: Pick<TaskGroup, 'Tasks' | 'Services'>, task: string, name: string): WorkloadIdentity | undefined {
  if (task === '') return group.Services?.find((s) => s.Identity?.Name === name)?.Identity ?? undefined;
  const t = group.Tasks.find((x) => x.Name === task);
  if (!t) return undefined;
  return identitiesOf(t).find((i) => i.Name === name) ?? t.Services?.find((s) => s.Identity?.Name === name)?.Identity ?? undefined;
}

/** The allocation an identity is for. */
export interface IdentityAlloc {
  readonly ID: string;
  readonly Namespace: string;
  readonly TaskGroup: string;
  readonly Job: Pick<Job, 'ID' | 'ParentID'>;
}

/** What {@link identityClaims} needs besides the allocation. */
export interface IdentityContext {
  readonly region: string;
  /** `server.oidc_issuer`; absent: no `iss`. */
  readonly issuer?: string;
  /** Signing time, epoch ms. */
  readonly nowMs: number;
}

/**
 * The claims of `identity` of `task` in `alloc` (module doc). A service identity
 * (`ServiceName` set) also carries `cairn_service`, which the discovery service's binding
 * rules select on (the reference's `nomad_service`); `task` is `''` for a group's service.
 */
export function identityClaims(alloc: IdentityAlloc, task: string, identity: WorkloadIdentity, c: IdentityContext): Record<string, unknown> {
  const jobId = alloc.Job.ParentID || alloc.Job.ID;
  const iat = Math.floor(c.nowMs / 1000);
  const aud = identity.Audience && identity.Audience.length > 0 ? identity.Audience : [DEFAULT_AUDIENCE];
  const service = identity.ServiceName;
  return {
    cairn_namespace: alloc.Namespace,
    cairn_job_id: jobId,
    cairn_allocation_id: alloc.ID,
    ...(task !== '' && { cairn_task: task }),
    ...(service !== undefined && { cairn_service: service }),
    sub: [c.region, alloc.Namespace, jobId, alloc.TaskGroup, service ?? task, identity.Name].join(':'),
    // One audience is a string, as the reference's JWT library writes it.
    aud: aud.length === 1 ? aud[0] : aud,
    iat,
    nbf: iat,
    ...(identity.TTL > 0 && { exp: iat + Math.max(1, Math.ceil(identity.TTL / 1e9)) }),
    ...(c.issuer !== undefined && { iss: c.issuer }),
    jti: randomUUID(),
  };
}
