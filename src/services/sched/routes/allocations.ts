/**
 * Allocations as the API reads them, and the client's status report. The scheduler places
 * allocations (scheduler/); a client node reports on them through `client-status` (a Cairn
 * route for the reference's `Node.UpdateAlloc` RPC); `/v1/allocation/:id/stop` is
 * routes/job-plan.ts.
 *
 * ```text
 * POST|PUT /v1/allocation/:id/client-status    {"ClientStatus", "ClientDescription"?, "TaskStates"?, "DeploymentStatus"?}  node secret or node:write  AllocationUpdated
 * GET      /v1/allocations?namespace=&prefix=&resources=                            namespace:read-job     (blocking on allocs)
 * GET      /v1/allocation/:id                                                       namespace:read-job or the replacing node's secret  (blocking on allocs)
 * ```
 *
 * The allocation model (statuses, volume requests, shapes) is alloc.ts; this file adds ACL,
 * storage and HTTP.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { ALL_NAMESPACES } from '../acl/index.js';
import { allocStub, checkEnum, CLIENT_STATUSES, type StoredAlloc } from '../alloc.js';
import { writeAllocation } from '../csi/alloc-claims.js';
import { jobKey, newEvaluation, type AllocDeploymentStatus, type Job, type TaskState } from '../jobs/types.js';
import { renderFullAlloc, type FullAlloc } from './node-allocations.js';
import { refreshJobStatus } from '../scheduler/job-status.js';
import { rescheduleEligible } from '../scheduler/reconcile.js';
import { ANY_CALLER, type SchedAccess, type SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { PREFIX_QUERY, queryBool, queryUuidPrefix, requireInput } from '../request.js';
import { DEFAULT_NAMESPACE, LABEL, T } from '../state.js';
import { Go } from '../../../kernel/util/go-schema.js';

const allocNotFound = () => schedNotFound('alloc not found');

/** The request's `?namespace=` (default `default`; `*`: every namespace). */
const namespaceOf = (ctx: Ctx) => ctx.query.get('namespace') || DEFAULT_NAMESPACE;

/** `read-job` in `namespace`; for `*`, any caller, the list showing the namespaces where it has it. */
const readJobIn = (namespace: string): SchedAccess => (namespace === ALL_NAMESPACES ? ANY_CALLER : { namespace, anyOf: ['read-job'] });

/** Allocation `:id`. @throws 404 `alloc not found`. */
function storedAlloc(ctx: Ctx): FullAlloc {
  const alloc = ctx.deps.state.get<FullAlloc>(T.allocs, ctx.params.id!);
  if (!alloc) throw allocNotFound();
  return alloc;
}

/**
 * The client node that may read allocation `:id` with its secret: the node of the allocation
 * that replaces it (its `NextAllocation`); none for an unknown or unreplaced allocation.
 */
function replacingNode(ctx: Ctx): { or: { node: string } } | undefined {
  const next = ctx.deps.state.get<StoredAlloc>(T.allocs, ctx.params.id!)?.NextAllocation;
  const node = next ? ctx.deps.state.get<StoredAlloc>(T.allocs, next)?.NodeID : undefined;
  return node ? { or: { node } } : undefined;
}

/**
 * As the reference's `Node.UpdateAlloc`: an allocation that just became `failed` gets a pending
 * `alloc-failure` evaluation of its job as stored now, when its group's reschedule policy
 * leaves an attempt and no follow-up evaluation waits already.
 */
function rescheduleOnFailure(tx: Txn, next: StoredAlloc, previous: StoredAlloc | undefined, nowNs: number): void {
  if (next.ClientStatus !== 'failed' || previous?.ClientStatus === 'failed') return;
  const job = tx.get<Job>(T.jobs, jobKey(next.Namespace, next.JobID));
  const tg = job?.TaskGroups.find((g) => g.Name === next.TaskGroup);
  if (
    !job ||
    !tg ||
    next.FollowupEvalID ||
    !rescheduleEligible(
      { TaskStates: next.TaskStates ?? null, ModifyTime: next.ModifyTime, RescheduleTracker: next.RescheduleTracker ?? null },
      tg.ReschedulePolicy,
    )
  )
    return;
  const ev = newEvaluation(randomUUID(), job, { triggeredBy: 'alloc-failure', nowNs });
  tx.put(T.evals, ev.ID, ev);
}

/**
 * The body of a client's status report (the reference's `structs.AllocClientUpdate`;
 * `TaskStates`: task name → jobs/types.ts `TaskState`, checked by {@link clientUpdate}).
 */
const ClientUpdateBody = Go.struct('structs.AllocClientUpdate', {
  ClientStatus: Go.string(),
  ClientDescription: Go.string(),
  TaskStates: Go.object('task name → TaskState; absent or null keeps the stored ones'),
  DeploymentStatus: Go.object('{"Healthy": bool, "Timestamp"?: RFC 3339}: the allocation\'s health in its deployment; absent or null keeps the stored one'),
});

/** What a client's status report changes (`DeploymentStatus` without `Canary`, which the scheduler sets). */
type ClientUpdate = Pick<StoredAlloc, 'ClientStatus' | 'ClientDescription'> & {
  TaskStates?: Record<string, TaskState>;
  DeploymentStatus?: Omit<AllocDeploymentStatus, 'Canary'>;
};

/**
 * A report's `DeploymentStatus` (the reference's client sets `Healthy` and `Timestamp`).
 * @throws 400 `DeploymentStatus.Healthy must be a boolean`, `DeploymentStatus.Timestamp must be an RFC 3339 time`.
 */
function reportedHealth(raw: Record<string, unknown> | null, nowMs: number): Omit<AllocDeploymentStatus, 'Canary'> | undefined {
  if (!raw) return undefined;
  if (typeof raw.Healthy !== 'boolean') throw schedBadRequest('DeploymentStatus.Healthy must be a boolean');
  const ts = raw.Timestamp ?? '';
  if (typeof ts !== 'string' || (ts !== '' && Number.isNaN(Date.parse(ts)))) throw schedBadRequest('DeploymentStatus.Timestamp must be an RFC 3339 time');
  return { Healthy: raw.Healthy, Timestamp: ts || new Date(nowMs).toISOString() };
}

/** Each request's {@link ClientUpdate}, computed once by its access rule for the handler. */
const clientUpdates = new WeakMap<Ctx, ClientUpdate>();

/**
 * The fields the decoded body changes, computed once per request. @throws 400 `Request body
 * is empty`, `invalid client status "<s>": must be one of …`, `TaskStates must be an object of task states`.
 */
function clientUpdate(ctx: Ctx): ClientUpdate {
  const known = clientUpdates.get(ctx);
  if (known) return known;
  const body = requireInput(ctx.input<Static<typeof ClientUpdateBody>>());
  checkEnum('client status', body.ClientStatus, CLIENT_STATUSES);
  // Null when absent (Go's zero value), though the declared type cannot say so.
  const states = body.TaskStates as Record<string, unknown> | null;
  if (states && Object.values(states).some((t) => typeof t !== 'object' || t === null || Array.isArray(t) || typeof (t as TaskState).State !== 'string')) {
    throw schedBadRequest('TaskStates must be an object of task states');
  }
  const health = reportedHealth(body.DeploymentStatus as Record<string, unknown> | null, ctx.deps.now());
  const change = {
    ClientStatus: body.ClientStatus,
    ClientDescription: body.ClientDescription,
    ...(states && { TaskStates: states as Record<string, TaskState> }),
    ...(health && { DeploymentStatus: health }),
  };
  clientUpdates.set(ctx, change);
  return change;
}

/**
 * Who may report on allocation `:id`: its node (by its secret) or a token with `node:write`;
 * the body's 400s and the 404 of a missing allocation come first, as in the reference.
 */
function clientStatusAccess(ctx: Ctx): SchedAccess {
  clientUpdate(ctx);
  const alloc = ctx.deps.state.get<StoredAlloc>(T.allocs, ctx.params.id!);
  if (!alloc) throw allocNotFound();
  return { node: 'write', or: { node: alloc.NodeID } };
}

/**
 * `POST|PUT /v1/allocation/:id/client-status` (Cairn extension for the reference's
 * `Node.UpdateAlloc` RPC, which a client node makes): body `{"ClientStatus": …,
 * "ClientDescription"?: …, "TaskStates"?: {task: TaskState}, "DeploymentStatus"?: {"Healthy":
 * bool, "Timestamp"?: RFC 3339}}` (jobs/types.ts `TaskState`, `AllocDeploymentStatus`; absent
 * or null keeps the stored ones; a missing timestamp is now); label `AllocationUpdated`. Authorised by the
 * `SecretID` of the allocation's node or a token with `node:write`. An allocation that
 * becomes `failed` gets a pending `alloc-failure` evaluation of its (stored) job in the same
 * write when its group's reschedule policy leaves an attempt and no follow-up evaluation
 * waits already (the reference's `Node.UpdateAlloc` and `RescheduleEligible`), so the scheduler reschedules it (`FollowupEvalID`
 * stays for the scheduler's delayed reschedules, as the reference). @throws 400 `invalid client status "<s>": must be one of pending,
 * running, complete, failed, lost, unknown`, `TaskStates must be an object of task states`;
 * 404 `alloc not found`; 403 without the node's secret or `node:write`.
 */
async function updateClientStatus(ctx: Ctx): Promise<SchedReply> {
  const change = clientUpdate(ctx);
  const nowNs = ctx.deps.now() * 1e6;
  const { index } = await writeAllocation(ctx.deps, {
    id: ctx.params.id!,
    label: LABEL.allocUpdate,
    build: (alloc) => {
      if (!alloc) throw allocNotFound();
      // A canary stays one whatever the client says of its health.
      const { DeploymentStatus: health, ...rest } = change;
      const deployment = health && { DeploymentStatus: { ...health, Canary: alloc.DeploymentStatus?.Canary ?? false } };
      return { ...alloc, ...rest, ...deployment, ModifyTime: nowNs };
    },
    also: (tx, next, previous) => {
      rescheduleOnFailure(tx, next, previous, nowNs);
      // The job's stored Status (and so its Job event) follows its allocations, as the
      // reference's state store does on a client's update.
      refreshJobStatus(tx, next.Namespace, next.JobID);
    },
  });
  return writeReply(index, { Index: index });
}

/** Routes of this file (see the module doc). */
export const allocationRoutes: readonly SchedRoute[] = [
  {
    pattern: 'allocations',
    synopsis: 'List allocations as stubs; ?namespace= (`*`: every namespace the token may read), ?prefix= (UUID prefix)',
    blocking: [T.allocs],
    methods: {
      /**
       * Stubs in ID order. One namespace needs `namespace:read-job` there (403 otherwise);
       * `*` lists the allocations of every namespace where the token has it.
       */
      GET: {
        access: (ctx) => readJobIn(namespaceOf(ctx)),
        query: { ...PREFIX_QUERY, resources: Type.Boolean({ description: 'Each stub also shows the allocation’s AllocatedResources (the topology view).' }) },
        handle: async (ctx) => {
          const namespace = namespaceOf(ctx);
          const prefix = queryUuidPrefix(ctx);
          const readable = new Map<string, boolean>();
          const mayRead = (ns: string) => {
            let ok = readable.get(ns);
            if (ok === undefined) readable.set(ns, (ok = ctx.caller.authorizer.allowNamespaceOperation(ns, 'read-job')));
            return ok;
          };
          const allocs = ctx.deps.state
            .list<StoredAlloc>(T.allocs)
            .filter((a) => (namespace === ALL_NAMESPACES ? mayRead(a.Namespace) : a.Namespace === namespace) && a.ID.toLowerCase().startsWith(prefix));
          const stub = queryBool(ctx, 'resources')
            ? (a: StoredAlloc & Indexed) => ({ ...allocStub(a), AllocatedResources: a.AllocatedResources ?? null })
            : allocStub;
          return { body: allocs.map(stub), index: ctx.deps.state.tableIndex(T.allocs) };
        },
      },
    },
  },
  {
    pattern: 'allocation/:id',
    synopsis: 'Read an allocation',
    blocking: [T.allocs],
    methods: {
      /**
       * The allocation with its job snapshot and task states (node-allocations.ts
       * `renderFullAlloc`); 404 `alloc not found`; 403 without `namespace:read-job` in its
       * namespace or the `SecretID` of the node running its `NextAllocation` (that node's
       * client reads the allocation it replaces, as the reference's clients read a previous
       * allocation with their node secret, to remove a lost one's registrations).
       */
      GET: {
        // `read-job` in the allocation's namespace, looked up once the token resolved.
        access: (ctx) => ({ namespace: () => storedAlloc(ctx).Namespace, anyOf: ['read-job'], ...replacingNode(ctx) }),
        handle: async (ctx) => {
          const alloc = storedAlloc(ctx);
          return { body: renderFullAlloc(alloc), index: alloc.ModifyIndex };
        },
      },
    },
  },
  {
    pattern: 'allocation/:id/client-status',
    synopsis: "Report an allocation's client status (Cairn extension; the reference's clients use RPC)",
    methods: {
      POST: { access: clientStatusAccess, body: ClientUpdateBody, handle: updateClientStatus },
      PUT: { access: clientStatusAccess, body: ClientUpdateBody, handle: updateClientStatus },
    },
  },
];
