/**
 * The scheduler's dry run and the allocation stop (reference/sched-workloads.md "Jobs",
 * "Allocations"):
 *
 * ```text
 * POST|PUT /v1/job/:id/plan          {"Job": {...}, "Diff": bool}   namespace:submit-job      (no write)
 * POST|PUT /v1/allocation/:id/stop                                 namespace:alloc-lifecycle AllocationUpdateDesiredStatus
 * ```
 *
 * The plan runs the scheduler's pass (scheduler/schedule.ts) with the submitted job in place
 * of the stored one and writes nothing. The stop marks the allocation to migrate and creates
 * an `alloc-stop` evaluation in the same write; the scheduler stops it and places its
 * replacement (as the reference's `alloc stop`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { jobKey, newEvaluation, type Evaluation, type Job } from '../jobs/types.js';
import { requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { decodeJob } from '../jobs/decode.js';
import { validateJob } from '../jobs/validate.js';
import { withConsulIdentities } from '../jobs/consul-identities.js';
import { specChanged } from '../jobs/write.js';
import { jobDiff } from '../jobs/diff.js';
import { nextLaunch } from '../jobs/periodic.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { computePlan } from '../scheduler/schedule.js';
import { DEFAULT_NAMESPACE, LABEL, T } from '../state.js';
import { decodeGoStruct } from '../go-struct.js';

/**
 * Checks the submitted job's ID and the kinds of the fields before it is decoded as a
 * register decodes it (jobs/decode.ts), with the plan's own texts. @throws 400 `Job ID does
 * not match request path`, `missing job ID`, `job "<id>" has no task groups`, the decoder's
 * texts for fields of the wrong kind, `task group is missing a name`, `… a task is missing
 * its name or driver`.
 */
function checkPlannedJob(raw: Record<string, unknown>, id: string): void {
  const jobId = typeof raw.ID === 'string' ? raw.ID : '';
  if (jobId === '') throw schedBadRequest('missing job ID');
  if (jobId !== id) throw schedBadRequest('Job ID does not match request path');
  if (!Array.isArray(raw.TaskGroups) || raw.TaskGroups.length === 0) throw schedBadRequest(`job "${id}" has no task groups`);
  checkShapes(raw);
}

/** A list of objects of Go type `goType` at `field`, or null. @throws 400 `json: cannot unmarshal <kind> into Go struct field <field> of type []<goType>`. */
function listOf(v: unknown, field: string, goType: string): unknown[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${typeof v} into Go struct field ${field} of type []${goType}`);
  return v;
}

/** Checks the kinds of the fields the scheduler reads (the decoder's texts), so a malformed job is a 400, never a failed pass. */
function checkShapes(raw: Record<string, unknown>): void {
  decodeGoStruct(raw, 'structs.Job', {
    ID: 'string',
    Name: 'string',
    Namespace: 'string',
    Type: 'string',
    Priority: 'int',
    NodePool: 'string',
    Stop: 'bool',
    Datacenters: 'any',
    Constraints: 'any',
    TaskGroups: 'any',
  });
  for (const d of listOf(raw.Datacenters, 'structs.Job.Datacenters', 'string'))
    if (typeof d !== 'string') throw schedBadRequest(`json: cannot unmarshal ${typeof d} into Go struct field structs.Job.Datacenters of type string`);
  const constraints = (v: unknown, field: string) => {
    for (const c of listOf(v, field, '*structs.Constraint'))
      decodeGoStruct(c, 'structs.Constraint', { LTarget: 'string', RTarget: 'string', Operand: 'string' });
  };
  constraints(raw.Constraints, 'structs.Job.Constraints');
  for (const g of listOf(raw.TaskGroups, 'structs.Job.TaskGroups', '*structs.TaskGroup')) {
    const group = decodeGoStruct(g, 'structs.TaskGroup', { Name: 'string', Count: 'int', Constraints: 'any', Volumes: 'object', Tasks: 'any' });
    if (group.Name === '') throw schedBadRequest('task group is missing a name');
    constraints(group.Constraints, 'structs.TaskGroup.Constraints');
    for (const t of listOf(group.Tasks, 'structs.TaskGroup.Tasks', '*structs.Task')) {
      const task = decodeGoStruct(t, 'structs.Task', { Name: 'string', Driver: 'string', Constraints: 'any', Resources: 'object' });
      if (task.Name === '' || task.Driver === '') throw schedBadRequest(`task group "${group.Name as string}": a task is missing its name or driver`);
      constraints(task.Constraints, 'structs.Task.Constraints');
      if (task.Resources !== null) decodeGoStruct(task.Resources, 'structs.Resources', { CPU: 'int', MemoryMB: 'int' });
    }
  }
}

/** A periodic job's next launch after `nowMs` as RFC 3339 (the plan's `NextPeriodicLaunch`); Go's zero time when there is none. */
function nextLaunchText(job: Job, nowMs: number): string {
  const next = job.Periodic && nextLaunch(job.Periodic, nowMs);
  return next === undefined ? '0001-01-01T00:00:00Z' : formatTime(new Date(next));
}

/** `DesiredTGUpdates` counts as the reference's diff `Updates` keys. */
function diffUpdates(u: Record<string, number>): Record<string, number> {
  const keys: Record<string, string> = {
    Place: 'create',
    Stop: 'destroy',
    Migrate: 'migrate',
    InPlaceUpdate: 'in-place update',
    DestructiveUpdate: 'create/destroy update',
    Ignore: 'ignore',
    Canary: 'canary',
  };
  return Object.fromEntries(
    Object.entries(keys)
      .filter(([k]) => (u[k] ?? 0) > 0)
      .map(([k, name]) => [name, u[k]!]),
  );
}

/** The body of a plan (the reference's `structs.JobPlanRequest`; `Job` checked by {@link checkPlannedJob}, whose texts name `structs.Job`). */
const PlanBody = Go.struct('structs.JobPlanRequest', { Job: Go.object('the job (structs.Job)'), Diff: Go.bool(), PolicyOverride: Go.bool() });

/**
 * The plan of the declared body: the job as sent and its namespace (the job's, else
 * `?namespace=`, else `default`). @throws 400 `Request body is empty`, `missing job`.
 */
function planRequest(ctx: Ctx): { body: Static<typeof PlanBody>; raw: Record<string, unknown>; namespace: string } {
  const body = requireInput(ctx.input<Static<typeof PlanBody>>());
  // Null when absent (Go's zero value), though the declared type cannot say so.
  if (body.Job === null) throw schedBadRequest('missing job');
  const raw = body.Job as Record<string, unknown>;
  return { body, raw, namespace: (typeof raw.Namespace === 'string' && raw.Namespace) || ctx.query.get('namespace') || DEFAULT_NAMESPACE };
}

/** `submit-job` in the planned job's namespace; the body's decode 400s first. */
const planAccess = (ctx: Ctx): SchedAccess => ({ namespace: planRequest(ctx).namespace, anyOf: ['submit-job'] });

/**
 * `alloc-lifecycle` in the namespace of allocation `:id`, looked up once the token resolved.
 * @throws 404 `alloc not found`.
 */
function stopAccess(ctx: Ctx): SchedAccess {
  return {
    namespace: () => {
      const a = ctx.deps.state.get<StoredAlloc>(T.allocs, ctx.params.id!);
      if (!a) throw schedNotFound('alloc not found');
      return a.Namespace;
    },
    anyOf: ['alloc-lifecycle'],
  };
}

/**
 * `POST|PUT /v1/job/:id/plan` (the reference's `Job.Plan`): body `{"Job": {...}, "Diff":
 * bool}`; the job's namespace, else `?namespace=`, else `default`. Replies
 * `{"Annotations": {"DesiredTGUpdates": {group: {Place, Stop, Migrate, InPlaceUpdate,
 * DestructiveUpdate, Ignore, Canary, Preemptions}}}, "FailedTGAllocs": {group: AllocMetric} |
 * null, "Diff": JobDiff | null, "JobModifyIndex": the stored job's (0: none), "CreatedEvals":
 * null, "NextPeriodicLaunch", "Warnings": "", "Index"}`. Writes nothing.
 * @throws 400 `missing job`, the texts of {@link checkPlannedJob} and of a register's checks; 403 without
 * `namespace:submit-job`.
 */
async function planJob(ctx: Ctx): Promise<SchedReply> {
  const { body, raw, namespace } = planRequest(ctx);
  checkPlannedJob(raw, ctx.params.id!);
  // Canonicalized as a register would store it, so an unchanged job file plans as unchanged.
  const decoded = decodeJob(raw, { namespace, region: ctx.deps.config.region });
  validateJob(decoded, ctx.deps.config.region);
  // With the identities a register adds, so an unchanged job plans as unchanged.
  const submitted = withConsulIdentities(decoded, ctx.deps.config.consulIdentities);
  const state = ctx.deps.state;
  const stored = state.get<Job>(T.jobs, jobKey(namespace, submitted.ID));
  const same = stored !== undefined && !specChanged(stored, submitted);
  // An unchanged job keeps its version: its allocations are not updated.
  const job: Job = {
    ...submitted,
    JobModifyIndex: same ? stored.JobModifyIndex : (stored?.JobModifyIndex ?? 0) + 1,
    Version: stored ? stored.Version + (same ? 0 : 1) : 0,
  };
  const nowNs = ctx.deps.now() * 1e6;
  const evaluation = newEvaluation(randomUUID(), job, { triggeredBy: 'job-register', nowNs });
  const plan = computePlan(ctx.deps, state, evaluation, { nowNs, jobOverride: job });
  const updates = Object.fromEntries(Object.entries(plan.annotations).map(([g, u]) => [g, diffUpdates(u as unknown as Record<string, number>)]));
  return {
    body: {
      Annotations: { DesiredTGUpdates: plan.annotations, PreemptedAllocs: null },
      FailedTGAllocs: Object.keys(plan.failed).length > 0 ? plan.failed : null,
      Diff: body.Diff ? jobDiff(stored, job, { contextual: false, updates }) : null,
      JobModifyIndex: stored?.JobModifyIndex ?? 0,
      CreatedEvals: null,
      NextPeriodicLaunch: nextLaunchText(job, ctx.deps.now()),
      Warnings: '',
      Index: stored?.JobModifyIndex ?? 0,
    },
    headers: { 'X-Sched-Index': String(state.index) },
  };
}

/**
 * `POST|PUT /v1/allocation/:id/stop` (the reference's `Alloc.Stop`): sets
 * `DesiredTransition.Migrate` on the allocation and creates an `alloc-stop` evaluation for its
 * job in one write labelled `AllocationUpdateDesiredStatus`. Replies `{"EvalID", "Index"}`.
 * @throws 404 `alloc not found`; 400 `alloc is already terminal` (nothing to stop); 403
 * without `namespace:alloc-lifecycle` in the allocation's namespace.
 */
async function stopAlloc(ctx: Ctx): Promise<SchedReply> {
  const nowNs = ctx.deps.now() * 1e6;
  const evalId = randomUUID();
  const { index } = await ctx.deps.state.txn((tx) => {
    const a = tx.get<StoredAlloc>(T.allocs, ctx.params.id!);
    if (!a) throw schedNotFound('alloc not found');
    if (allocTerminal(a)) throw schedBadRequest('alloc is already terminal');
    tx.put<StoredAlloc>(T.allocs, a.ID, {
      ...a,
      DesiredTransition: { Migrate: true, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null },
      ModifyTime: nowNs,
    });
    const job = tx.get<Job>(T.jobs, jobKey(a.Namespace, a.JobID)) ??
      a.Job ?? { ID: a.JobID, Namespace: a.Namespace, Type: 'service', Priority: 50, JobModifyIndex: 0 };
    tx.put<Evaluation>(T.evals, evalId, newEvaluation(evalId, job, { triggeredBy: 'alloc-stop', nowNs }));
  }, LABEL.allocDesired);
  return writeReply(index, { EvalID: evalId, Index: index });
}

/** Routes of this file (see the module doc). */
export const jobPlanRoutes: readonly SchedRoute[] = [
  {
    pattern: 'job/:id+/plan',
    synopsis: 'Dry-run the scheduler for a job: what would be placed, stopped, updated; changes nothing',
    methods: { POST: { access: planAccess, body: PlanBody, handle: planJob }, PUT: { access: planAccess, body: PlanBody, handle: planJob } },
  },
  {
    pattern: 'allocation/:id/stop',
    synopsis: 'Stop an allocation: the scheduler replaces it',
    methods: { POST: { access: stopAccess, handle: stopAlloc }, PUT: { access: stopAccess, handle: stopAlloc } },
  },
];
