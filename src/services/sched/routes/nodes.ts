/**
 * Client nodes (reference/sched.md §5, spec 002 "`Node` payload fields"). The reference's
 * clients register and report over RPC; Cairn has no client RPC, so registration, status
 * reports, eligibility, drain and purge are HTTP endpoints here (a Cairn extension for
 * `register` and `status`; `eligibility`, `drain`, `purge` and the reads are the reference's
 * own HTTP routes):
 *
 * ```text
 * PUT      /v1/node/register          {"Node": {...}}                      node:write  NodeRegistration
 * POST|PUT /v1/node/:id/status        {"Status", "NodeEvent"?}             node:write  NodeEvent
 * POST|PUT /v1/node/:id/eligibility   {"Eligibility": "eligible"|"ineligible"}  node:write  NodeEligibility
 * POST|PUT /v1/node/:id/drain         {"DrainSpec": {...}|null, "MarkEligible"?, "Meta"?}  node:write  NodeDrain
 * POST|PUT /v1/node/:id/purge                                             node:write  NodeDeregistration
 * GET      /v1/nodes?prefix=&resources=&os=                               node:read   (blocking on nodes)
 * GET      /v1/node/:id                                                   node:read   (blocking on nodes)
 * ```
 *
 * Every write is one state transaction labelled with the event type it produces (state.ts
 * `LABEL`), so the event stream types its Node events by it (reference/sched.md §3.4). A
 * node's `SecretID` is never output. Writes on a missing node are 404 `node not found` (the
 * reference answers 500; reference/README.md rule 3). Cairn schedules nothing, so writes
 * create no evaluations: `EvalIDs` is always null.
 *
 * Also the Go-style body decoding the scheduler's Cairn-extension routes share
 * ({@link decodeGoStruct}) and the UUID prefix rule of list endpoints ({@link checkUuidPrefix}).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { identityOf, requireAllowed, type Ctx, type SchedDeps } from '../deps.js';
import { parseGoBool, schedBadRequest, schedNotFound, type SchedReply, type SchedRoute } from '../http.js';
import { LABEL, MAX_NODE_EVENTS, T, type NodeDoc, type NodeEventDoc } from '../state.js';

/** Node statuses (reference/sched.md §5). */
export const NODE_STATUSES = ['initializing', 'ready', 'down', 'disconnected'] as const;
/** Scheduling eligibilities (reference/sched.md §5). */
export const NODE_ELIGIBILITIES = ['eligible', 'ineligible'] as const;
/** Valid node pool names (the reference's `validNodePoolName`). */
const NODE_POOL_NAME = /^[a-zA-Z0-9-_]{1,128}$/;
/** A canonical UUID, the reference's node and allocation ID shape. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
  eligible: 'Node marked as eligible for scheduling',
  ineligible: 'Node marked as ineligible for scheduling',
} as const;

/** A stored node: {@link NodeDoc} plus the drain bookkeeping the reference keeps (`LastDrain`). */
export type StoredNode = NodeDoc & { readonly LastDrain?: LastDrain | null };

/** The reference's `DrainMetadata`: when and by whom the last drain ran. Times RFC3339. */
export interface LastDrain {
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

// ---------------------------------------------------------------------------------------
// Body decoding shared by the Cairn-extension routes

/** A body field's Go type: string, bool, int64, `map[string]string`, an object (struct/map), or anything (kept as is). */
export type GoKind = 'string' | 'bool' | 'int' | 'map' | 'object' | 'any';

const GO_TYPE_NAME: Readonly<Record<GoKind, string>> = { string: 'string', bool: 'bool', int: 'int64', map: 'map[string]string', object: 'struct', any: 'interface {}' };

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Decodes the JSON object `body` into `fields` the way Go's `encoding/json` decodes into a
 * struct (reference/sched.md §1.1): names match case-insensitively (an exact match is
 * preferred, a later key overwrites an earlier one), unknown fields are ignored, absent and `null` fields take the zero value (`""`, `false`,
 * `0`, `null`). @throws 400 `json: cannot unmarshal <kind> into Go value of type <goType>`
 * for a non-object, `json: cannot unmarshal <kind> into Go struct field <goType>.<Field> of
 * type <type>` for a value of the wrong kind.
 */
export function decodeGoStruct(body: unknown, goType: string, fields: Readonly<Record<string, GoKind>>): Record<string, unknown> {
  if (!isObject(body)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(body)} into Go value of type ${goType}`);
  const names = Object.keys(fields);
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const kind = fields[name]!;
    out[name] = kind === 'string' ? '' : kind === 'bool' ? false : kind === 'int' ? 0 : null;
  }
  for (const [key, value] of Object.entries(body)) {
    const name = names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
    if (name === undefined || value === null || value === undefined) continue;
    out[name] = goValue(value, fields[name]!, `${goType}.${name}`);
  }
  return out;
}

function goValue(v: unknown, kind: GoKind, path: string): unknown {
  const mismatch = () => schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type ${GO_TYPE_NAME[kind]}`);
  switch (kind) {
    case 'string':
      if (typeof v !== 'string') throw mismatch();
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw mismatch();
      return v;
    case 'int':
      if (typeof v !== 'number') throw mismatch();
      if (!Number.isSafeInteger(v)) throw schedBadRequest(`json: cannot unmarshal number ${v} into Go struct field ${path} of type int64`);
      return v;
    case 'map':
      if (!isObject(v)) throw mismatch();
      for (const [k, s] of Object.entries(v)) {
        if (typeof s !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(s)} into Go struct field ${path}.${k} of type string`);
      }
      return { ...v };
    case 'object':
      if (!isObject(v)) throw mismatch();
      return v;
    case 'any':
      return v;
  }
}

/** The request's JSON body. @throws 400 `Request body is empty` (reference/sched.md §1.1); 400 for bad JSON. */
export function requireBody(ctx: Ctx): unknown {
  const body = ctx.body<unknown>();
  if (body === undefined) throw schedBadRequest('Request body is empty');
  return body;
}

/**
 * The reference's UUID prefix rule for `?prefix=` on node and allocation lists
 * (reference/sched.md §1.9, go-memdb `UUIDFieldIndex`). @throws 400 (the reference: 500)
 * `index error: Invalid UUID length. UUID have 36 characters; got <n>`, `index error: UUID
 * should have maximum of 4 "-"; got <n>`, `index error: Input (without hyphens) must be even
 * length`, `index error: Invalid UUID: encoding/hex: invalid byte: U+0067 'g'`.
 */
export function checkUuidPrefix(prefix: string): void {
  const fail = (why: string) => schedBadRequest(`index error: ${why}`);
  if (prefix.length > 36) throw fail(`Invalid UUID length. UUID have 36 characters; got ${prefix.length}`);
  const hyphens = prefix.split('-').length - 1;
  if (hyphens > 4) throw fail(`UUID should have maximum of 4 "-"; got ${hyphens}`);
  const hex = prefix.replaceAll('-', '');
  if (hex.length % 2 !== 0) throw fail('Input (without hyphens) must be even length');
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) {
    const cp = bad[0].codePointAt(0)!;
    throw fail(`Invalid UUID: encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${bad[0]}'`);
  }
}

/** `?name=` as Go's ParseBool, the way the reference's `parseBool` reads it. @throws 400 naming the parameter. */
export function queryBool(ctx: Ctx, name: string): boolean {
  const raw = ctx.query.get(name);
  if (raw === null) return false;
  const v = parseGoBool(raw);
  if (v === undefined) throw schedBadRequest(`Failed to parse value of "${name}" (${raw}) as a bool: strconv.ParseBool: parsing "${raw}": invalid syntax`);
  return v;
}

// ---------------------------------------------------------------------------------------
// Shapes

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

/** `v1:<uint64>` over the fields that make nodes interchangeable for scheduling (the reference's `ComputeClass`; unique.* keys excluded). */
function computedClass(n: Omit<StoredNode, 'ComputedClass'>): string {
  const notUnique = (m: Readonly<Record<string, string>> | null) => Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !k.startsWith('unique.')).sort());
  const digest = createHash('sha256')
    .update(JSON.stringify([n.Datacenter, notUnique(n.Attributes), notUnique(n.Meta), n.NodeClass, n.NodePool, n.NodeResources ?? null]))
    .digest();
  return `v1:${digest.readBigUInt64BE(0)}`;
}

/** A node event stamped now, at the transaction's index. */
function nodeEvent(tx: Txn, nowMs: number, message: string, subsystem: string, details: Readonly<Record<string, string>> | null = null): NodeEventDoc {
  return { Message: message, Subsystem: subsystem, Details: details, Timestamp: formatTime(new Date(nowMs)), CreateIndex: tx.index };
}

/** `events` plus `added`, keeping the newest {@link MAX_NODE_EVENTS} (the reference's `appendNodeEvents`). */
function appendEvents(events: readonly NodeEventDoc[], ...added: NodeEventDoc[]): NodeEventDoc[] {
  return [...events, ...added].slice(-MAX_NODE_EVENTS);
}

/** The reply of a node write (the reference's `NodeUpdateResponse` / `NodeDrainUpdateResponse` core); `index` 0: nothing changed. */
function writeReply(index: number, extra: Record<string, unknown> = {}): SchedReply {
  return {
    body: { EvalIDs: null, EvalCreateIndex: 0, NodeModifyIndex: index, ...extra, Index: index },
    headers: { 'X-Sched-Index': String(index) },
  };
}

const nodeNotFound = () => schedNotFound('node not found');

/** `node:write`. @throws 403 `Permission denied` (also for an unknown secret). */
function requireNodeWrite(ctx: Ctx): string {
  const who = identityOf(ctx);
  requireAllowed(who.authorizer.allowNodeWrite());
  return who.token.AccessorID;
}

/** `node:read`. @throws 403 `Permission denied`. */
function requireNodeRead(ctx: Ctx): void {
  requireAllowed(identityOf(ctx).authorizer.allowNodeRead());
}

// ---------------------------------------------------------------------------------------
// Handlers

/** A decoded registration body: {@link NODE_FIELDS} with their zero values filled in. */
interface NodeInput {
  readonly ID: string;
  readonly SecretID: string;
  readonly Datacenter: string;
  readonly Name: string;
  readonly HTTPAddr: string;
  readonly TLSEnabled: boolean;
  readonly Attributes: Record<string, string> | null;
  readonly NodeResources: unknown;
  readonly ReservedResources: unknown;
  readonly Resources: unknown;
  readonly Reserved: unknown;
  readonly Links: Record<string, string> | null;
  readonly Meta: Record<string, string> | null;
  readonly NodeClass: string;
  readonly NodePool: string;
  readonly SchedulingEligibility: string;
  readonly Status: string;
  readonly StatusDescription: string;
  readonly Drivers: Record<string, unknown> | null;
  readonly CSIControllerPlugins: Record<string, unknown> | null;
  readonly CSINodePlugins: Record<string, unknown> | null;
  readonly HostVolumes: Record<string, unknown> | null;
}

/** The registration body's fields (the reference's `structs.Node`, less what the server sets). */
const NODE_FIELDS: Readonly<Record<keyof NodeInput, GoKind>> = {
  ID: 'string', SecretID: 'string', Datacenter: 'string', Name: 'string', HTTPAddr: 'string', TLSEnabled: 'bool',
  Attributes: 'map', NodeResources: 'any', ReservedResources: 'any', Resources: 'any', Reserved: 'any',
  Links: 'map', Meta: 'map', NodeClass: 'string', NodePool: 'string', SchedulingEligibility: 'string',
  Status: 'string', StatusDescription: 'string', Drivers: 'object', CSIControllerPlugins: 'object',
  CSINodePlugins: 'object', HostVolumes: 'object',
};

/**
 * Registers or re-registers a node (the reference's `Node.Register`, reference/sched.md §5),
 * checking in the reference's order: `missing node for client registration`, `missing node
 * ID …`, `missing datacenter …`, `missing node name …`, `missing attributes …` (an empty map
 * too), `missing node secret ID …`, then `invalid node pool: invalid name "<p>", must match
 * regex …`, `node is not allowed to register in node pool "all"`, `invalid status for node`.
 * Cairn also requires a UUID `ID` (`invalid node ID "<id>": must be a UUID`; the reference's
 * state index refuses others) and checks `SchedulingEligibility` (`invalid scheduling
 * eligibility "<e>"`). Defaults: Status `initializing`, SchedulingEligibility `eligible`,
 * NodePool `default`. A new node gets the event `Node registered`; a re-registration keeps
 * the node's events, eligibility, drain strategy and last drain, and adds `Node re-registered`
 * when it comes back from `down`. @throws 400 `node secret ID does not match. Not registering node.`
 * when the node exists with another secret; 403 without `node:write`.
 */
async function register(ctx: Ctx): Promise<SchedReply> {
  requireNodeWrite(ctx);
  const body = decodeGoStruct(requireBody(ctx), 'structs.NodeRegisterRequest', { Node: 'object' });
  if (body.Node === null) throw schedBadRequest('missing node for client registration');
  const n = decodeGoStruct(body.Node, 'structs.Node', NODE_FIELDS) as unknown as NodeInput;
  const id = n.ID;
  if (id === '') throw schedBadRequest('missing node ID for client registration');
  if (n.Datacenter === '') throw schedBadRequest('missing datacenter for client registration');
  if (n.Name === '') throw schedBadRequest('missing node name for client registration');
  if (n.Attributes === null || Object.keys(n.Attributes).length === 0) throw schedBadRequest('missing attributes for client registration');
  if (n.SecretID === '') throw schedBadRequest('missing node secret ID for client registration');
  if (!UUID.test(id)) throw schedBadRequest(`invalid node ID "${id}": must be a UUID`);
  const pool = n.NodePool || 'default';
  if (!NODE_POOL_NAME.test(pool)) throw schedBadRequest(`invalid node pool: invalid name "${pool}", must match regex ${NODE_POOL_NAME.source}`);
  if (pool === 'all') throw schedBadRequest('node is not allowed to register in node pool "all"');
  const status = n.Status || 'initializing';
  if (!(NODE_STATUSES as readonly string[]).includes(status)) throw schedBadRequest('invalid status for node');
  const eligibility = n.SchedulingEligibility || 'eligible';
  if (!(NODE_ELIGIBILITIES as readonly string[]).includes(eligibility)) throw schedBadRequest(`invalid scheduling eligibility "${eligibility}"`);

  const now = ctx.deps.now();
  const { result, index } = await ctx.deps.state.txn((tx) => {
    const old = tx.get<StoredNode>(T.nodes, id);
    if (old && old.SecretID !== '' && old.SecretID !== n.SecretID) throw schedBadRequest('node secret ID does not match. Not registering node.');
    const base: Omit<StoredNode, 'ComputedClass'> = {
      ID: id,
      SecretID: n.SecretID,
      Datacenter: n.Datacenter,
      Name: n.Name,
      HTTPAddr: n.HTTPAddr,
      TLSEnabled: n.TLSEnabled,
      Attributes: n.Attributes ?? {},
      NodeResources: n.NodeResources,
      ReservedResources: n.ReservedResources,
      Resources: n.Resources,
      Reserved: n.Reserved,
      Links: n.Links,
      Meta: n.Meta,
      NodeClass: n.NodeClass,
      NodePool: pool,
      DrainStrategy: old ? old.DrainStrategy : null,
      SchedulingEligibility: old ? old.SchedulingEligibility : eligibility,
      Status: status,
      StatusDescription: n.StatusDescription,
      StatusUpdatedAt: Math.floor(now / 1000),
      Events: !old
        ? [nodeEvent(tx, now, NODE_EVENT.registered, 'Cluster')]
        : old.Status === 'down' && status !== 'down'
          ? appendEvents(old.Events, nodeEvent(tx, now, NODE_EVENT.reregistered, 'Cluster'))
          : old.Events,
      Drivers: n.Drivers,
      CSIControllerPlugins: n.CSIControllerPlugins,
      CSINodePlugins: n.CSINodePlugins,
      HostVolumes: n.HostVolumes,
      LastDrain: old?.LastDrain ?? null,
    };
    tx.put<StoredNode>(T.nodes, id, { ...base, ComputedClass: computedClass(base) });
    return tx.list(T.nodes).length;
  }, LABEL.nodeRegister);
  return writeReply(index, { HeartbeatTTL: 0, NumNodes: result });
}

/**
 * Runs `fn` on node `:id` in one transaction labelled `label`; `fn` returns whether it
 * wrote. Resolves with the commit index, or 0 when nothing was written (the reference's
 * reply index of a no-op). @throws 404 `node not found`, whatever `fn` throws.
 */
async function updateNode(ctx: Ctx, label: string, fn: (tx: Txn, node: StoredNode & Indexed) => boolean): Promise<number> {
  const { result, index } = await ctx.deps.state.txn((tx) => {
    const node = tx.get<StoredNode>(T.nodes, ctx.params.id!);
    if (!node) throw nodeNotFound();
    return fn(tx, node);
  }, label);
  return result ? index : 0;
}

/** Event of a status change with no `NodeEvent` given: the reference's heartbeat texts, else a plain statement. */
function statusMessage(from: string, to: string): string {
  if (from === 'down' && to !== 'down') return NODE_EVENT.heartbeatReregistered;
  if (to === 'down') return NODE_EVENT.heartbeatMissed;
  return `Node status changed to ${to}`;
}

/**
 * A node's status report (Cairn extension for the reference's `Node.UpdateStatus` RPC):
 * body `{"Status": "initializing"|"ready"|"down"|"disconnected", "StatusDescription"?,
 * "NodeEvent"?: {"Message", "Subsystem", "Details"}}`. Writes (label `NodeEvent`) only when
 * the status changes or an event is given, as the reference; appends the given event, or one
 * describing the change, keeping the newest 10. @throws 400 `invalid status for node`,
 * `missing node event message`; 404 `node not found`; 403 without `node:write`.
 */
async function updateStatus(ctx: Ctx): Promise<SchedReply> {
  requireNodeWrite(ctx);
  const body = decodeGoStruct(requireBody(ctx), 'structs.NodeUpdateStatusRequest', { Status: 'string', StatusDescription: 'string', NodeEvent: 'object' });
  const status = body.Status as string;
  if (!(NODE_STATUSES as readonly string[]).includes(status)) throw schedBadRequest('invalid status for node');
  const given = body.NodeEvent === null ? null : decodeGoStruct(body.NodeEvent, 'structs.NodeEvent', { Message: 'string', Subsystem: 'string', Details: 'map' });
  if (given && given.Message === '') throw schedBadRequest('missing node event message');
  const now = ctx.deps.now();
  const index = await updateNode(ctx, LABEL.nodeEvent, (tx, node) => {
    if (node.Status === status && !given) return false;
    const event = given
      ? nodeEvent(tx, now, given.Message as string, (given.Subsystem as string) || 'Cluster', given.Details as Record<string, string> | null)
      : nodeEvent(tx, now, statusMessage(node.Status, status), 'Cluster');
    tx.put<StoredNode>(T.nodes, node.ID, {
      ...node,
      Status: status,
      StatusDescription: body.StatusDescription as string,
      StatusUpdatedAt: Math.floor(now / 1000),
      Events: appendEvents(node.Events, event),
    });
    return true;
  });
  return writeReply(index, { HeartbeatTTL: 0 });
}

/**
 * `POST|PUT /v1/node/:id/eligibility` (the reference's `Node.UpdateEligibility`): body
 * `{"Eligibility": "eligible"|"ineligible"}`. No write when unchanged (reply index 0);
 * otherwise label `NodeEligibility` and the event `Node marked as (in)eligible for scheduling`.
 * @throws 400 `invalid scheduling eligibility "<e>"`, `can not set node's scheduling
 * eligibility to eligible while it is draining`; 404 `node not found`; 403 without `node:write`.
 */
async function updateEligibility(ctx: Ctx): Promise<SchedReply> {
  requireNodeWrite(ctx);
  const body = decodeGoStruct(requireBody(ctx), 'structs.NodeUpdateEligibilityRequest', { Eligibility: 'string' });
  const eligibility = body.Eligibility as string;
  if (!(NODE_ELIGIBILITIES as readonly string[]).includes(eligibility)) throw schedBadRequest(`invalid scheduling eligibility "${eligibility}"`);
  const now = ctx.deps.now();
  const index = await updateNode(ctx, LABEL.nodeEligibility, (tx, node) => {
    if (node.DrainStrategy && eligibility === 'eligible') throw schedBadRequest("can not set node's scheduling eligibility to eligible while it is draining");
    if (node.SchedulingEligibility === eligibility) return false;
    const message = eligibility === 'eligible' ? NODE_EVENT.eligible : NODE_EVENT.ineligible;
    tx.put<StoredNode>(T.nodes, node.ID, {
      ...node,
      SchedulingEligibility: eligibility,
      StatusUpdatedAt: Math.floor(now / 1000),
      Events: appendEvents(node.Events, nodeEvent(tx, now, message, 'Cluster')),
    });
    return true;
  });
  return writeReply(index);
}

/**
 * `POST|PUT /v1/node/:id/drain` (the reference's `Node.UpdateDrain`): body `{"DrainSpec":
 * {"Deadline": <ns>, "IgnoreSystemJobs": bool} | null, "MarkEligible": bool, "Meta": {…}}`.
 * A spec sets (or updates, keeping `StartedAt`) the `DrainStrategy` and makes the node
 * ineligible; `null` clears it and, with `MarkEligible`, makes the node eligible again.
 * `ForceDeadline` = start + Deadline when positive. `LastDrain` records status `draining` /
 * `canceled`, the caller's accessor and `Meta`. Events `Node drain strategy set|updated`,
 * `Node drain disabled` (subsystem `Drain`). Always one write, label `NodeDrain`.
 * @throws 400 for a body of the wrong shape; 404 `node not found`; 403 without `node:write`.
 */
async function updateDrain(ctx: Ctx): Promise<SchedReply> {
  const accessor = requireNodeWrite(ctx);
  const body = decodeGoStruct(requireBody(ctx), 'api.NodeUpdateDrainRequest', { DrainSpec: 'object', MarkEligible: 'bool', Meta: 'map' });
  const spec = body.DrainSpec === null ? null : decodeGoStruct(body.DrainSpec, 'api.DrainSpec', { Deadline: 'int', IgnoreSystemJobs: 'bool' });
  const now = ctx.deps.now();
  const stamp = formatTime(new Date(now));
  const index = await updateNode(ctx, LABEL.nodeDrain, (tx, node) => {
    const old = (node.DrainStrategy ?? null) as DrainStrategy | null;
    let drain: DrainStrategy | null = null;
    if (spec) {
      const startedAt = old?.StartedAt ?? stamp;
      const deadline = spec.Deadline as number;
      drain = {
        Deadline: deadline,
        IgnoreSystemJobs: spec.IgnoreSystemJobs as boolean,
        ForceDeadline: deadline > 0 ? formatTime(new Date(now + deadline / 1e6)) : ZERO_TIME,
        StartedAt: startedAt,
      };
    }
    const message = !old && drain ? NODE_EVENT.drainSet : old && drain ? NODE_EVENT.drainUpdated : old && !drain ? NODE_EVENT.drainDisabled : undefined;
    const meta = (body.Meta as Record<string, string> | null) ?? null;
    const lastDrain: LastDrain | null = drain
      ? { StartedAt: drain.StartedAt, UpdatedAt: stamp, Status: 'draining', AccessorID: accessor, Meta: meta }
      : old && node.LastDrain
        ? { ...node.LastDrain, UpdatedAt: stamp, Status: 'canceled' }
        : (node.LastDrain ?? null);
    tx.put<StoredNode>(T.nodes, node.ID, {
      ...node,
      DrainStrategy: drain,
      SchedulingEligibility: drain ? 'ineligible' : body.MarkEligible ? 'eligible' : node.SchedulingEligibility,
      StatusUpdatedAt: Math.floor(now / 1000),
      Events: message ? appendEvents(node.Events, nodeEvent(tx, now, message, 'Drain')) : node.Events,
      LastDrain: lastDrain,
    });
    return true;
  });
  return writeReply(index);
}

/** `POST|PUT /v1/node/:id/purge` (the reference's `Node.Deregister`): deletes the node, label `NodeDeregistration`. @throws 404 `node not found`; 403 without `node:write`. */
async function purge(ctx: Ctx): Promise<SchedReply> {
  requireNodeWrite(ctx);
  const index = await updateNode(ctx, LABEL.nodeDeregister, (tx, node) => tx.delete(T.nodes, node.ID));
  return writeReply(index, { HeartbeatTTL: 0 });
}

/** Routes of this file (see the module doc); `node/register` is declared before `node/:id` (first match wins). */
export const nodeRoutes: readonly SchedRoute<SchedDeps>[] = [
  {
    pattern: 'node/register',
    synopsis: 'Register or re-register a client node (Cairn extension; the reference uses RPC)',
    methods: { PUT: register },
  },
  {
    pattern: 'nodes',
    synopsis: 'List client nodes as stubs; ?prefix= (UUID prefix), ?resources=, ?os=',
    blocking: [T.nodes],
    methods: {
      /** Stubs in ID order ({@link nodeStub}); 400 for a bad prefix or flag; 403 without `node:read`. */
      GET: async (ctx) => {
        requireNodeRead(ctx);
        const prefix = ctx.query.get('prefix') ?? '';
        if (prefix !== '') checkUuidPrefix(prefix);
        const fields = { resources: queryBool(ctx, 'resources'), os: queryBool(ctx, 'os') };
        const lower = prefix.toLowerCase();
        const nodes = ctx.deps.state.list<StoredNode>(T.nodes).filter((n) => n.ID.toLowerCase().startsWith(lower));
        return { body: nodes.map((n) => nodeStub(n, fields)), index: ctx.deps.state.tableIndex(T.nodes) };
      },
    },
  },
  {
    pattern: 'node/:id',
    synopsis: 'Read a client node (never its SecretID)',
    blocking: [T.nodes],
    methods: {
      /** The node ({@link renderNode}), `X-Sched-Index` its ModifyIndex; 404 `node not found`; 403 without `node:read`. */
      GET: async (ctx) => {
        requireNodeRead(ctx);
        const node = ctx.deps.state.get<StoredNode>(T.nodes, ctx.params.id!);
        if (!node) throw nodeNotFound();
        return { body: renderNode(node), index: node.ModifyIndex };
      },
    },
  },
  {
    pattern: 'node/:id/status',
    synopsis: 'Report a node\'s status and append a node event (Cairn extension; the reference uses RPC)',
    methods: { POST: updateStatus, PUT: updateStatus },
  },
  {
    pattern: 'node/:id/eligibility',
    synopsis: 'Mark a node eligible or ineligible for scheduling',
    methods: { POST: updateEligibility, PUT: updateEligibility },
  },
  {
    pattern: 'node/:id/drain',
    synopsis: 'Set, update or clear a node\'s drain strategy',
    methods: { POST: updateDrain, PUT: updateDrain },
  },
  {
    pattern: 'node/:id/purge',
    synopsis: 'Deregister a node',
    methods: { POST: purge, PUT: purge },
  },
];
