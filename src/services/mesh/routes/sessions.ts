/**
 * The sessions API (issue 16 scope 5; reference/mesh-catalog.md "Sessions"; the
 * reference's `agent/session_endpoint.go` and `agent/consul/session_endpoint.go`):
 *
 * - `PUT /session/create` `{Name, Node (default: this agent's node), NodeChecks (default
 *   `["serfHealth"]`), ServiceChecks [{ID, Namespace}], Checks (legacy: node checks),
 *   LockDelay (Go duration, or a number: below 1000 seconds, else nanoseconds; default
 *   15s, at most 60s), Behavior (`release` | `delete`), TTL (`""`/`0` none, else 10s–24h)}`
 *   → `{"ID": "<uuid>"}`; needs `session:write` on the node; on agents sharing a state, a
 *   follower defaults `Node` to its own node and forwards the create to the leader;
 * - `PUT /session/destroy/:id` → `true` (also for an unknown id, as the reference);
 * - `PUT /session/renew/:id` → `[Session]`, 404 `Session id '<id>' not found`;
 * - `GET /session/info/:id` → `[Session]` or `[]`; `/session/node/:node`, `/session/list`
 *   → `[Session]`; blocking on the sessions table; `session:read` on the node, lists
 *   filtered (`X-Mesh-Results-Filtered-By-ACLs`).
 *
 * Validation errors are 400 (the reference answers 500) with the reference's texts.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { badRequest, forwardToLeader, PUBLIC, type Public } from '../../../kernel/http/index.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { formatGoDuration } from '../../../kernel/util/go-duration.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { duration, object, str, strings, type Input } from '../catalog/fields.js';
import { SERF_CHECK_ID } from '../catalog/model.js';
import { FILTERED_HEADER, required } from '../catalog/query.js';
import { ANY_CALLER, need, type MeshRouteSpec, type MeshRule } from '../access.js';
import type { Ctx } from '../deps.js';
import { MESH_FORWARD_STYLE, meshNotFound, type MeshReply } from '../http.js';
import { createProblem, invalidateSession, putSession, ST, startTimer, type Behavior, type ServiceCheckRef, type SessionDoc } from '../sessions/store.js';
import { anyCaseInput, ANY_CASE_BODY_KIND, meshBody } from '../body-decoding.js';

/** Default lock delay: 15 s in ns (the reference's `DefaultLockDelay`). */
const DEFAULT_LOCK_DELAY_NS = 15e9;
/** Longest lock delay: 60 s in ns (the reference documents 0–60 s; longer values are clamped). */
const MAX_LOCK_DELAY_NS = 60e9;
/** TTL bounds in ns: the reference's `session_ttl_min` default (10 s) and `SessionTTLMax` (24 h). */
const TTL_MIN_NS = 10e9;
const TTL_MAX_NS = 86_400e9;

/** A session as the API shows it, in the reference's field order. */
function render(s: SessionDoc & Indexed): Record<string, unknown> {
  return {
    ID: s.ID,
    Name: s.Name,
    Node: s.Node,
    LockDelay: s.LockDelay,
    Behavior: s.Behavior,
    TTL: s.TTL,
    NodeChecks: s.NodeChecks,
    ServiceChecks: s.ServiceChecks.length > 0 ? s.ServiceChecks : null,
    CreateIndex: s.CreateIndex,
    ModifyIndex: s.ModifyIndex,
  };
}

/**
 * `LockDelay` in ns: a Go duration string, or a number read as the reference's
 * `FixupLockDelay` does (below 1000: seconds; else nanoseconds); default 15 s, clamped to 60 s.
 * @throws 400 naming the field.
 */
function lockDelayNs(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_LOCK_DELAY_NS;
  let ns: number;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) throw badRequest('LockDelay must be a non-negative duration');
    ns = v < 1000 ? v * 1e9 : v;
  } else {
    ns = duration(v, 'LockDelay') * 1e6;
  }
  return Math.min(Math.round(ns), MAX_LOCK_DELAY_NS);
}

/**
 * `TTL` → its ms (0: none). @throws 400 `Session TTL '<ttl>' invalid: …` or
 * `Invalid Session TTL '<ns>', must be between [10s=24h0m0s]` (the reference's texts).
 */
function ttlMs(ttl: string): number {
  if (ttl === '') return 0;
  let ms: number;
  try {
    ms = duration(ttl, 'TTL');
  } catch {
    throw badRequest(`Session TTL '${ttl}' invalid: time: invalid duration ${JSON.stringify(ttl)}`);
  }
  const ns = ms * 1e6;
  if (ns !== 0 && (ns < TTL_MIN_NS || ns > TTL_MAX_NS)) {
    throw badRequest(`Invalid Session TTL '${Math.round(ns)}', must be between [${formatGoDuration(TTL_MIN_NS)}=${formatGoDuration(TTL_MAX_NS)}]`);
  }
  return ms;
}

/** `ServiceChecks`: `[{ID, Namespace}]`. @throws 400 naming the field. */
function serviceChecks(v: unknown): ServiceCheckRef[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw badRequest('ServiceChecks must be a list');
  return v.map((c, i) => {
    const o = object(c, `ServiceChecks[${i}]`) ?? {};
    const id = str(o.ID, `ServiceChecks[${i}].ID`);
    if (id === '') throw badRequest(`ServiceChecks[${i}].ID must not be empty`);
    // Kept as given: `""` in the community edition, as the reference shows it.
    return { ID: id, Namespace: str(o.Namespace, `ServiceChecks[${i}].Namespace`) };
  });
}

/**
 * The `PUT /session/create` body, names in any case, the strings in the order
 * {@link parseCreate} checks them; the fields with their own texts (the lists, `LockDelay`'s
 * number reading) are `any` and checked there.
 */
const SessionBody = meshBody(
  'Session',
  {
    Behavior: Go.string('`release` (default) or `delete`'),
    TTL: Go.string('a Go duration, 10s–24h; "" (default) for none'),
    NodeChecks: Go.any('node check IDs (a list of strings); default ["serfHealth"]'),
    Checks: Go.any('the older spelling of NodeChecks'),
    Name: Go.string(),
    Node: Go.string("default: this agent's node"),
    LockDelay: Go.any('a Go duration, or a number (below 1000: seconds, else nanoseconds); default 15s, at most 60s'),
    ServiceChecks: Go.any('[{ID, Namespace}]'),
  },
  { anyCase: true },
);

/** Parses a create body into a session with a fresh ID, and its TTL in ms. @throws 400 naming the field. */
function parseCreate(input: Input, agentNode: string): { session: SessionDoc; ttl: number } {
  const behavior = str(input.Behavior, 'Behavior') || 'release';
  if (behavior !== 'release' && behavior !== 'delete') throw badRequest(`Invalid Behavior setting '${behavior}'`);
  const ttl = str(input.TTL, 'TTL');
  // `Checks` is the reference's older spelling of node checks; with neither, the agent's health check.
  const given = input.NodeChecks ?? input.Checks;
  const nodeChecks = given === undefined || given === null ? [SERF_CHECK_ID] : strings(given, input.NodeChecks !== undefined ? 'NodeChecks' : 'Checks');
  return {
    session: {
      ID: randomUUID(),
      Name: str(input.Name, 'Name'),
      Node: str(input.Node, 'Node') || agentNode,
      LockDelay: lockDelayNs(input.LockDelay),
      Behavior: behavior as Behavior,
      TTL: ttl,
      NodeChecks: [...new Set(nodeChecks)],
      ServiceChecks: serviceChecks(input.ServiceChecks),
    },
    ttl: ttlMs(ttl),
  };
}

/** `session:write` on the node a create names (this agent's by default). @throws 400 for a bad field. */
function createRule(ctx: Ctx): MeshRule {
  return need('session', 'write', parseCreate(anyCaseInput(ctx), ctx.deps.config.nodeName).session.Node);
}

/**
 * `PUT /session/create` → `{ID}`. @throws 400 for a bad field, an unknown node (`Missing
 * node registration`), an unknown check (`Missing check '<id>' registration`) or a critical
 * one (`Check '<id>' is in critical state`).
 */
async function create(ctx: Ctx): Promise<MeshReply> {
  const input = anyCaseInput(ctx);
  const { session, ttl } = parseCreate(input, ctx.deps.config.nodeName);
  const { leadership, state } = ctx.deps;
  if (leadership && !state.isWritable) {
    // A follower names its own node before the leader (which would default to its own) gets it.
    const req = { ...ctx.req, body: Buffer.from(JSON.stringify({ ...input, Node: session.Node })) };
    return { forwarded: await forwardToLeader(req, leadership, ctx.secret, MESH_FORWARD_STYLE) };
  }
  const now = ctx.deps.now();
  await ctx.deps.state.txn((tx) => {
    const problem = createProblem(tx, session);
    if (problem) throw badRequest(problem);
    putSession(tx, session, ttl, now);
  }, 'session-create');
  return { body: { ID: session.ID } };
}

/** The session of the path, if stored. */
function pathSession(ctx: Ctx): (SessionDoc & Indexed) | undefined {
  const id = required(ctx.params.id, 'Missing session');
  return ctx.deps.state.get<SessionDoc>(ST.sessions, id);
}

/** `session:write` on the node of the path's session; none for an unknown one (destroying it is a no-op). */
function destroyRule(ctx: Ctx): MeshRule | Public {
  const s = pathSession(ctx);
  return s ? need('session', 'write', s.Node) : PUBLIC;
}

/** `PUT /session/destroy/:id` → `true` (unknown ids too). */
async function destroy(ctx: Ctx): Promise<MeshReply> {
  const s = pathSession(ctx);
  if (!s) return { body: true };
  const now = ctx.deps.now();
  await ctx.deps.state.txn((tx) => invalidateSession(tx, s.ID, now), 'session-destroy');
  return { body: true };
}

const sessionGone = (ctx: Ctx) => meshNotFound(`Session id '${ctx.params.id}' not found`);

/** `session:write` on the node of the path's session. @throws 404 `Session id '<id>' not found` (before the caller is resolved, as the reference). */
function renewRule(ctx: Ctx): MeshRule {
  const s = pathSession(ctx);
  if (!s) throw sessionGone(ctx);
  return need('session', 'write', s.Node);
}

/**
 * `PUT /session/renew/:id` → `[Session]`, its TTL timer restarted (renew time + 2 × TTL).
 * @throws 404 `Session id '<id>' not found`.
 */
async function renew(ctx: Ctx): Promise<MeshReply> {
  const s = pathSession(ctx);
  if (!s) throw sessionGone(ctx);
  const now = ctx.deps.now();
  const { result } = await ctx.deps.state.txn((tx) => {
    const current = tx.get<SessionDoc>(ST.sessions, s.ID);
    if (!current) return undefined;
    // Only the timer moves: the session's ModifyIndex stays, and its readers sleep on.
    const ms = current.TTL === '' ? 0 : ttlMs(current.TTL);
    if (ms > 0) startTimer(tx, current.ID, ms, now);
    return current;
  }, 'session-renew');
  if (!result) throw sessionGone(ctx);
  return { body: [render(result)] };
}

/** A list reply: the sessions the caller may read, the index of the sessions table. */
function listReply(ctx: Ctx, sessions: readonly (SessionDoc & Indexed)[]): MeshReply {
  const who = ctx.caller;
  const shown = sessions.filter((s) => who.authorizer.allowed('session', 'read', s.Node));
  const headers = shown.length < sessions.length && ctx.secret ? { [FILTERED_HEADER]: 'true' } : undefined;
  return { body: shown.map(render), headers, index: ctx.deps.state.tableIndex(ST.sessions) };
}

/** `GET /session/info/:id` → `[Session]`, `[]` when unknown (or not readable). */
async function info(ctx: Ctx): Promise<MeshReply> {
  const s = pathSession(ctx);
  return listReply(ctx, s ? [s] : []);
}

/** `GET /session/node/:node` → the sessions of the node. */
async function ofNode(ctx: Ctx): Promise<MeshReply> {
  const node = required(ctx.params.node, 'Missing node name');
  return listReply(
    ctx,
    ctx.deps.state.list<SessionDoc>(ST.sessions).filter((s) => s.Node === node),
  );
}

/** `GET /session/list` → every session. */
async function list(ctx: Ctx): Promise<MeshReply> {
  return listReply(ctx, ctx.deps.state.list<SessionDoc>(ST.sessions));
}

/**
 * The session routes: writes need `session:write` on the session's node, reads any caller
 * (the lists are filtered by `session:read`).
 */
export const sessionRoutes: readonly MeshRouteSpec[] = [
  // Local: a follower fills in its own node as the default before forwarding (see create).
  {
    pattern: 'session/create',
    synopsis: 'Create a session',
    methods: { PUT: { access: createRule, forward: 'local', body: SessionBody, bodyKind: ANY_CASE_BODY_KIND, handle: create } },
  },
  { pattern: 'session/destroy/:id', synopsis: 'Destroy a session, releasing or deleting its keys', methods: { PUT: { access: destroyRule, handle: destroy } } },
  { pattern: 'session/renew/:id', synopsis: 'Renew a TTL session', methods: { PUT: { access: renewRule, handle: renew } } },
  { pattern: 'session/info/:id', synopsis: 'Read a session', methods: { GET: { access: ANY_CALLER, handle: info } }, blocking: [ST.sessions] },
  { pattern: 'session/node/:node', synopsis: 'The sessions of a node', methods: { GET: { access: ANY_CALLER, handle: ofNode } }, blocking: [ST.sessions] },
  { pattern: 'session/list', synopsis: 'Every session', methods: { GET: { access: ANY_CALLER, handle: list } }, blocking: [ST.sessions] },
];
