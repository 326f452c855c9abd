/** The scheduler's job, evaluation and allocation shapes the job screens read (Nomad's JSON field names). */

/** A `GET /v1/jobs` entry. `SubmitTime` is in nanoseconds since the epoch. */
export interface JobStub {
  ID: string;
  Name: string;
  Namespace: string;
  Type: string;
  Priority: number;
  Status: string;
  SubmitTime: number;
  /** Per group, its allocations by client status (the reference's `JobSummary`). */
  JobSummary?: { Summary: Record<string, { Queued: number; Starting: number; Running: number; Complete: number; Failed: number; Lost: number }> };
}

/** A `GET /v1/job/:id/allocations` entry (also `GET /v1/allocations`). */
export interface AllocStub {
  ID: string;
  Name: string;
  Namespace: string;
  NodeName: string;
  JobID: string;
  TaskGroup: string;
  DesiredStatus: string;
  ClientStatus: string;
}

/** A `GET /v1/job/:id/evaluations` entry. */
export interface Evaluation {
  ID: string;
  Status: string;
  TriggeredBy: string;
  Type: string;
  StatusDescription?: string;
}

/** One task's `TaskStates` entry of `GET /v1/allocation/:id`; event `Time` is in nanoseconds. */
interface TaskState {
  State: string;
  Failed: boolean;
  Restarts: number;
  Events: Array<{ Type: string; Time: number; DisplayMessage?: string; Message?: string; ExitCode?: number }> | null;
  /** Cairn's extension: each template's state on the client (never its content). */
  Templates?: TemplateState[];
  /** Cairn's extension: each workload identity's expiry (never its token). */
  Identities?: Array<{ Name: string; Expiration: string | null; FetchedAt: string }>;
}

/** A template's state: `waiting` for data (`Missing` says what), `rendered`, `stale` (a source failing, `Error`). */
export interface TemplateState {
  DestPath: string;
  State: 'waiting' | 'rendered' | 'stale';
  Missing: string[];
  LastRendered: string | null;
  Error?: string;
}

/** A port given to an allocation: `Value` the host port on `HostIP`, `To` the port the task binds (0: the same). */
export interface PortMapping {
  Label: string;
  Value: number;
  To: number;
  HostIP: string;
}

/** `GET /v1/allocation/:id`; `Shared.Ports` only for a group with a network. */
export interface Allocation extends AllocStub {
  NodeID: string;
  TaskStates: Record<string, TaskState> | null;
  AllocatedResources?: { Shared: { Ports?: PortMapping[] | null } } | null;
  Job?: { TaskGroups: Array<{ Name: string; Services?: unknown[] | null; Tasks: Array<{ Services?: unknown[] | null }> }> } | null;
}

/** Whether group `group` of the allocation's job, or one of its tasks, has a `service` block. */
export function allocHasServices(a: Allocation): boolean {
  const g = a.Job?.TaskGroups.find((t) => t.Name === a.TaskGroup);
  return !!g && ((g.Services ?? []).length > 0 || g.Tasks.some((t) => (t.Services ?? []).length > 0));
}

/** Nanoseconds since the epoch as a local date and time ('' for none). */
export function nanoTime(ns: number | undefined): string {
  return ns ? new Date(ns / 1e6).toLocaleString() : '';
}

/** The query string naming a namespace (`?namespace=`), for the job and allocation calls. */
export function nsQuery(ns: string): string {
  return `namespace=${encodeURIComponent(ns)}`;
}
