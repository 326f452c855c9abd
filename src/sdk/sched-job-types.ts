/**
 * Shapes of the scheduler's jobs and evaluations API (reference/sched-workloads.md "Jobs",
 * "Evaluations and placement"): PascalCase as on the wire, durations in integer ns, times in
 * Unix ns. Only the fields a client commonly reads are typed; the rest pass through.
 *
 * @module
 */

/** A constraint (`${attr.kernel.name} = linux`). */
export interface SchedConstraint {
  readonly LTarget?: string;
  readonly RTarget?: string;
  readonly Operand?: string;
}

/** A task as registered (input: any subset; the server applies the defaults). */
export interface SchedTask {
  readonly Name: string;
  readonly Driver: string;
  readonly Config?: Readonly<Record<string, unknown>>;
  readonly Env?: Readonly<Record<string, string>> | null;
  readonly Resources?: { readonly CPU?: number; readonly MemoryMB?: number; readonly MemoryMaxMB?: number; readonly Cores?: number };
  /** ns. */
  readonly KillTimeout?: number;
  readonly KillSignal?: string;
  readonly VolumeMounts?: readonly { readonly Volume: string; readonly Destination: string; readonly ReadOnly?: boolean }[] | null;
  readonly [field: string]: unknown;
}

/** A task group as registered. */
export interface SchedTaskGroup {
  readonly Name: string;
  readonly Count?: number;
  readonly Constraints?: readonly SchedConstraint[] | null;
  readonly Tasks: readonly SchedTask[];
  readonly [field: string]: unknown;
}

/** A job (input: `ID` and `TaskGroups` at least; as read: every field with the reference's defaults). */
export interface SchedJob {
  readonly ID: string;
  readonly Name?: string;
  readonly Namespace?: string;
  readonly Region?: string;
  /** `service` (default), `batch`, `system`, `sysbatch`. */
  readonly Type?: string;
  readonly Priority?: number;
  readonly Datacenters?: readonly string[];
  readonly TaskGroups: readonly SchedTaskGroup[];
  readonly Stop?: boolean;
  /** `pending`, `running` or `dead` (read only). */
  readonly Status?: string;
  readonly Version?: number;
  readonly SubmitTime?: number;
  readonly CreateIndex?: number;
  readonly ModifyIndex?: number;
  readonly JobModifyIndex?: number;
  readonly [field: string]: unknown;
}

/** Per task group allocation counts. */
export interface SchedTaskGroupSummary {
  readonly Queued: number;
  readonly Complete: number;
  readonly Failed: number;
  readonly Running: number;
  readonly Starting: number;
  readonly Lost: number;
  readonly Unknown: number;
}

/** `GET /v1/job/:id/summary`. */
export interface SchedJobSummary {
  readonly JobID: string;
  readonly Namespace: string;
  readonly Summary: Readonly<Record<string, SchedTaskGroupSummary>>;
  readonly Children: { readonly Pending: number; readonly Running: number; readonly Dead: number };
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** An item of `GET /v1/jobs`. */
export interface SchedJobStub {
  readonly ID: string;
  readonly ParentID: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly Datacenters: readonly string[];
  readonly NodePool: string;
  readonly Type: string;
  readonly Priority: number;
  readonly Stop: boolean;
  readonly Status: string;
  readonly StatusDescription: string;
  readonly JobSummary: SchedJobSummary;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly JobModifyIndex: number;
  readonly SubmitTime: number;
}

/** The reply of a register, stop, scale or evaluate. `EvalID` is `''` when no evaluation was made. */
export interface SchedJobWriteReply {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobModifyIndex: number;
  readonly Warnings?: string;
  readonly Index: number;
}

/** One group's or job's change in a plan's `Diff` (the reference's `JobDiff` / `TaskGroupDiff`, at the depth Cairn fills). */
export interface SchedPlanDiffField {
  readonly Type: string;
  readonly Name: string;
  readonly Old: string;
  readonly New: string;
}

/** A nested object of a job diff (the reference's `ObjectDiff`). */
export interface SchedDiffObject {
  readonly Type: string;
  readonly Name: string;
  readonly Fields: readonly SchedPlanDiffField[] | null;
  readonly Objects: readonly SchedDiffObject[] | null;
}

/** A job diff (the reference's `JobDiff`): `Type` `Added`, `Deleted`, `Edited` or `None`; task groups with their tasks and, in a plan, their update counts. */
export interface SchedJobDiff {
  readonly Type: string;
  readonly ID: string;
  readonly Fields: readonly SchedPlanDiffField[] | null;
  readonly Objects?: readonly SchedDiffObject[] | null;
  readonly TaskGroups:
    | readonly (SchedDiffObject & {
        readonly Tasks?: readonly (SchedDiffObject & { readonly Annotations?: readonly string[] | null })[] | null;
        readonly Updates: Readonly<Record<string, number>> | null;
      })[]
    | null;
}

/** The reply of `POST /v1/job/:id/plan` (the reference's `JobPlanResponse`). */
export interface SchedJobPlanReply {
  readonly Annotations: { readonly DesiredTGUpdates: Readonly<Record<string, Readonly<Record<string, number>>>> | null } | null;
  /** Per group that could not be placed, the placement metrics (`NodesEvaluated`, `NodesExhausted`, `DimensionExhausted`, …). */
  readonly FailedTGAllocs: Readonly<Record<string, Readonly<Record<string, unknown>>>> | null;
  /** The job's diff from the stored one; null when not asked for. */
  readonly Diff: SchedJobDiff | null;
  /** The stored job's modify index (0: no such job): what `job run -check-index` takes. */
  readonly JobModifyIndex: number;
  readonly Warnings: string;
}

/** The reply of `POST /v1/job/:id/dispatch` (the reference's `JobDispatchResponse`). */
export interface SchedDispatchReply {
  readonly DispatchedJobID: string;
  /** `""` when no evaluation was made. */
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobCreateIndex: number;
  readonly Index: number;
}

/** Options of a register. */
export interface SchedRegisterOptions {
  /** Register only if the stored job's `JobModifyIndex` is `jobModifyIndex` (0: only if the job does not exist). */
  readonly enforceIndex?: boolean;
  readonly jobModifyIndex?: number;
  /** Groups that exist keep their stored count. */
  readonly preserveCounts?: boolean;
}

/** An evaluation. */
export interface SchedEvaluation {
  readonly ID: string;
  readonly Namespace: string;
  readonly Priority: number;
  readonly Type: string;
  readonly TriggeredBy: string;
  readonly JobID: string;
  readonly JobModifyIndex: number;
  readonly NodeID: string;
  readonly DeploymentID: string;
  /** `pending`, `complete`, `failed`, `blocked`, `canceled`. */
  readonly Status: string;
  readonly StatusDescription: string;
  readonly BlockedEval: string;
  readonly NextEval: string;
  readonly PreviousEval: string;
  readonly FailedTGAllocs: Readonly<Record<string, Readonly<Record<string, unknown>>>> | null;
  readonly QueuedAllocations: Readonly<Record<string, number>> | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** An allocation list item as the job and evaluation routes return them. */
export interface SchedAllocStub {
  readonly ID: string;
  readonly EvalID: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly NodeID: string;
  readonly NodeName: string;
  readonly JobID: string;
  readonly JobVersion: number;
  readonly TaskGroup: string;
  readonly DesiredStatus: string;
  readonly ClientStatus: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly CreateTime: number;
  readonly ModifyTime: number;
  readonly [field: string]: unknown;
}

/** List options of jobs and evaluations: blocking query, namespace (`*` every one), prefix, filter, paging. */
export interface SchedJobListOptions {
  readonly namespace?: string;
  readonly prefix?: string;
  readonly filter?: string;
  readonly perPage?: number;
  readonly nextToken?: string;
  readonly index?: number;
  readonly wait?: string;
}

/** Options of the evaluation list: those of {@link SchedJobListOptions}, plus `status` and `job` (not with `filter`). */
export interface SchedEvalListOptions extends SchedJobListOptions {
  readonly status?: string;
  readonly job?: string;
}
