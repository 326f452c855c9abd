/**
 * Allocations: the minimal model of state.ts `AllocDoc` that CSI volume claims use
 * (reference/sched.md §5). Cairn schedules nothing, so allocations are written directly
 * (Cairn extensions; the reference places them through its scheduler and clients report
 * over RPC), and read with the reference's own routes:
 *
 * ```text
 * PUT      /v1/allocation                      {"Allocation": {...}}                namespace:submit-job   AllocationCreated
 * POST|PUT /v1/allocation/:id/client-status    {"ClientStatus", "ClientDescription"?}  node:write        AllocationUpdated
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
import { allocStub, checkEnum, CLIENT_STATUSES, decodeVolumes, DESIRED_STATUSES, renderAlloc, type StoredAlloc } from '../alloc.js';
import { writeAllocation } from '../csi/alloc-claims.js';
import { identityOf, requireAllowed, type Ctx, type SchedDeps } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply, type SchedRoute } from '../http.js';
import { decodeGoStruct, queryUuidPrefix, requireBody } from '../request.js';
import { DEFAULT_NAMESPACE, LABEL, T, type NamespaceDoc, type NodeDoc } from '../state.js';

const allocNotFound = () => schedNotFound('alloc not found');

/**
 * `PUT /v1/allocation` (Cairn extension): body `{"Allocation": {Namespace, NodeID, JobID,
 * TaskGroup, Name?, Volumes?, DesiredStatus?, ClientStatus?, DesiredDescription?,
 * ClientDescription?}}`. The namespace is the body's, else `?namespace=`, else `default`.
 * Generates `ID` and `EvalID` (UUIDs); `Name` defaults to `<JobID>.<TaskGroup>[0]`,
 * DesiredStatus to `run`, ClientStatus to `pending`. One write labelled `AllocationCreated`.
 * Replies the stored allocation (as the read) with `X-Sched-Index`.
 * @throws 400 `missing allocation`, `missing node ID`, `missing job ID`, `missing task group`,
 *   `namespace "<ns>" does not exist`, `node "<id>" does not exist`, `invalid desired status
 *   "<s>": must be one of …`, `invalid client status …`, volume errors; claim errors (400
 *   `… volume not found`, 409 `… volume max claims reached`, …); 403 without
 *   `namespace:submit-job` in the namespace.
 */
async function createAlloc(ctx: Ctx): Promise<SchedReply> {
  const body = decodeGoStruct(requireBody(ctx), 'structs.AllocationCreateRequest', { Allocation: 'object' });
  if (body.Allocation === null) throw schedBadRequest('missing allocation');
  const a = decodeGoStruct(body.Allocation, 'structs.Allocation', {
    Namespace: 'string', NodeID: 'string', JobID: 'string', TaskGroup: 'string', Name: 'string', Volumes: 'object',
    DesiredStatus: 'string', DesiredDescription: 'string', ClientStatus: 'string', ClientDescription: 'string',
  }) as Record<string, string> & { Volumes: Record<string, unknown> | null };
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
      };
    },
  });
  return writeReply(result.ModifyIndex, renderAlloc(result));
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
  });
  return writeReply(index, { Index: index });
}

/**
 * `POST|PUT /v1/allocation/:id/client-status` (Cairn extension for the reference's
 * `Node.UpdateAlloc` RPC, which a client node makes): body `{"ClientStatus": …,
 * "ClientDescription"?: …}`; label `AllocationUpdated`. @throws 400 `invalid client status
 * "<s>": must be one of pending, running, complete, failed, lost, unknown`; 404 `alloc not
 * found`; 403 without `node:write`.
 */
async function updateClientStatus(ctx: Ctx): Promise<SchedReply> {
  requireAllowed(identityOf(ctx).authorizer.allowNodeWrite());
  const body = decodeGoStruct(requireBody(ctx), 'structs.AllocClientUpdate', { ClientStatus: 'string', ClientDescription: 'string' });
  checkEnum('client status', body.ClientStatus as string, CLIENT_STATUSES);
  return updateAlloc(ctx, LABEL.allocUpdate, () => {}, { ClientStatus: body.ClientStatus as string, ClientDescription: body.ClientDescription as string });
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
      /** The allocation; 404 `alloc not found`; 403 without `namespace:read-job` in its namespace. */
      GET: async (ctx) => {
        const who = identityOf(ctx);
        const alloc = ctx.deps.state.get<StoredAlloc>(T.allocs, ctx.params.id!);
        if (!alloc) throw allocNotFound();
        requireAllowed(who.authorizer.allowNamespaceOperation(alloc.Namespace, 'read-job'));
        return { body: renderAlloc(alloc), index: alloc.ModifyIndex };
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
