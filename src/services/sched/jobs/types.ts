/**
 * The scheduler's workload model: the shapes of jobs, task groups, tasks, evaluations and
 * task states, as the reference's API shows them (PascalCase, durations in integer
 * nanoseconds, times in Unix nanoseconds; reference/sched-workloads.md "The Job object",
 * "Evaluations and placement", "Allocations"). This file is the contract between the jobs
 * API (jobs/), the scheduler on the leader (scheduler/) and the client agent (client/):
 * each reads and writes these documents through the state store, never each other's code.
 *
 * Stored documents:
 * - `T.jobs`, key `<namespace>/<job id>`: a {@link Job} with the reference's defaults applied
 *   on register, `Version` counting from 0.
 * - `T.jobVersions`, key `<namespace>/<job id>/<version, 20-digit zero padded>`: the job as it
 *   was registered at that version (the reference keeps the last 6).
 * - `T.evals`, key the evaluation ID: an {@link Evaluation}. Writers that need the scheduler
 *   to act write one with `Status: "pending"` in the same transaction as their change; the
 *   leader's evaluation broker picks every pending evaluation from the table.
 * - `T.allocs` (state.ts `AllocDoc`): an allocation placed by the scheduler carries
 *   `Job` (the job snapshot it runs), `TaskStates`, `AllocatedResources` and the reschedule
 *   links below.
 *
 * @module
 */
import type { Service } from './services.js';
import type { NetworkResource, PortMapping } from './network.js';
import type { Template } from './templates.js';
import type { ConsulBlock } from './consul.js';
import type { WorkloadIdentity } from './workload-identity.js';

/** Nanoseconds in one second: the unit of every duration in job JSON. */
export const NS_PER_SECOND = 1_000_000_000;

/** Job types (reference: `service` default, `batch`, `system`, `sysbatch`). */
export const JOB_TYPES = ['service', 'batch', 'system', 'sysbatch'] as const;

/** A constraint (`${attr.kernel.name} = linux`); `Operand` as the reference spells them (`=`, `!=`, `regexp`, `distinct_hosts`, …). */
export interface Constraint {
  readonly LTarget: string;
  readonly RTarget: string;
  readonly Operand: string;
}

/** Restart policy of a task group; durations in ns; `Mode` `fail` or `delay`. */
export interface RestartPolicy {
  readonly Attempts: number;
  readonly Interval: number;
  readonly Delay: number;
  readonly Mode: string;
  readonly RenderTemplates: boolean;
}

/** Reschedule policy of a task group; durations in ns; `DelayFunction` `constant`, `exponential` or `fibonacci`. */
export interface ReschedulePolicy {
  readonly Attempts: number;
  readonly Interval: number;
  readonly Delay: number;
  readonly DelayFunction: string;
  readonly MaxDelay: number;
  readonly Unlimited: boolean;
}

/** A task's resources: CPU in MHz, memory in MiB (reference `Resources`). */
export interface Resources {
  readonly CPU: number;
  readonly Cores: number;
  readonly MemoryMB: number;
  readonly MemoryMaxMB: number;
  readonly DiskMB: number | null;
}

/** A task's volume mount: the group volume `Volume` mounted at `Destination` inside the task's directory. */
export interface VolumeMount {
  readonly Volume: string;
  readonly Destination: string;
  readonly ReadOnly: boolean;
  readonly PropagationMode: string;
}

/** A volume request of a task group and of the allocations placed from it, normalised (reference/sched.md §5; alloc.ts `decodeVolumes`). */
export interface VolumeRequest {
  readonly Name: string;
  /** `csi` or `host`. */
  readonly Type: string;
  /** The volume ID (CSI) or host volume name; with `PerAlloc` the claim adds `[<alloc index>]`. */
  readonly Source: string;
  readonly ReadOnly: boolean;
  readonly AccessMode: string;
  readonly AttachmentMode: string;
  readonly MountOptions: { readonly FsType: string; readonly MountFlags: readonly string[] | null } | null;
  readonly PerAlloc: boolean;
}

/** Log rotation of a task: at most `MaxFiles` files of `MaxFileSizeMB` MiB per stream. */
export interface LogConfig {
  readonly MaxFiles: number;
  readonly MaxFileSizeMB: number;
  readonly Disabled: boolean;
}

/** A workload identity (jobs/workload-identity.ts; its own module so services.ts can name it without an import circle). */
export type { WorkloadIdentity };

/**
 * A task's `vault` block (reference `structs.Vault`, reference/integration.md §4; jobs/vault.ts):
 * the client logs in at the secrets service's JWT auth method with the task's `vault_default`
 * identity and hands the token to the task (client/secrets-token.ts).
 */
export interface TaskVault {
  /** The JWT auth method's role; empty: the client's `vault.create_from_role`, else the method's `default_role`. */
  readonly Role: string;
  /** Legacy token flow only: ignored with workload identities (a warning at submit), kept as given. */
  readonly Policies: readonly string[] | null;
  /** The secrets service namespace the login is made in; empty: the client's `vault.namespace`. */
  readonly Namespace: string;
  /** The client's `vault` block this task uses; only `default`. */
  readonly Cluster: string;
  /** `restart` (default), `signal` (with `ChangeSignal`) or `noop`: what a new token (after a re-login) does to the task. */
  readonly ChangeMode: string;
  readonly ChangeSignal: string;
  /** `VAULT_TOKEN` in the task's environment (default true). */
  readonly Env: boolean;
  /** No `secrets/vault_token` file (default false). */
  readonly DisableFile: boolean;
  /** Do not renew the token (default false; a non-renewable token is never renewed). */
  readonly AllowTokenExpiration: boolean;
  /** Cairn: revoke the token when the task ends (default true). */
  readonly AllowTokenRevocation: boolean;
}

/** A task (reference `structs.Task`); `Config` is driver-specific (`raw_exec`/`exec`: `command`, `args`). */
export interface Task {
  readonly Name: string;
  readonly Driver: string;
  readonly User: string;
  readonly Config: Readonly<Record<string, unknown>>;
  readonly Env: Readonly<Record<string, string>> | null;
  readonly Constraints: readonly Constraint[] | null;
  readonly Resources: Resources;
  readonly Meta: Readonly<Record<string, string>> | null;
  /** ns; default 5 s. */
  readonly KillTimeout: number;
  /** Signal name sent first on stop (default `SIGINT`, as the reference's raw_exec/exec). */
  readonly KillSignal: string;
  readonly LogConfig: LogConfig;
  readonly VolumeMounts: readonly VolumeMount[] | null;
  readonly Leader: boolean;
  readonly Lifecycle: { readonly Hook: string; readonly Sidecar: boolean } | null;
  /** Registered in the discovery service while the task runs (jobs/services.ts); absent on jobs stored before services existed. */
  readonly Services?: readonly Service[] | null;
  /** ns between deregistering the task's services and its kill signal; absent: 0. */
  readonly ShutdownDelay?: number;
  /** Files (and environment) rendered from the discovery and secrets services (jobs/templates.ts); absent: none (and on jobs stored before templates existed). */
  readonly Templates?: readonly Template[];
  /** The default identity as the job set it (`identity` without a name); absent/null: the default's defaults (not exposed to the task). */
  readonly Identity?: WorkloadIdentity | null;
  /** Named identities (`identity { name = … }`). */
  readonly Identities?: readonly WorkloadIdentity[] | null;
  /** The secrets token the client obtains for the task (jobs/vault.ts); absent: none (and on jobs stored before it existed). */
  readonly Vault?: TaskVault;
  /** The task's `consul` block (jobs/consul.ts); absent: the group's, if any. */
  readonly Consul?: ConsulBlock | null;
  /** Node preferences of this task (jobs/preferences.ts); absent: none. */
  readonly Affinities?: readonly Affinity[];
  /** Where a dispatched job's payload is written, under the task's `local/` (jobs/parameterized.ts); absent: nowhere. */
  readonly DispatchPayload?: { readonly File: string };
}

/** The reference's `ParameterizedJobConfig` (jobs/parameterized.ts): `Payload` `optional` (default), `required` or `forbidden`; the meta keys a dispatch must and may give. */
export interface ParameterizedJobConfig {
  readonly Payload: string;
  readonly MetaRequired: readonly string[] | null;
  readonly MetaOptional: readonly string[] | null;
}

/** The reference's `PeriodicConfig` (JSON; jobs/periodic.ts): `Specs` the cron expressions (`Spec` the older single one), `SpecType` `cron`. */
export interface PeriodicConfig {
  readonly Enabled: boolean;
  readonly Spec: string;
  readonly Specs: readonly string[] | null;
  readonly SpecType: string;
  readonly ProhibitOverlap: boolean;
  readonly TimeZone: string;
}

/** The reference's `Affinity` (jobs/preferences.ts). */
export interface Affinity {
  readonly LTarget: string;
  readonly RTarget: string;
  readonly Operand: string;
  readonly Weight: number;
}

/** The reference's `Spread` (jobs/preferences.ts); `SpreadTarget` null: spread evenly over the attribute's values. */
export interface Spread {
  readonly Attribute: string;
  readonly Weight: number;
  readonly SpreadTarget: readonly { readonly Value: string; readonly Percent: number }[] | null;
}

/** A task group (reference `structs.TaskGroup`). */
export interface TaskGroup {
  readonly Name: string;
  readonly Count: number;
  readonly Constraints: readonly Constraint[] | null;
  readonly RestartPolicy: RestartPolicy;
  readonly ReschedulePolicy: ReschedulePolicy | null;
  readonly EphemeralDisk: { readonly Sticky: boolean; readonly SizeMB: number; readonly Migrate: boolean };
  readonly Volumes: Readonly<Record<string, VolumeRequest>> | null;
  readonly Meta: Readonly<Record<string, string>> | null;
  /** The group's network and its ports (jobs/network.ts); absent: none (and on jobs stored before groups had networks). */
  readonly Networks?: readonly NetworkResource[];
  readonly Tasks: readonly Task[];
  /** Node preferences of the group (jobs/preferences.ts); absent: none. */
  readonly Affinities?: readonly Affinity[];
  /** How the group's allocations spread over a node attribute (jobs/preferences.ts); absent: none. */
  readonly Spreads?: readonly Spread[];
  /** Registered in the discovery service while the allocation runs (jobs/services.ts); absent on jobs stored before services existed. */
  readonly Services?: readonly Service[] | null;
  /** ns between deregistering the group's services and its tasks' kill signal; null: none. */
  readonly ShutdownDelay?: number | null;
  /** The group's `consul` block (jobs/consul.ts), for its tasks without one and its services. */
  readonly Consul?: ConsulBlock | null;
  /**
   * The group's update strategy: the job's `Update` with the group's own `update` block
   * over it (jobs/update.ts `groupUpdate` reads it); absent on groups stored before
   * deployments existed and on jobs that are not `service` jobs.
   */
  readonly Update?: UpdateStrategy | null;
}

/**
 * How a service job's changes roll out (the reference's `structs.UpdateStrategy`; its
 * `update` block). Durations in ns. `MaxParallel` 0: no deployment (every allocation is
 * replaced at once, as before deployments).
 */
export interface UpdateStrategy {
  readonly Stagger: number;
  readonly MaxParallel: number;
  /** `checks`, `task_states` or `manual`. */
  readonly HealthCheck: string;
  readonly MinHealthyTime: number;
  readonly HealthyDeadline: number;
  readonly ProgressDeadline: number;
  readonly AutoRevert: boolean;
  readonly AutoPromote: boolean;
  readonly Canary: number;
}

/**
 * An allocation's place in its deployment (the reference's `AllocDeploymentStatus`, whose
 * `ModifyIndex` the API adds from the allocation's): `Healthy` null until the client (or
 * `allocation-health`) decides; `Timestamp` RFC 3339 of that decision; `Canary` set by the
 * scheduler when it placed the allocation as a canary.
 */
export interface AllocDeploymentStatus {
  readonly Healthy: boolean | null;
  readonly Timestamp: string;
  readonly Canary: boolean;
}

/** A job (reference `structs.Job`); times in Unix ns. */
export interface Job {
  readonly ID: string;
  readonly ParentID: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly Region: string;
  readonly Type: string;
  readonly Priority: number;
  readonly AllAtOnce: boolean;
  readonly Datacenters: readonly string[];
  readonly NodePool: string;
  readonly Constraints: readonly Constraint[] | null;
  readonly Meta: Readonly<Record<string, string>> | null;
  readonly Update: Readonly<Record<string, unknown>> | null;
  readonly TaskGroups: readonly TaskGroup[];
  /** A parameterized job's block (jobs/parameterized.ts): never scheduled itself, dispatched; absent: an ordinary job. */
  readonly ParameterizedJob?: ParameterizedJobConfig;
  /** Node preferences of every group (jobs/preferences.ts); absent: none. */
  readonly Affinities?: readonly Affinity[];
  /** How every group's allocations spread over a node attribute (jobs/preferences.ts); absent: none. */
  readonly Spreads?: readonly Spread[];
  /** A periodic job's block (jobs/periodic.ts): never scheduled itself, the leader launches children; absent: an ordinary job. */
  readonly Periodic?: PeriodicConfig;
  /** A child of a parameterized job's dispatch. */
  readonly Dispatched?: boolean;
  /** A dispatched job's payload in base64 (≤ 16 KiB decoded); absent or null: none. */
  readonly Payload?: string | null;
  readonly Stop: boolean;
  readonly Status: string;
  readonly StatusDescription: string;
  readonly Stable: boolean;
  readonly Version: number;
  readonly SubmitTime: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly JobModifyIndex: number;
}

/** Placement failure metrics of one task group (reference `structs.AllocMetric`, the fields Cairn fills). */
export interface AllocMetric {
  readonly NodesEvaluated: number;
  readonly NodesFiltered: number;
  readonly NodesInPool: number;
  readonly NodesAvailable: Readonly<Record<string, number>>;
  readonly ClassFiltered: Readonly<Record<string, number>> | null;
  readonly ConstraintFiltered: Readonly<Record<string, number>> | null;
  readonly NodesExhausted: number;
  readonly ClassExhausted: Readonly<Record<string, number>> | null;
  readonly DimensionExhausted: Readonly<Record<string, number>> | null;
  readonly QuotaExhausted: readonly string[] | null;
  readonly Scores: Readonly<Record<string, number>> | null;
  readonly CoalescedFailures: number;
}

/** An evaluation (reference `structs.Evaluation`); times in Unix ns. */
export interface Evaluation {
  readonly ID: string;
  readonly Namespace: string;
  readonly Priority: number;
  readonly Type: string;
  /** `job-register`, `job-deregister`, `node-update`, `node-drain`, `alloc-failure`, `alloc-stop`, `job-scaling`, `queued-allocs`, `failed-follow-up`, … */
  readonly TriggeredBy: string;
  readonly JobID: string;
  readonly JobModifyIndex: number;
  readonly NodeID: string;
  readonly NodeModifyIndex: number;
  readonly Status: string;
  readonly StatusDescription: string;
  /** ns: a follow-up evaluation is not run before this (reschedule delay). */
  readonly WaitUntil: number | null;
  readonly NextEval: string;
  readonly PreviousEval: string;
  readonly BlockedEval: string;
  readonly FailedTGAllocs: Readonly<Record<string, AllocMetric>> | null;
  readonly QueuedAllocations: Readonly<Record<string, number>> | null;
  /** The deployment a `deployment-watcher` evaluation is for; absent: none (rendered `""`). */
  readonly DeploymentID?: string;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** One task event (reference `structs.TaskEvent`); `Time` in Unix ns. */
export interface TaskEvent {
  /** `Received`, `Task Setup`, `Driver`, `Started`, `Terminated`, `Restarting`, `Not Restarting`, `Killing`, `Killed`, `Sibling Task Failed`, `Driver Failure`, … */
  readonly Type: string;
  readonly Time: number;
  readonly Message: string;
  readonly DisplayMessage: string;
  readonly Details: Readonly<Record<string, string>>;
  readonly ExitCode: number;
  readonly Signal: number;
  readonly RestartReason: string;
  readonly KillTimeout: number;
  readonly DriverError: string;
  readonly FailsTask: boolean;
}

/** A task's state on its client (reference `structs.TaskState`); times RFC 3339 strings as the reference's JSON, `null` when unset. */
export interface TaskState {
  readonly State: string;
  readonly Failed: boolean;
  readonly Restarts: number;
  readonly LastRestart: string | null;
  readonly StartedAt: string | null;
  readonly FinishedAt: string | null;
  readonly Events: readonly TaskEvent[];
  /** Cairn's extension (absent in the reference): the task's templates as the client last rendered them. */
  readonly Templates?: readonly TaskTemplateState[];
  /** Cairn's extension: the task's workload identities as last fetched (never their tokens). */
  readonly Identities?: readonly TaskIdentityState[];
}

/** A template's state on the client (issue 27 scope 8). Never holds rendered content. */
export interface TaskTemplateState {
  /** The template's `destination` as registered. */
  readonly DestPath: string;
  /** `waiting` (its first render waits for data), `rendered`, or `stale` (a source is failing; the last render stays). */
  readonly State: 'waiting' | 'rendered' | 'stale';
  /** What a waiting template waits for (`secret.read(secret/data/web)`), or what a stale one cannot reach. */
  readonly Missing: readonly string[];
  /** RFC 3339 of the last render that changed the file (or environment); null before the first. */
  readonly LastRendered: string | null;
  /** The last error of a source, if it is failing now (no secret in it). */
  readonly Error?: string;
}

/** A workload identity's state on the client (issue 27 scope 8). */
export interface TaskIdentityState {
  readonly Name: string;
  /** RFC 3339 expiry of the token in place, null for one without expiry. */
  readonly Expiration: string | null;
  /** RFC 3339 of its last fetch. */
  readonly FetchedAt: string;
}

/** Resources the scheduler set aside for an allocation (reference `AllocatedResources`, the fields Cairn fills). */
export interface AllocatedResources {
  readonly Tasks: Readonly<Record<string, { readonly Cpu: { readonly CpuShares: number }; readonly Memory: { readonly MemoryMB: number } }>>;
  /** `Ports` and `Networks` (the group network with its ports chosen: scheduler/ports.ts) are absent on allocations of groups without a network. */
  readonly Shared: { readonly DiskMB: number; readonly Ports?: readonly PortMapping[]; readonly Networks?: readonly NetworkResource[] };
}

/** The reschedule history of an allocation (reference `RescheduleTracker`). */
interface RescheduleTracker {
  readonly Events: readonly { readonly RescheduleTime: number; readonly PrevAllocID: string; readonly PrevNodeID: string; readonly Delay: number }[];
}

/**
 * What the servers asked of an allocation beyond its desired status (reference
 * `DesiredTransition`): `Migrate` set by a node drain or `alloc stop` makes the scheduler place
 * a replacement and stop it. `null`: not asked.
 */
interface DesiredTransition {
  readonly Migrate: boolean | null;
  readonly Reschedule: boolean | null;
  readonly ForceReschedule: boolean | null;
  readonly NoShutdownDelay: boolean | null;
}

/** The fields a placed allocation adds to state.ts `AllocDoc`. */
export interface PlacedAllocFields {
  readonly NodeName: string;
  readonly Job: Job;
  readonly TaskStates: Readonly<Record<string, TaskState>> | null;
  readonly AllocatedResources: AllocatedResources;
  readonly PreviousAllocation: string;
  readonly NextAllocation: string;
  readonly FollowupEvalID: string;
  readonly RescheduleTracker: RescheduleTracker | null;
  readonly AllocModifyIndex: number;
  /** Absent on allocations written before the scheduler set it (read as nothing asked). */
  readonly DesiredTransition?: DesiredTransition;
  /**
   * Task name → the JWT of its default identity, signed when the plan was applied
   * (keyring/alloc-identities.ts). A credential: only the allocation's own node is shown it.
   */
  readonly SignedIdentities?: Readonly<Record<string, string>>;
  /** How the node was chosen (the reference's `AllocMetric` with `ScoreMetaData`); absent on allocations placed before it was kept. */
  readonly Metrics?: AllocMetric & { readonly ScoreMetaData: readonly NodeScoreMeta[] };
  /** Its health in its deployment (`DeploymentID`); absent or null: not decided, or no deployment. */
  readonly DeploymentStatus?: AllocDeploymentStatus | null;
}

/** One node's scores in a placement (the reference's `NodeScoreMeta`): each scorer's by name (`binpack`, `job-anti-affinity`, `node-affinity`, `allocation-spread`, `node-reschedule-penalty`) and their average. */
export interface NodeScoreMeta {
  readonly NodeID: string;
  readonly Scores: Readonly<Record<string, number>>;
  readonly NormScore: number;
}

/** Key of a job in `T.jobs`. */
export const jobKey = (namespace: string, id: string): string => `${namespace}/${id}`;
/** Key of a job version in `T.jobVersions` (zero padded so keys sort by version). */
export const jobVersionKey = (namespace: string, id: string, version: number): string => `${namespace}/${id}/${String(version).padStart(20, '0')}`;

/** What made an evaluation and when. */
export interface EvalTrigger {
  /** The evaluation's `TriggeredBy` (`job-register`, `node-update`, …). */
  readonly triggeredBy: string;
  /** Unix time in ns: its `CreateTime` and `ModifyTime`. */
  readonly nowNs: number;
}

/**
 * A new pending evaluation for `job` (or a deleted job's namespace, ID, type and priority),
 * to be written in the same transaction as the change that triggered it.
 *
 * @param id a fresh UUID
 */
export function newEvaluation(
  id: string,
  job: Pick<Job, 'ID' | 'Namespace' | 'Type' | 'Priority' | 'JobModifyIndex'>,
  { triggeredBy, nowNs }: EvalTrigger,
  extra: Partial<Pick<Evaluation, 'NodeID' | 'NodeModifyIndex' | 'WaitUntil' | 'PreviousEval' | 'Status' | 'StatusDescription' | 'DeploymentID'>> = {},
): Evaluation {
  return {
    ID: id,
    Namespace: job.Namespace,
    Priority: job.Priority,
    Type: job.Type,
    TriggeredBy: triggeredBy,
    JobID: job.ID,
    JobModifyIndex: job.JobModifyIndex,
    NodeID: '',
    NodeModifyIndex: 0,
    Status: 'pending',
    StatusDescription: '',
    WaitUntil: null,
    NextEval: '',
    PreviousEval: '',
    BlockedEval: '',
    FailedTGAllocs: null,
    QueuedAllocations: null,
    CreateTime: nowNs,
    ModifyTime: nowNs,
    ...extra,
  };
}
