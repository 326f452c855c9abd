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
 * reference answers 500; reference/README.md rule 3). The evaluations node changes cause are
 * created by the leader's scheduler after the write (scheduler/leader.ts), so `EvalIDs` is
 * always null. Registration and status reports are heartbeats: they restart the node's
 * timer on the leader (scheduler/heartbeat.ts) and reply its `HeartbeatTTL` (ns).
 *
 * The node model (shapes, registration checks, events) is node.ts; this file adds ACL,
 * storage and HTTP.
 *
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import {
  appendEvents,
  decodeRegistration,
  drainedNode,
  NODE_ELIGIBILITIES,
  NODE_EVENT,
  NODE_STATUSES,
  nodeEvent,
  nodeStub,
  registeredNode,
  renderNode,
  statusMessage,
  type DrainRequest,
  type StoredNode,
} from '../node.js';
import { decodeNodePlugins, syncNodePlugins } from '../csi/node-report.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { PREFIX_QUERY, queryBool, queryUuidPrefix, requireInput } from '../request.js';
import { LABEL, T } from '../state.js';
import { decodeGoStruct } from '../go-struct.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { withBody } from '../../../kernel/http/index.js';

/**
 * The reply of a node write (the reference's `NodeUpdateResponse` / `NodeDrainUpdateResponse`
 * core) with `X-Sched-Index`; `index` 0: nothing changed. `extra` joins the body (`HeartbeatTTL`, `NumNodes`).
 */
function nodeWriteReply(index: number, extra: Record<string, unknown> = {}): SchedReply {
  return writeReply(index, { EvalIDs: null, EvalCreateIndex: 0, NodeModifyIndex: index, ...extra, Index: index });
}

const nodeNotFound = () => schedNotFound('node not found');

/** The `HeartbeatTTL` of replies to clients, in ns (0 when this server keeps no heartbeat timers). */
function heartbeatTtlNs(ctx: Ctx): number {
  return (ctx.deps.heartbeats?.ttlMs ?? 0) * 1e6;
}

const NODE_READ: SchedAccess = { node: 'read' };
const NODE_WRITE: SchedAccess = { node: 'write' };
/** `node:write`, or the secret of node `:id` (a client reporting on its own node). */
const NODE_WRITE_OR_ITSELF = (ctx: Ctx): SchedAccess => ({ node: 'write', or: { node: ctx.params.id! } });

/**
 * The body of a registration (the reference's `structs.NodeRegisterRequest`): `Node` is
 * decoded and checked by {@link decodeRegistration}, whose texts name `structs.Node`.
 */
const RegisterBody = Go.struct('structs.NodeRegisterRequest', { Node: Go.object('the node (structs.Node)') });

/** A registration's node and the CSI node plugins it reports itself (undefined: a plugin endpoint of this server serves it). */
interface Registration {
  readonly n: ReturnType<typeof decodeRegistration>;
  readonly reported: ReturnType<typeof decodeNodePlugins> | undefined;
}

/** Each request's {@link Registration}, computed once by its access rule for the handler. */
const registrations = new WeakMap<Ctx, Registration>();

/**
 * The registration in the decoded body, computed once per request: the node, and the CSI
 * node plugins it reports itself when no plugin endpoint of this server serves it
 * (csi/node-report.ts), with `UpdateTime` now. @throws 400 `Request body is empty`, the
 * texts of {@link decodeRegistration} and `decodeNodePlugins`.
 */
function registration(ctx: Ctx): Registration {
  const known = registrations.get(ctx);
  if (known) return known;
  const n = decodeRegistration(requireInput(ctx.input<Static<typeof RegisterBody>>()).Node);
  const made = {
    n,
    reported: ctx.deps.plugins.servesNode(n.ID) ? undefined : decodeNodePlugins(n.CSINodePlugins, formatTime(new Date(ctx.deps.now()))),
  };
  registrations.set(ctx, made);
  return made;
}

/** The body of a node's status report (the reference's `structs.NodeUpdateStatusRequest`; `NodeEvent` decoded as `structs.NodeEvent`). */
const StatusBody = Go.struct('structs.NodeUpdateStatusRequest', {
  Status: Go.string('initializing, ready, down or disconnected'),
  StatusDescription: Go.string(),
  NodeEvent: Go.object('{"Message", "Subsystem", "Details"}: an event to append'),
});

/** The body of an eligibility change (the reference's `structs.NodeUpdateEligibilityRequest`). */
const EligibilityBody = Go.struct('structs.NodeUpdateEligibilityRequest', { Eligibility: Go.string('eligible or ineligible') });

/** The body of a drain update (the reference's `api.NodeUpdateDrainRequest`; `DrainSpec` decoded as `api.DrainSpec`). */
const DrainBody = Go.struct('api.NodeUpdateDrainRequest', {
  DrainSpec: Go.object('{"Deadline": <ns>, "IgnoreSystemJobs": bool}; null clears the drain'),
  MarkEligible: Go.bool(),
  Meta: Go.map(),
});

// ---------------------------------------------------------------------------------------
// Handlers

/**
 * `PUT /v1/node/register` (Cairn extension for the reference's `Node.Register` RPC): body
 * `{"Node": {...}}` checked by {@link decodeRegistration}, stored by {@link registeredNode}
 * (label `NodeRegistration`). Replies `{…, "HeartbeatTTL": <TTL in ns>, "NumNodes": n}`. A node already
 * registered may re-register with its own `SecretID` as the token (node-secret.ts). The
 * `CSINodePlugins` of a node no plugin endpoint of this server serves (a client-only agent's)
 * go into the plugin rows in the same write (csi/node-report.ts). @throws 400 the texts of
 * `decodeNodePlugins`;
 * with the texts of {@link decodeRegistration}; 400 `node secret ID does not match. Not
 * registering node.` when the node exists with another secret; 403 without `node:write`.
 */
async function register(ctx: Ctx): Promise<SchedReply> {
  const nowMs = ctx.deps.now();
  const { n, reported } = registration(ctx);
  const { index } = await ctx.deps.state.txn((tx) => {
    const old = tx.get<StoredNode>(T.nodes, n.ID);
    if (old && old.SecretID !== '' && old.SecretID !== n.SecretID) throw schedBadRequest('node secret ID does not match. Not registering node.');
    tx.put<StoredNode>(T.nodes, n.ID, { ...registeredNode(n, old, { index: tx.index, nowMs }), ...(reported && { CSIReported: true }) });
    if (reported) syncNodePlugins(tx, n.ID, reported);
  }, LABEL.nodeRegister);
  // Counted after the write (not by listing, and so sorting, every node inside it).
  return nodeWriteReply(index, { HeartbeatTTL: heartbeatTtlNs(ctx), NumNodes: ctx.deps.state.count(T.nodes) });
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

/**
 * A node's status report (Cairn extension for the reference's `Node.UpdateStatus` RPC):
 * body `{"Status": "initializing"|"ready"|"down"|"disconnected", "StatusDescription"?,
 * "NodeEvent"?: {"Message", "Subsystem", "Details"}}`. Writes (label `NodeEvent`) only when
 * the status changes or an event is given, as the reference (a heartbeat either way); appends the given event, or one
 * describing the change, keeping the newest 10. The node's own `SecretID` as the token
 * authorises it too (its heartbeat). @throws 400 `invalid status for node`,
 * `missing node event message`; 404 `node not found`; 403 without the node's secret or `node:write`.
 */
async function updateStatus(ctx: Ctx, input: Static<typeof StatusBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  const status = body.Status;
  if (!(NODE_STATUSES as readonly string[]).includes(status)) throw schedBadRequest('invalid status for node');
  // Decoded on its own, as its texts name `structs.NodeEvent`; null when absent.
  const given =
    body.NodeEvent === null ? null : decodeGoStruct(body.NodeEvent, 'structs.NodeEvent', { Message: 'string', Subsystem: 'string', Details: 'map' });
  if (given && given.Message === '') throw schedBadRequest('missing node event message');
  const now = ctx.deps.now();
  const index = await updateNode(ctx, LABEL.nodeEvent, (tx, node) => {
    if (node.Status === status && !given) return false;
    const at = { index: tx.index, nowMs: now };
    const event = given
      ? nodeEvent(at, given.Message as string, (given.Subsystem as string) || 'Cluster', given.Details as Record<string, string> | null)
      : nodeEvent(at, statusMessage(node.Status, status), 'Cluster');
    tx.put<StoredNode>(T.nodes, node.ID, {
      ...node,
      Status: status,
      StatusDescription: body.StatusDescription,
      StatusUpdatedAt: Math.floor(now / 1000),
      Events: appendEvents(node.Events, event),
    });
    return true;
  });
  // A report that changes nothing writes nothing, and is still the node's heartbeat.
  if (status !== 'down') ctx.deps.heartbeats?.touch(ctx.params.id!);
  return nodeWriteReply(index, { HeartbeatTTL: heartbeatTtlNs(ctx) });
}

/**
 * `POST|PUT /v1/node/:id/eligibility` (the reference's `Node.UpdateEligibility`): body
 * `{"Eligibility": "eligible"|"ineligible"}`. No write when unchanged (reply index 0);
 * otherwise label `NodeEligibility` and the event `Node marked as (in)eligible for scheduling`.
 * @throws 400 `invalid scheduling eligibility "<e>"`, `can not set node's scheduling
 * eligibility to eligible while it is draining`; 404 `node not found`; 403 without `node:write`.
 */
async function updateEligibility(ctx: Ctx, input: Static<typeof EligibilityBody> | undefined): Promise<SchedReply> {
  const eligibility = requireInput(input).Eligibility;
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
      Events: appendEvents(node.Events, nodeEvent({ index: tx.index, nowMs: now }, message, 'Cluster')),
    });
    return true;
  });
  return nodeWriteReply(index);
}

/**
 * `POST|PUT /v1/node/:id/drain` (the reference's `Node.UpdateDrain`): body `{"DrainSpec":
 * {"Deadline": <ns>, "IgnoreSystemJobs": bool} | null, "MarkEligible": bool, "Meta": {…}}`,
 * applied by {@link drainedNode} with the caller's accessor. Always one write, label `NodeDrain`.
 * @throws 400 for a body of the wrong shape; 404 `node not found`; 403 without `node:write`.
 */
async function updateDrain(ctx: Ctx, input: Static<typeof DrainBody> | undefined): Promise<SchedReply> {
  const accessor = ctx.caller.token.AccessorID;
  const body = requireInput(input);
  // Decoded on its own, as its texts name `api.DrainSpec`; null when absent.
  const spec = body.DrainSpec === null ? null : decodeGoStruct(body.DrainSpec, 'api.DrainSpec', { Deadline: 'int', IgnoreSystemJobs: 'bool' });
  const request: DrainRequest = {
    spec: spec && { Deadline: spec.Deadline as number, IgnoreSystemJobs: spec.IgnoreSystemJobs as boolean },
    markEligible: body.MarkEligible,
    // Null when absent (Go's zero value), though the declared type cannot say so.
    meta: (body.Meta as Record<string, string> | null) ?? null,
    accessor,
  };
  const nowMs = ctx.deps.now();
  const index = await updateNode(ctx, LABEL.nodeDrain, (tx, node) => {
    tx.put<StoredNode>(T.nodes, node.ID, drainedNode(node, request, { index: tx.index, nowMs }));
    return true;
  });
  return nodeWriteReply(index);
}

/** `POST|PUT /v1/node/:id/purge` (the reference's `Node.Deregister`): deletes the node, label `NodeDeregistration`. @throws 404 `node not found`; 403 without `node:write`. */
async function purge(ctx: Ctx): Promise<SchedReply> {
  const index = await updateNode(ctx, LABEL.nodeDeregister, (tx, node) => {
    // The plugins it reported itself lose it (a server's own registry keeps its endpoints' entries).
    if (node.CSIReported) syncNodePlugins(tx, node.ID, {});
    return tx.delete(T.nodes, node.ID);
  });
  return nodeWriteReply(index, { HeartbeatTTL: 0 });
}

/** Routes of this file (see the module doc); `node/register` is declared before `node/:id` (first match wins). */
export const nodeRoutes: readonly SchedRoute[] = [
  {
    pattern: 'node/register',
    synopsis: 'Register or re-register a client node (Cairn extension; the reference uses RPC)',
    // A node already known re-registers with its own secret (a client agent after the servers
    // forgot it or on restart); the body's 400s come first.
    methods: { PUT: { access: (ctx) => ({ node: 'write', or: { node: registration(ctx).n.ID } }), body: RegisterBody, handle: register } },
  },
  {
    pattern: 'nodes',
    synopsis: 'List client nodes as stubs; ?prefix= (UUID prefix), ?resources=, ?os=',
    blocking: [T.nodes],
    methods: {
      /** Stubs in ID order ({@link nodeStub}); 400 for a bad prefix or flag; 403 without `node:read`. */
      GET: {
        access: NODE_READ,
        query: {
          ...PREFIX_QUERY,
          resources: Type.Boolean({ description: 'Each stub also shows the node’s resources.' }),
          os: Type.Boolean({ description: 'Each stub also shows the node’s `os.name` attribute.' }),
        },
        handle: async (ctx) => {
          const prefix = queryUuidPrefix(ctx);
          const fields = { resources: queryBool(ctx, 'resources'), os: queryBool(ctx, 'os') };
          const nodes = ctx.deps.state.list<StoredNode>(T.nodes).filter((n) => n.ID.toLowerCase().startsWith(prefix));
          return { body: nodes.map((n) => nodeStub(n, fields)), index: ctx.deps.state.tableIndex(T.nodes) };
        },
      },
    },
  },
  {
    pattern: 'node/:id',
    synopsis: 'Read a client node (never its SecretID)',
    blocking: [T.nodes],
    methods: {
      /** The node ({@link renderNode}), `X-Sched-Index` its ModifyIndex; 404 `node not found`; 403 without `node:read`. */
      GET: {
        access: NODE_READ,
        handle: async (ctx) => {
          const node = ctx.deps.state.get<StoredNode>(T.nodes, ctx.params.id!);
          if (!node) throw nodeNotFound();
          return { body: renderNode(node), index: node.ModifyIndex };
        },
      },
    },
  },
  {
    pattern: 'node/:id/status',
    synopsis: "Report a node's status and append a node event (Cairn extension; the reference uses RPC)",
    methods: {
      POST: withBody(StatusBody, { access: NODE_WRITE_OR_ITSELF, handle: updateStatus }),
      PUT: withBody(StatusBody, { access: NODE_WRITE_OR_ITSELF, handle: updateStatus }),
    },
  },
  {
    pattern: 'node/:id/eligibility',
    synopsis: 'Mark a node eligible or ineligible for scheduling',
    methods: {
      POST: withBody(EligibilityBody, { access: NODE_WRITE, handle: updateEligibility }),
      PUT: withBody(EligibilityBody, { access: NODE_WRITE, handle: updateEligibility }),
    },
  },
  {
    pattern: 'node/:id/drain',
    synopsis: "Set, update or clear a node's drain strategy",
    methods: {
      POST: withBody(DrainBody, { access: NODE_WRITE, handle: updateDrain }),
      PUT: withBody(DrainBody, { access: NODE_WRITE, handle: updateDrain }),
    },
  },
  {
    pattern: 'node/:id/purge',
    synopsis: 'Deregister a node',
    methods: { POST: { access: NODE_WRITE, handle: purge }, PUT: { access: NODE_WRITE, handle: purge } },
  },
];
