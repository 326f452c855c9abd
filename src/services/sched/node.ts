/**
 * The scheduler's client node (reference/sched.md §5, spec 002 "`Node` payload fields"): its
 * stored shape with the drain bookkeeping, the registration body decoded and checked with the
 * reference's texts and order, node events, and the read and list shapes the API and the
 * event stream show. Pure: the caller supplies the stored node, the clock and the write's
 * index, and stores the result (routes/nodes.ts).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { Indexed } from '../../kernel/store/index.js';
import { formatTime } from '../../kernel/util/duration.js';
import { decodeGoStruct, UUID, type GoKind } from './go-struct.js';
import { schedBadRequest } from './http.js';
import { MAX_NODE_EVENTS, type NodeDoc, type NodeEventDoc } from './state.js';

/** Node statuses (reference/sched.md §5). */
export const NODE_STATUSES = ['initializing', 'ready', 'down', 'disconnected'] as const;
/** Scheduling eligibilities (reference/sched.md §5). */
export const NODE_ELIGIBILITIES = ['eligible', 'ineligible'] as const;
/** Valid node pool names (the reference's `validNodePoolName`). */
const NODE_POOL_NAME = /^[a-zA-Z0-9-_]{1,128}$/;
/** The zero `time.Time` as the reference encodes it. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Node event messages and subsystems of the reference (`nomad/node_endpoint.go`, `nomad/state/state_store.go`). */
export const NODE_EVENT = {
  registered: 'Node registered',
  reregistered: 'Node re-registered',
  heartbeatReregistered: 'Node reregistered by heartbeat',
  heartbeatMissed: 'Node heartbeat missed',
  drainSet: 'Node drain strategy set',
  drainUpdated: 'Node drain strategy updated',
  drainDisabled: 'Node drain disabled',
  drainComplete: 'Node drain complete',
  eligible: 'Node marked as eligible for scheduling',
  ineligible: 'Node marked as ineligible for scheduling',
} as const;

/** A stored node: {@link NodeDoc} plus the drain bookkeeping the reference keeps (`LastDrain`). */
export type StoredNode = NodeDoc & { readonly LastDrain?: LastDrain | null };

/** The reference's `DrainMetadata`: when and by whom the last drain ran. Times RFC3339. */
interface LastDrain {
  readonly StartedAt: string;
  readonly UpdatedAt: string;
  /** `draining`, `complete` or `canceled`. */
  readonly Status: string;
  readonly AccessorID: string;
  readonly Meta: Readonly<Record<string, string>> | null;
}

/** The reference's `DrainStrategy`: `Deadline` in ns (≤ 0: none; the reference's -1 forces), times RFC3339. */
export interface DrainStrategy {
  readonly Deadline: number;
  readonly IgnoreSystemJobs: boolean;
  /** `StartedAt + Deadline` when the deadline is positive, else the zero time. */
  readonly ForceDeadline: string;
  readonly StartedAt: string;
}

/**
 * A node as the API and the event stream show it (spec 002 "`Node` payload fields",
 * reference/sched.md §5): every stored field but `SecretID`, plus the JSON-only `Drain`
 * (true while a `DrainStrategy` is set).
 */
export function renderNode(n: StoredNode & Indexed): Record<string, unknown> {
  return {
    ID: n.ID,
    Datacenter: n.Datacenter,
    Name: n.Name,
    HTTPAddr: n.HTTPAddr,
    TLSEnabled: n.TLSEnabled,
    Attributes: n.Attributes,
    NodeResources: n.NodeResources ?? null,
    ReservedResources: n.ReservedResources ?? null,
    Resources: n.Resources ?? null,
    Reserved: n.Reserved ?? null,
    Links: n.Links,
    Meta: n.Meta,
    NodeClass: n.NodeClass,
    NodePool: n.NodePool,
    ComputedClass: n.ComputedClass,
    Drain: n.DrainStrategy !== null && n.DrainStrategy !== undefined,
    DrainStrategy: n.DrainStrategy ?? null,
    SchedulingEligibility: n.SchedulingEligibility,
    Status: n.Status,
    StatusDescription: n.StatusDescription,
    StatusUpdatedAt: n.StatusUpdatedAt,
    Events: n.Events,
    Drivers: n.Drivers,
    CSIControllerPlugins: n.CSIControllerPlugins,
    CSINodePlugins: n.CSINodePlugins,
    HostVolumes: n.HostVolumes,
    LastDrain: n.LastDrain ?? null,
    CreateIndex: n.CreateIndex,
    ModifyIndex: n.ModifyIndex,
  };
}

/**
 * The list item of `GET /v1/nodes` (the reference's `NodeListStub`): `Address` is the
 * `unique.network.ip-address` attribute, `Version` the `nomad.version` attribute;
 * `NodeResources`/`ReservedResources` only with `?resources=true`, `Attributes` (`os.name`,
 * `os.version`) only with `?os=true`.
 */
export function nodeStub(n: StoredNode & Indexed, fields: { resources: boolean; os: boolean }): Record<string, unknown> {
  const attr = n.Attributes ?? {};
  return {
    Address: attr['unique.network.ip-address'] ?? '',
    ID: n.ID,
    ...(fields.os ? { Attributes: Object.fromEntries(['os.name', 'os.version'].filter((k) => k in attr).map((k) => [k, attr[k]])) } : {}),
    Datacenter: n.Datacenter,
    Name: n.Name,
    NodeClass: n.NodeClass,
    NodePool: n.NodePool,
    Version: attr['nomad.version'] ?? '',
    Drain: n.DrainStrategy !== null && n.DrainStrategy !== undefined,
    SchedulingEligibility: n.SchedulingEligibility,
    Status: n.Status,
    StatusDescription: n.StatusDescription,
    Drivers: n.Drivers,
    HostVolumes: n.HostVolumes,
    ...(fields.resources ? { NodeResources: n.NodeResources ?? null, ReservedResources: n.ReservedResources ?? null } : {}),
    LastDrain: n.LastDrain ?? null,
    CreateIndex: n.CreateIndex,
    ModifyIndex: n.ModifyIndex,
  };
}

/** A node event stamped `nowMs` (epoch ms, shown RFC3339) at write index `index`. */
export function nodeEvent(
  o: { index: number; nowMs: number },
  message: string,
  subsystem: string,
  details: Readonly<Record<string, string>> | null = null,
): NodeEventDoc {
  return { Message: message, Subsystem: subsystem, Details: details, Timestamp: formatTime(new Date(o.nowMs)), CreateIndex: o.index };
}

/** `events` plus `added`, keeping the newest {@link MAX_NODE_EVENTS} (the reference's `appendNodeEvents`). */
export function appendEvents(events: readonly NodeEventDoc[], ...added: NodeEventDoc[]): NodeEventDoc[] {
  return [...events, ...added].slice(-MAX_NODE_EVENTS);
}

/** Event of a status change with no `NodeEvent` given: the reference's heartbeat texts, else `Node status changed to <to>`. */
export function statusMessage(from: string, to: string): string {
  if (from === 'down' && to !== 'down') return NODE_EVENT.heartbeatReregistered;
  if (to === 'down') return NODE_EVENT.heartbeatMissed;
  return `Node status changed to ${to}`;
}

/** A decoded drain request (`PUT /v1/node/:id/drain`): `spec` null clears the drain; `accessor` is the caller's token. */
export interface DrainRequest {
  /** `Deadline` in ns. */
  readonly spec: { readonly Deadline: number; readonly IgnoreSystemJobs: boolean } | null;
  readonly markEligible: boolean;
  readonly meta: Readonly<Record<string, string>> | null;
  readonly accessor: string;
}

/**
 * The node after drain request `req` at write `at.index`, `at.nowMs` epoch ms (the reference's
 * `Node.UpdateDrain`): a spec sets (or updates, keeping `StartedAt`) the `DrainStrategy` and
 * makes the node ineligible; `null` clears it and, with `markEligible`, makes the node
 * eligible again. `ForceDeadline` = start + Deadline when positive, else the zero time.
 * `LastDrain` records status `draining` / `canceled`, the accessor and `meta`. Events `Node
 * drain strategy set|updated`, `Node drain disabled` (subsystem `Drain`).
 */
export function drainedNode(node: StoredNode, req: DrainRequest, at: { index: number; nowMs: number }): StoredNode {
  const stamp = formatTime(new Date(at.nowMs));
  const old = (node.DrainStrategy ?? null) as DrainStrategy | null;
  const drain: DrainStrategy | null = req.spec && {
    Deadline: req.spec.Deadline,
    IgnoreSystemJobs: req.spec.IgnoreSystemJobs,
    ForceDeadline: req.spec.Deadline > 0 ? formatTime(new Date(at.nowMs + req.spec.Deadline / 1e6)) : ZERO_TIME,
    StartedAt: old?.StartedAt ?? stamp,
  };
  const message = !old && drain ? NODE_EVENT.drainSet : old && drain ? NODE_EVENT.drainUpdated : old && !drain ? NODE_EVENT.drainDisabled : undefined;
  const lastDrain: LastDrain | null = drain
    ? { StartedAt: drain.StartedAt, UpdatedAt: stamp, Status: 'draining', AccessorID: req.accessor, Meta: req.meta }
    : old && node.LastDrain
      ? { ...node.LastDrain, UpdatedAt: stamp, Status: 'canceled' }
      : (node.LastDrain ?? null);
  return {
    ...node,
    DrainStrategy: drain,
    SchedulingEligibility: drain ? 'ineligible' : req.markEligible ? 'eligible' : node.SchedulingEligibility,
    StatusUpdatedAt: Math.floor(at.nowMs / 1000),
    Events: message ? appendEvents(node.Events, nodeEvent(at, message, 'Drain')) : node.Events,
    LastDrain: lastDrain,
  };
}

/** A decoded, checked registration: the stored fields a client sends (the reference's `structs.Node`, less what the server sets). */
export type NodeRegistration = Omit<NodeDoc, 'ComputedClass' | 'DrainStrategy' | 'Events' | 'StatusUpdatedAt' | 'CSIReported'>;

/** The registration body's fields and their Go types. */
const NODE_FIELDS: Readonly<Record<keyof NodeRegistration, GoKind>> = {
  ID: 'string',
  SecretID: 'string',
  Datacenter: 'string',
  Name: 'string',
  HTTPAddr: 'string',
  TLSEnabled: 'bool',
  Attributes: 'map',
  NodeResources: 'any',
  ReservedResources: 'any',
  Resources: 'any',
  Reserved: 'any',
  Links: 'map',
  Meta: 'map',
  NodeClass: 'string',
  NodePool: 'string',
  SchedulingEligibility: 'string',
  Status: 'string',
  StatusDescription: 'string',
  Drivers: 'object',
  CSIControllerPlugins: 'object',
  CSINodePlugins: 'object',
  HostVolumes: 'object',
};

/**
 * Decodes and checks the `Node` of a registration body `{"Node": {...}}` (null when absent;
 * the route declares the body, routes/nodes.ts) as the reference's `Node.Register` does
 * (reference/sched.md §5), in its order: `missing node for client registration`,
 * `missing node ID …`, `missing datacenter …`, `missing node name …`, `missing attributes …`
 * (an empty map too), `missing node secret ID …`, then `invalid node pool: invalid name
 * "<p>", must match regex …`, `node is not allowed to register in node pool "all"`, `invalid
 * status for node`. Cairn also requires a UUID `ID` (`invalid node ID "<id>": must be a
 * UUID`; the reference's state index refuses others) and checks `SchedulingEligibility`
 * (`invalid scheduling eligibility "<e>"`). Defaults filled in: NodePool `default`, Status
 * `initializing`, SchedulingEligibility `eligible`. @throws 400 with those texts or the decoder's.
 */
export function decodeRegistration(node: unknown): NodeRegistration {
  if (node === null) throw schedBadRequest('missing node for client registration');
  const n = decodeGoStruct(node, 'structs.Node', NODE_FIELDS) as unknown as NodeRegistration;
  if (n.ID === '') throw schedBadRequest('missing node ID for client registration');
  if (n.Datacenter === '') throw schedBadRequest('missing datacenter for client registration');
  if (n.Name === '') throw schedBadRequest('missing node name for client registration');
  if (n.Attributes === null || Object.keys(n.Attributes).length === 0) throw schedBadRequest('missing attributes for client registration');
  if (n.SecretID === '') throw schedBadRequest('missing node secret ID for client registration');
  if (!UUID.test(n.ID)) throw schedBadRequest(`invalid node ID "${n.ID}": must be a UUID`);
  const pool = n.NodePool || 'default';
  if (!NODE_POOL_NAME.test(pool)) throw schedBadRequest(`invalid node pool: invalid name "${pool}", must match regex ${NODE_POOL_NAME.source}`);
  if (pool === 'all') throw schedBadRequest('node is not allowed to register in node pool "all"');
  const status = n.Status || 'initializing';
  if (!(NODE_STATUSES as readonly string[]).includes(status)) throw schedBadRequest('invalid status for node');
  const eligibility = n.SchedulingEligibility || 'eligible';
  if (!(NODE_ELIGIBILITIES as readonly string[]).includes(eligibility)) throw schedBadRequest(`invalid scheduling eligibility "${eligibility}"`);
  return { ...n, NodePool: pool, Status: status, SchedulingEligibility: eligibility };
}

/**
 * The node stored by a registration of `n` over `old` (undefined: a new node) at write
 * `o.index`, `o.nowMs` epoch ms: a new node gets the event `Node registered`; a
 * re-registration keeps the node's events, eligibility, drain strategy and last drain, and
 * adds `Node re-registered` when it comes back from `down`. `ComputedClass` is recomputed.
 */
export function registeredNode(n: NodeRegistration, old: StoredNode | undefined, o: { index: number; nowMs: number }): StoredNode {
  const base: Omit<StoredNode, 'ComputedClass'> = {
    ...n,
    DrainStrategy: old ? old.DrainStrategy : null,
    SchedulingEligibility: old ? old.SchedulingEligibility : n.SchedulingEligibility,
    StatusUpdatedAt: Math.floor(o.nowMs / 1000),
    Events: !old
      ? [nodeEvent(o, NODE_EVENT.registered, 'Cluster')]
      : old.Status === 'down' && n.Status !== 'down'
        ? appendEvents(old.Events, nodeEvent(o, NODE_EVENT.reregistered, 'Cluster'))
        : old.Events,
    LastDrain: old?.LastDrain ?? null,
  };
  return { ...base, ComputedClass: computedClass(base) };
}

/** `v1:<uint64>` over the fields that make nodes interchangeable for scheduling (the reference's `ComputeClass`; unique.* keys excluded). */
function computedClass(n: Omit<StoredNode, 'ComputedClass'>): string {
  const notUnique = (m: Readonly<Record<string, string>> | null) =>
    Object.fromEntries(
      Object.entries(m ?? {})
        .filter(([k]) => !k.startsWith('unique.'))
        .sort(),
    );
  const digest = createHash('sha256')
    .update(JSON.stringify([n.Datacenter, notUnique(n.Attributes), notUnique(n.Meta), n.NodeClass, n.NodePool, n.NodeResources ?? null]))
    .digest();
  return `v1:${digest.readBigUInt64BE(0)}`;
}
