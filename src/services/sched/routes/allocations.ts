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
 * Volume requests live on the allocation itself (`Volumes`), not on a job's task group:
 * Cairn has no jobs. Times are Unix nanoseconds, as the reference's allocation times.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Indexed } from '../../../kernel/store/index.js';
import { ALL_NAMESPACES } from '../acl/index.js';
import { identityOf, requireAllowed, type Ctx, type SchedDeps } from '../deps.js';
import { schedBadRequest, schedNotFound, type SchedReply, type SchedRoute } from '../http.js';
import { DEFAULT_NAMESPACE, LABEL, T, type AllocDoc, type NamespaceDoc, type NodeDoc } from '../state.js';
import { checkUuidPrefix, decodeGoStruct, requireBody, type GoKind } from './nodes.js';

/** Desired statuses (reference/sched.md §5). */
export const DESIRED_STATUSES = ['run', 'stop', 'evict'] as const;
/** Client statuses (reference/sched.md §5). */
export const CLIENT_STATUSES = ['pending', 'running', 'complete', 'failed', 'lost', 'unknown'] as const;
/** CSI access modes a volume request may ask for (the reference's `CSIVolumeAccessMode`). */
export const CSI_ACCESS_MODES = [
  'single-node-reader-only',
  'single-node-writer',
  'single-node-single-writer',
  'single-node-multi-writer',
  'multi-node-reader-only',
  'multi-node-single-writer',
  'multi-node-multi-writer',
] as const;
/** CSI attachment modes (the reference's `CSIVolumeAttachmentMode`). */
export const CSI_ATTACHMENT_MODES = ['file-system', 'block-device'] as const;
/** Volume request types (the reference's `VolumeTypeHost`, `VolumeTypeCSI`). */
export const VOLUME_TYPES = ['host', 'csi'] as const;

/** A stored allocation: {@link AllocDoc} plus the node's name at placement (the reference keeps it on the allocation). */
export type StoredAlloc = AllocDoc & { readonly NodeName?: string };

/** One volume request of an allocation, normalised (reference/sched.md §5). */
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

/** Is the allocation terminal? Desired `stop`/`evict`, or client `complete`/`failed`/`lost` (`unknown` is not; reference/sched.md §5). */
export function allocTerminal(a: Pick<AllocDoc, 'DesiredStatus' | 'ClientStatus'>): boolean {
  return a.DesiredStatus === 'stop' || a.DesiredStatus === 'evict' || clientTerminal(a);
}

/** Has the client finished with it? Client `complete`, `failed` or `lost` (the reference's `ClientTerminalStatus`). */
export function clientTerminal(a: Pick<AllocDoc, 'ClientStatus'>): boolean {
  return a.ClientStatus === 'complete' || a.ClientStatus === 'failed' || a.ClientStatus === 'lost';
}

/** The reference's `DesiredTransition` with nothing asked. */
const NO_TRANSITION = { Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null } as const;

/**
 * An allocation as `GET /v1/allocation/:id` and the event stream show it (reference/sched.md
 * §3.4, §5): the reference's fields that this model has, `Job` null (events never carry the
 * job), and the Cairn field `Volumes`.
 */
export function renderAlloc(a: StoredAlloc & Indexed): Record<string, unknown> {
  return {
    ID: a.ID,
    Namespace: a.Namespace,
    EvalID: a.EvalID,
    Name: a.Name,
    NodeID: a.NodeID,
    NodeName: a.NodeName ?? '',
    JobID: a.JobID,
    Job: null,
    TaskGroup: a.TaskGroup,
    Volumes: a.Volumes,
    DesiredStatus: a.DesiredStatus,
    DesiredDescription: a.DesiredDescription,
    DesiredTransition: NO_TRANSITION,
    ClientStatus: a.ClientStatus,
    ClientDescription: a.ClientDescription,
    TaskStates: null,
    DeploymentID: a.DeploymentID,
    FollowupEvalID: '',
    PreviousAllocation: '',
    NextAllocation: '',
    RescheduleTracker: null,
    CreateIndex: a.CreateIndex,
    ModifyIndex: a.ModifyIndex,
    AllocModifyIndex: a.ModifyIndex,
    CreateTime: a.CreateTime,
    ModifyTime: a.ModifyTime,
  };
}

/** The list item (the reference's `AllocListStub`, reference/sched.md §5); fields this model lacks are their zero values. */
export function allocStub(a: StoredAlloc & Indexed): Record<string, unknown> {
  return {
    ID: a.ID,
    EvalID: a.EvalID,
    Name: a.Name,
    Namespace: a.Namespace,
    NodeID: a.NodeID,
    NodeName: a.NodeName ?? '',
    JobID: a.JobID,
    JobType: '',
    JobVersion: 0,
    TaskGroup: a.TaskGroup,
    DesiredStatus: a.DesiredStatus,
    DesiredDescription: a.DesiredDescription,
    ClientStatus: a.ClientStatus,
    ClientDescription: a.ClientDescription,
    DesiredTransition: NO_TRANSITION,
    TaskStates: null,
    DeploymentStatus: null,
    FollowupEvalID: '',
    NextAllocation: '',
    RescheduleTracker: null,
    PreemptedAllocations: null,
    PreemptedByAllocation: '',
    CreateIndex: a.CreateIndex,
    ModifyIndex: a.ModifyIndex,
    CreateTime: a.CreateTime,
    ModifyTime: a.ModifyTime,
  };
}

/** `value` must be one of `allowed`. @throws 400 `invalid <what> "<v>": must be one of a, b, c`. */
function checkEnum(what: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) throw schedBadRequest(`invalid ${what} "${value}": must be one of ${allowed.join(', ')}`);
}

/**
 * Decodes and checks the `Volumes` map of an allocation: name → `{Type, Source, ReadOnly,
 * AccessMode, AttachmentMode, MountOptions, PerAlloc}`. Types `csi` and `host`; a CSI request
 * needs an attachment and an access mode, reader-only access modes must be `ReadOnly`, block
 * devices take no mount options (the reference's `VolumeRequest.Validate`). Errors are 400
 * `volume "<name>": <reason>`, e.g. `volume "data": CSI volumes must have an access mode`.
 */
function decodeVolumes(raw: Record<string, unknown> | null): Record<string, VolumeRequest> | null {
  if (raw === null) return null;
  const out: Record<string, VolumeRequest> = {};
  for (const [name, value] of Object.entries(raw)) {
    const fail = (why: string) => schedBadRequest(`volume "${name}": ${why}`);
    const v = decodeGoStruct(value, 'structs.VolumeRequest', {
      Type: 'string', Source: 'string', ReadOnly: 'bool', AccessMode: 'string', AttachmentMode: 'string', MountOptions: 'object', PerAlloc: 'bool',
    } satisfies Record<string, GoKind>);
    const type = v.Type as string;
    if (!(VOLUME_TYPES as readonly string[]).includes(type)) throw fail(`invalid volume type "${type}": must be one of ${VOLUME_TYPES.join(', ')}`);
    if (v.Source === '') throw fail('volume has an empty source');
    const mount = v.MountOptions === null ? null : decodeGoStruct(v.MountOptions, 'structs.CSIMountOptions', { FsType: 'string', MountFlags: 'any' });
    if (mount && mount.MountFlags !== null && !(Array.isArray(mount.MountFlags) && mount.MountFlags.every((f) => typeof f === 'string'))) {
      throw fail('MountOptions.MountFlags must be a list of strings');
    }
    const access = v.AccessMode as string;
    const attachment = v.AttachmentMode as string;
    if (type === 'csi') {
      if (attachment === '') throw fail('CSI volumes must have an attachment mode');
      if (!(CSI_ATTACHMENT_MODES as readonly string[]).includes(attachment)) throw fail(`invalid attachment mode "${attachment}": must be one of ${CSI_ATTACHMENT_MODES.join(', ')}`);
      if (attachment === 'block-device' && mount) throw fail('block devices cannot have mount options');
      if (access === '') throw fail('CSI volumes must have an access mode');
      if (!(CSI_ACCESS_MODES as readonly string[]).includes(access)) throw fail(`invalid access mode "${access}": must be one of ${CSI_ACCESS_MODES.join(', ')}`);
      if (access.endsWith('reader-only') && !v.ReadOnly) throw fail(`${access} volumes must be read-only`);
    }
    out[name] = {
      Name: name,
      Type: type,
      Source: v.Source as string,
      ReadOnly: v.ReadOnly as boolean,
      AccessMode: access,
      AttachmentMode: attachment,
      MountOptions: mount ? { FsType: mount.FsType as string, MountFlags: (mount.MountFlags as string[] | null) ?? null } : null,
      PerAlloc: v.PerAlloc as boolean,
    };
  }
  return out;
}

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
 *   "<s>": must be one of …`, `invalid client status …`, volume errors; 403 without
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
  const { result } = await ctx.deps.state.txn((tx) => {
    if (!tx.get<NamespaceDoc>(T.namespaces, namespace)) throw schedBadRequest(`namespace "${namespace}" does not exist`);
    const node = tx.get<NodeDoc>(T.nodes, a.NodeID);
    if (!node) throw schedBadRequest(`node "${a.NodeID}" does not exist`);
    return tx.put<StoredAlloc>(T.allocs, id, {
      ID: id,
      Namespace: namespace,
      EvalID: randomUUID(),
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
    });
  }, LABEL.allocCreate);
  return { body: renderAlloc(result), headers: { 'X-Sched-Index': String(result.ModifyIndex) } };
}

/**
 * Updates one status field pair of allocation `:id` in a write labelled `label`, after
 * `authorize` passed for the stored allocation. Replies `{"Index": N}` with `X-Sched-Index`.
 * @throws 404 `alloc not found`; what `authorize` throws.
 */
async function updateAlloc(
  ctx: Ctx,
  label: string,
  authorize: (alloc: StoredAlloc) => void,
  change: Pick<StoredAlloc, 'ClientStatus' | 'ClientDescription'> | Pick<StoredAlloc, 'DesiredStatus' | 'DesiredDescription'>,
): Promise<SchedReply> {
  const nowNs = ctx.deps.now() * 1e6;
  const { index } = await ctx.deps.state.txn((tx) => {
    const alloc = tx.get<StoredAlloc>(T.allocs, ctx.params.id!);
    if (!alloc) throw allocNotFound();
    authorize(alloc);
    tx.put<StoredAlloc>(T.allocs, alloc.ID, { ...alloc, ...change, ModifyTime: nowNs });
  }, label);
  return { body: { Index: index }, headers: { 'X-Sched-Index': String(index) } };
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
        const prefix = ctx.query.get('prefix') ?? '';
        if (prefix !== '') checkUuidPrefix(prefix);
        const lower = prefix.toLowerCase();
        const readable = new Map<string, boolean>();
        const mayRead = (ns: string) => {
          let ok = readable.get(ns);
          if (ok === undefined) readable.set(ns, (ok = who.authorizer.allowNamespaceOperation(ns, 'read-job')));
          return ok;
        };
        const allocs = ctx.deps.state
          .list<StoredAlloc>(T.allocs)
          .filter((a) => (namespace === ALL_NAMESPACES ? mayRead(a.Namespace) : a.Namespace === namespace) && a.ID.toLowerCase().startsWith(lower));
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
