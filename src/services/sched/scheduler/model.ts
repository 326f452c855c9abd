/**
 * The shapes a scheduling pass produces (the reference's `structs.Plan` and the reconciler's
 * results): allocation changes, placements to make, the per-group counts the plan endpoint
 * shows (`DesiredTGUpdates`), and the follow-up evaluations to create.
 *
 * @module
 */
import type { Indexed } from '../../../kernel/store/index.js';
import type { AllocMetric, Evaluation, Job, PlacedAllocFields, TaskGroup } from '../jobs/types.js';
import type { StoredAlloc } from '../alloc.js';
import type { SchedAlloc } from './resources.js';
import type { Deployment } from '../deployments/doc.js';

/** An allocation as the scheduler writes it. */
export type NewAlloc = StoredAlloc & PlacedAllocFields;

/** A stored allocation the scheduler reads. */
export type ExistingAlloc = SchedAlloc & Indexed;

/** A change of an existing allocation: the fields to set (`id` names it). */
export interface AllocUpdate {
  readonly id: string;
  /** The node it is on (resources it frees count there). */
  readonly nodeId: string;
  readonly set: Partial<NewAlloc>;
}

/** One allocation to place: its group, name, and the allocation it replaces (lost, migrated, rescheduled, updated). */
export interface Placement {
  readonly tg: TaskGroup;
  readonly name: string;
  readonly previous?: ExistingAlloc;
  /** A failed allocation's replacement: a `RescheduleTracker` event is added and its node avoided. */
  readonly reschedule?: boolean;
  /** System jobs: the node it must go to. */
  readonly nodeId?: string;
  /** The deployment that places it (its `DeploymentID`); absent: none. */
  readonly deploymentId?: string;
  /** Placed as a canary of that deployment (`DeploymentStatus.Canary`). */
  readonly canary?: boolean;
}

/** What a plan writes to deployments: the job's current one created or changed, and older or stopped ones cancelled. */
export interface DeploymentWrites {
  /** Written with its counts recomputed from the allocations after the plan's (deployments/doc.ts `recount`). */
  readonly upsert?: Deployment;
  /** Active deployments to cancel, with their description. */
  readonly cancel: readonly { readonly id: string; readonly description: string }[];
}

/** The reference's `DesiredUpdates` of one task group. */
export interface DesiredUpdates {
  Ignore: number;
  Place: number;
  Migrate: number;
  Stop: number;
  InPlaceUpdate: number;
  DestructiveUpdate: number;
  Canary: number;
  Preemptions: number;
}

/** Zero counts. */
export function noUpdates(): DesiredUpdates {
  return { Ignore: 0, Place: 0, Migrate: 0, Stop: 0, InPlaceUpdate: 0, DestructiveUpdate: 0, Canary: 0, Preemptions: 0 };
}

/** What reconciling a job against its allocations decided (before nodes are chosen). */
export interface Reconciled {
  readonly updates: AllocUpdate[];
  readonly placements: Placement[];
  readonly annotations: Record<string, DesiredUpdates>;
  /** Delayed reschedules: follow-up evaluations with `WaitUntil`. */
  readonly followups: Evaluation[];
  /** Deployment changes (none for system jobs). */
  readonly deployments?: DeploymentWrites;
}

/** A plan: what one evaluation writes. */
export interface Plan {
  readonly evaluation: Evaluation;
  readonly namespace: string;
  readonly jobId: string;
  readonly job: Job | undefined;
  readonly updates: AllocUpdate[];
  readonly places: NewAlloc[];
  readonly annotations: Record<string, DesiredUpdates>;
  /** Groups with placements that found no node. */
  readonly failed: Record<string, AllocMetric>;
  /** Per group, placements that found no node. */
  readonly queued: Record<string, number>;
  readonly followups: Evaluation[];
  readonly deployments?: DeploymentWrites;
}

/** Stop and status texts the reference writes on allocations (`scheduler/reconcile.go`). */
export const ALLOC_TEXT = {
  notNeeded: 'alloc not needed due to job update',
  lost: 'alloc is lost since its node is down',
  migrating: 'alloc is being migrated',
  rescheduled: 'alloc was rescheduled because it failed',
  updating: 'alloc is being updated due to job update',
  nodeTainted: 'alloc not needed as node is tainted',
} as const;
