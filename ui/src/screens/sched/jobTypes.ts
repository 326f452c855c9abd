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
}

/** `GET /v1/allocation/:id`. */
export interface Allocation extends AllocStub {
  NodeID: string;
  TaskStates: Record<string, TaskState> | null;
}

/** Nanoseconds since the epoch as a local date and time ('' for none). */
export function nanoTime(ns: number | undefined): string {
  return ns ? new Date(ns / 1e6).toLocaleString() : '';
}

/** The query string naming a namespace (`?namespace=`), for the job and allocation calls. */
export function nsQuery(ns: string): string {
  return `namespace=${encodeURIComponent(ns)}`;
}
