/**
 * Allocations: the minimal model of state.ts `AllocDoc` that CSI volume claims use
 * (reference/sched.md §5). Cairn schedules nothing, so allocations are written directly
 * (Cairn extensions; the reference places them through its scheduler and clients report
 * over RPC), and read with the reference's own routes:
 *
 * ```text
 * PUT      /v1/allocation                      {"Allocation": {..., "Job"?}}        namespace:submit-job   AllocationCreated
 * POST|PUT /v1/allocation/:id/client-status    {"ClientStatus", "ClientDescription"?, "TaskStates"?}  node secret or node:write  AllocationUpdated
 * POST|PUT /v1/allocation/:id/desired-status   {"DesiredStatus", "DesiredDescription"?}  namespace:alloc-lifecycle  AllocationUpdateDesiredStatus
 * GET      /v1/allocations?namespace=&prefix=                                       namespace:read-job     (blocking on allocs)
 * GET      /v1/allocation/:id                                                       namespace:read-job     (blocking on allocs)
 * ```
 *
 * The allocation model (statuses, volume requests, shapes) is alloc.ts; this file adds ACL,
 * storage and HTTP.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ALL_NAMESPACES } from '../acl/index.js';
import { allocStub, checkEnum, CLIENT_STATUSES, decodeVolumes, DESIRED_STATUSES, type StoredAlloc } from '../alloc.js';
import { writeAllocation, type AllocationWrite } from '../csi/alloc-claims.js';
import { jobKey, newEvaluation, type Job, type PlacedAllocFields, type TaskGroup, type TaskState } from '../jobs/types.js';
import { isNodeSecret } from '../node-secret.js';
import { renderFullAlloc, type FullAlloc } from './node-allocations.js';
import { rescheduleEligible } from '../scheduler/reconcile.js';
import { identityOf, requireAllowed, type Ctx, type SchedDeps } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply, type SchedRoute } from '../http.js';
import { decodeGoStruct, queryUuidPrefix, requireBody } from '../request.js';
import { DEFAULT_NAMESPACE, LABEL, T, type NamespaceDoc, type NodeDoc } from '../state.js';

const allocNotFound = () => schedNotFound('alloc not found');

/**
 * `PUT /v1/allocation` (Cairn extension): body `{"Allocation": {Namespace, NodeID, JobID,
 * TaskGroup, Name?, Volumes?, DesiredStatus?, ClientStatus?, DesiredDescription?,
 * ClientDescription?}}`. The namespace is the body's, else `?namespace=`, else `default`.
 * `Job` (Cairn extension kept for tests and tools until every allocation is placed by the
 * scheduler): the job snapshot the allocation runs (jobs/types.ts `Job`), which a client
 * agent reads to run the task group's tasks; it must name `JobID` and have a task group
 * `TaskGroup`, and the allocation then carries `AllocatedResources` from its tasks.
 * Generates `ID` and `EvalID` (UUIDs); `Name` defaults to `<JobID>.<TaskGroup>[0]`,
 * DesiredStatus to `run`, ClientStatus to `pending`. One write labelled `AllocationCreated`.
 * Replies the stored allocation (as the read) with `X-Sched-Index`.
 * @throws 400 `missing allocation`, `missing node ID`, `missing job ID`, `missing task group`,
 *   `namespace "<ns>" does not exist`, `node "<id>" does not exist`, `invalid desired status
 *   "<s>": must be one of …`, `invalid client status …`, `job ID "<j>" does not match the
 *   allocation's job ID`, `job has no task group "<g>"`, volume errors; claim errors (400
 *   `… volume not found`, 409 `… volume max claims reached`, …); 403 without
 *   `namespace:submit-job` in the namespace.
 */
async function createAlloc(ctx: Ctx): Promise<SchedReply> {
  const body = decodeGoStruct(requireBody(ctx), 'structs.AllocationCreateRequest', { Allocation: 'object' });
  if (body.Allocation === null) throw schedBadRequest('missing allocation');
  const a = decodeGoStruct(body.Allocation, 'structs.Allocation', {
    Namespace: 'string', NodeID: 'string', JobID: 'string', TaskGroup: 'string', Name: 'string', Volumes: 'object',
    DesiredStatus: 'string', DesiredDescription: 'string', ClientStatus: 'string', ClientDescription: 'string', Job: 'object',
  }) as Record<string, string> & { Volumes: Record<string, unknown> | null; Job: Record<string, unknown> | null };
  const namespace = a.Namespace || ctx.query.get('namespace') || DEFAULT_NAMESPACE;
  requireAllowed(identityOf(ctx).authorizer.allowNamespaceOperation(namespace, 'submit-job'));
  if (a.NodeID === '') throw schedBadRequest('missing node ID');
  if (a.JobID === '') throw schedBadRequest('missing job ID');
  if (a.TaskGroup === '') throw schedBadRequest('missing task group');
  const desired = a.DesiredStatus || 'run';
  checkEnum('desired status', desired, DESIRED_STATUSES);
  const client = a.ClientStatus || 'pending';
  checkEnum('client status', client, CLIENT_STATUSES);
  const volumes = decodeVolumes(a.Volumes);
  const placed = a.Job === null ? {} : placedFields(a.Job, a.JobID, a.TaskGroup);
  const nowNs = ctx.deps.now() * 1e6;
  const id = randomUUID();
  const evalId = randomUUID();
  const { result } = await writeAllocation(ctx.deps, {
    id,
    label: LABEL.allocCreate,
    build: (_none, read) => {
      if (!read.get<NamespaceDoc>(T.namespaces, namespace)) throw schedBadRequest(`namespace "${namespace}" does not exist`);
      const node = read.get<NodeDoc>(T.nodes, a.NodeID);
      if (!node) throw schedBadRequest(`node "${a.NodeID}" does not exist`);
      return {
        ID: id,
        Namespace: namespace,
        EvalID: evalId,
        Name: a.Name || `${a.JobID}.${a.TaskGroup}[0]`,
        NodeID: a.NodeID,
        NodeName: node.Name,
        JobID: a.JobID,
        TaskGroup: a.TaskGroup,
        DesiredStatus: desired,
        DesiredDescription: a.DesiredDescription,
        ClientStatus: client,
        ClientDescription: a.ClientDescription,
        Volumes: volumes,
        DeploymentID: '',
        CreateTime: nowNs,
        ModifyTime: nowNs,
        ...placed,
      };
    },
  });
  return writeReply(result.ModifyIndex, renderFullAlloc(result));
}

/**
 * The placed fields of an allocation created with a `Job` (jobs/types.ts `PlacedAllocFields`):
 * the job, no task states yet, and each task's CPU and memory as its `AllocatedResources`.
 * @throws 400 `job ID "<j>" does not match the allocation's job ID`, `job has no task group "<g>"`,
 *   `job task group "<g>" must have tasks`, `… every task needs a Name and a Driver`, `… invalid
 *   task name "<t>"` (task names become directory names on the client).
 */
function placedFields(job: Record<string, unknown>, jobId: string, group: string): Partial<PlacedAllocFields> {
  if (job.ID !== jobId) throw schedBadRequest(`job ID "${String(job.ID)}" does not match the allocation's job ID`);
  const groups = Array.isArray(job.TaskGroups) ? (job.TaskGroups as TaskGroup[]) : [];
  const tg = groups.find((g) => g && g.Name === group);
  if (!tg) throw schedBadRequest(`job has no task group "${group}"`);
  if (!Array.isArray(tg.Tasks) || tg.Tasks.length === 0) throw schedBadRequest(`job task group "${group}" must have tasks`);
  for (const t of tg.Tasks as unknown[]) {
    const task = t as Partial<Record<string, unknown>> | null;
    if (typeof task !== 'object' || task === null || typeof task.Name !== 'string' || task.Name === '' || typeof task.Driver !== 'string') {
      throw schedBadRequest(`job task group "${group}": every task needs a Name and a Driver`);
    }
    if (!/^[A-Za-z0-9_.-]+$/.test(task.Name) || task.Name === '.' || task.Name === '..' || task.Name === 'alloc') {
      throw schedBadRequest(`job task group "${group}": invalid task name "${task.Name}"`);
    }
  }
  const tasks: Record<string, { Cpu: { CpuShares: number }; Memory: { MemoryMB: number } }> = {};
  for (const t of tg.Tasks) tasks[t.Name] = { Cpu: { CpuShares: t.Resources?.CPU ?? 100 }, Memory: { MemoryMB: t.Resources?.MemoryMB ?? 300 } };
  return {
    Job: job as unknown as Job,
    TaskStates: null,
    AllocatedResources: { Tasks: tasks, Shared: { DiskMB: tg.EphemeralDisk?.SizeMB ?? 300 } },
  };
}

/**
 * Updates one status field pair of allocation `:id` in a write labelled `label`, after
 * `authorize` passed for the stored allocation; becoming terminal releases its volume claims
 * and becoming live again claims them (csi/alloc-claims.ts). Replies `{"Index": N}` with
 * `X-Sched-Index`. @throws 404 `alloc not found`; what `authorize` throws; claim errors.
 */
async function updateAlloc(
  ctx: Ctx,
  label: string,
  authorize: (alloc: StoredAlloc) => void,
  change: Pick<StoredAlloc, 'ClientStatus' | 'ClientDescription'> | Pick<StoredAlloc, 'DesiredStatus' | 'DesiredDescription'>,
  also?: AllocationWrite['also'],
): Promise<SchedReply> {
  const nowNs = ctx.deps.now() * 1e6;
  const { index } = await writeAllocation(ctx.deps, {
    id: ctx.params.id!,
    label,
    build: (alloc) => {
      if (!alloc) throw allocNotFound();
      authorize(alloc);
      return { ...alloc, ...change, ModifyTime: nowNs };
    },
    also,
  });
  return writeReply(index, { Index: index });
}

/**
 * `POST|PUT /v1/allocation/:id/client-status` (Cairn extension for the reference's
 * `Node.UpdateAlloc` RPC, which a client node makes): body `{"ClientStatus": …,
 * "ClientDescription"?: …, "TaskStates"?: {task: TaskState}}` (jobs/types.ts `TaskState`;
 * absent or null keeps the stored ones); label `AllocationUpdated`. Authorised by the
 * `SecretID` of the allocation's node or a token with `node:write`. An allocation that
 * becomes `failed` gets a pending `alloc-failure` evaluation of its (stored) job in the same
 * write when its group's reschedule policy leaves an attempt and no follow-up evaluation
 * waits already (the reference's `Node.UpdateAlloc` and `RescheduleEligible`), so the scheduler reschedules it (`FollowupEvalID`
 * stays for the scheduler's delayed reschedules, as the reference). @throws 400 `invalid client status "<s>": must be one of pending,
 * running, complete, failed, lost, unknown`, `TaskStates must be an object of task states`;
 * 404 `alloc not found`; 403 without the node's secret or `node:write`.
 */
async function updateClientStatus(ctx: Ctx): Promise<SchedReply> {
  const body = decodeGoStruct(requireBody(ctx), 'structs.AllocClientUpdate', { ClientStatus: 'string', ClientDescription: 'string', TaskStates: 'object' });
  checkEnum('client status', body.ClientStatus as string, CLIENT_STATUSES);
  const states = body.TaskStates as Record<string, unknown> | null;
  if (states && Object.values(states).some((t) => typeof t !== 'object' || t === null || Array.isArray(t) || typeof (t as TaskState).State !== 'string')) {
    throw schedBadRequest('TaskStates must be an object of task states');
  }
  const change = { ClientStatus: body.ClientStatus as string, ClientDescription: body.ClientDescription as string, ...(states && { TaskStates: states as Record<string, TaskState> }) };
  const nowNs = ctx.deps.now() * 1e6;
  return updateAlloc(
    ctx,
    LABEL.allocUpdate,
    (alloc) => {
      if (!isNodeSecret(ctx, alloc.NodeID)) requireAllowed(identityOf(ctx).authorizer.allowNodeWrite());
    },
    change,
    (tx, next, previous) => {
      if (next.ClientStatus !== 'failed' || previous?.ClientStatus === 'failed') return;
      // As the reference's Node.UpdateAlloc: the job as stored now, a group whose reschedule
      // policy leaves an attempt, no follow-up evaluation already waiting.
      const job = tx.get<Job>(T.jobs, jobKey(next.Namespace, next.JobID));
      const tg = job?.TaskGroups.find((g) => g.Name === next.TaskGroup);
      const placed = next as StoredAlloc & Partial<PlacedAllocFields>;
      if (!job || !tg || placed.FollowupEvalID || !rescheduleEligible({ TaskStates: placed.TaskStates ?? null, ModifyTime: next.ModifyTime, RescheduleTracker: placed.RescheduleTracker ?? null }, tg.ReschedulePolicy)) return;
      const ev = newEvaluation(randomUUID(), job, 'alloc-failure', nowNs);
      tx.put(T.evals, ev.ID, ev);
    },
  );
}

/**
 * `POST|PUT /v1/allocation/:id/desired-status` (Cairn extension; the reference's scheduler
 * and `alloc stop` set it): body `{"DesiredStatus": "run"|"stop"|"evict",
 * "DesiredDescription"?: …}`; label `AllocationUpdateDesiredStatus`. @throws 400 `invalid
 * desired status "<s>": must be one of run, stop, evict`; 404 `alloc not found`; 403 without
 * `namespace:alloc-lifecycle` in the allocation's namespace (the reference's `alloc stop` capability).
 */
async function updateDesiredStatus(ctx: Ctx): Promise<SchedReply> {
  const who = identityOf(ctx);
  const body = decodeGoStruct(requireBody(ctx), 'structs.AllocDesiredUpdate', { DesiredStatus: 'string', DesiredDescription: 'string' });
  checkEnum('desired status', body.DesiredStatus as string, DESIRED_STATUSES);
  return updateAlloc(
    ctx,
    LABEL.allocDesired,
    (alloc) => requireAllowed(who.authorizer.allowNamespaceOperation(alloc.Namespace, 'alloc-lifecycle')),
    { DesiredStatus: body.DesiredStatus as string, DesiredDescription: body.DesiredDescription as string },
  );
}

/** Routes of this file (see the module doc). */
export const allocationRoutes: readonly SchedRoute<SchedDeps>[] = [
  {
    pattern: 'allocation',
    synopsis: 'Create an allocation (Cairn extension; the reference places allocations through its scheduler)',
    methods: { PUT: createAlloc },
  },
  {
    pattern: 'allocations',
    synopsis: 'List allocations as stubs; ?namespace= (`*`: every namespace the token may read), ?prefix= (UUID prefix)',
    blocking: [T.allocs],
    methods: {
      /**
       * Stubs in ID order. One namespace needs `namespace:read-job` there (403 otherwise);
       * `*` lists the allocations of every namespace where the token has it.
       */
      GET: async (ctx) => {
        const who = identityOf(ctx);
        const namespace = ctx.query.get('namespace') || DEFAULT_NAMESPACE;
        if (namespace !== ALL_NAMESPACES) requireAllowed(who.authorizer.allowNamespaceOperation(namespace, 'read-job'));
        const prefix = queryUuidPrefix(ctx);
        const readable = new Map<string, boolean>();
        const mayRead = (ns: string) => {
          let ok = readable.get(ns);
          if (ok === undefined) readable.set(ns, (ok = who.authorizer.allowNamespaceOperation(ns, 'read-job')));
          return ok;
        };
        const allocs = ctx.deps.state
          .list<StoredAlloc>(T.allocs)
          .filter((a) => (namespace === ALL_NAMESPACES ? mayRead(a.Namespace) : a.Namespace === namespace) && a.ID.toLowerCase().startsWith(prefix));
        return { body: allocs.map(allocStub), index: ctx.deps.state.tableIndex(T.allocs) };
      },
    },
  },
  {
    pattern: 'allocation/:id',
    synopsis: 'Read an allocation',
    blocking: [T.allocs],
    methods: {
      /** The allocation with its job snapshot and task states (node-allocations.ts `renderFullAlloc`); 404 `alloc not found`; 403 without `namespace:read-job` in its namespace. */
      GET: async (ctx) => {
        const who = identityOf(ctx);
        const alloc = ctx.deps.state.get<FullAlloc>(T.allocs, ctx.params.id!);
        if (!alloc) throw allocNotFound();
        requireAllowed(who.authorizer.allowNamespaceOperation(alloc.Namespace, 'read-job'));
        return { body: renderFullAlloc(alloc), index: alloc.ModifyIndex };
      },
    },
  },
  {
    pattern: 'allocation/:id/client-status',
    synopsis: 'Report an allocation\'s client status (Cairn extension; the reference\'s clients use RPC)',
    methods: { POST: updateClientStatus, PUT: updateClientStatus },
  },
  {
    pattern: 'allocation/:id/desired-status',
    synopsis: 'Set an allocation\'s desired status (Cairn extension)',
    methods: { POST: updateDesiredStatus, PUT: updateDesiredStatus },
  },
];
