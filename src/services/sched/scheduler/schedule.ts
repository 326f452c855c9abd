/**
 * One scheduling pass: the plan of an evaluation, from the state as it is now (the
 * reference's `Scheduler.Process` up to `SubmitPlan`). `service` and `batch` jobs go
 * through reconcile.ts, `system` jobs through system.ts, then nodes are chosen (place.ts).
 * The plan endpoint runs the same pass with the submitted job instead of the stored one.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Reader } from '../csi/alloc-claims.js';
import type { SchedDeps } from '../service-deps.js';
import { jobKey, type Evaluation, type Job } from '../jobs/types.js';
import { T, type NodeDoc } from '../state.js';
import { allocTerminal } from '../alloc.js';
import type { ExistingAlloc, Plan } from './model.js';
import { placeAll } from './place.js';
import { reconcileGeneric } from './reconcile.js';
import { reconcileSystem } from './system.js';
import type { StoredDeployment } from '../deployments/doc.js';

/** When a plan is computed, and for which job. */
export interface PlanRun {
  /** Unix time in ns. */
  readonly nowNs: number;
  /** Replaces the stored job (the plan endpoint's dry run); absent: the stored job. */
  readonly jobOverride?: Job | undefined;
}

/**
 * The plan of `evaluation` against `read` at `run.nowNs`, for `run.jobOverride` when given.
 * A job type without a scheduler here (`sysbatch`) is scheduled as `batch`.
 */
export function computePlan(deps: SchedDeps, read: Reader, evaluation: Evaluation, { nowNs, jobOverride }: PlanRun): Plan {
  const job = jobOverride ?? read.get<Job>(T.jobs, jobKey(evaluation.Namespace, evaluation.JobID));
  const all = read.list<ExistingAlloc>(T.allocs);
  // An allocation without its job (stored by an older Cairn through the removed `PUT /v1/allocation`) is not the scheduler's to change.
  const allocs = all.filter((a) => a.JobID === evaluation.JobID && a.Namespace === evaluation.Namespace && a.Job !== undefined);
  const nodes = new Map(read.list<NodeDoc>(T.nodes).map((n) => [n.ID, n]));
  const system = (job?.Type ?? evaluation.Type) === 'system';
  const deployments = read.list<StoredDeployment>(T.deployments).filter((d) => d.JobID === evaluation.JobID && d.Namespace === evaluation.Namespace);
  const reconciled = system ? reconcileSystem(job, allocs, nodes) : reconcileGeneric(job, allocs, { evaluation, nodes, nowNs, newId: randomUUID, deployments });
  if (!job || reconciled.placements.length === 0) {
    return {
      evaluation,
      namespace: evaluation.Namespace,
      jobId: evaluation.JobID,
      job,
      updates: reconciled.updates,
      places: [],
      annotations: reconciled.annotations,
      failed: {},
      queued: {},
      followups: reconciled.followups,
      deployments: reconciled.deployments,
    };
  }
  return placeAll(reconciled, { deps, read, evaluation, job, nodes, allocs: all.filter((a) => !allocTerminal(a)), nowNs });
}
