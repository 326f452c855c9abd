/**
 * Agent endpoints (issue 16 scope 3; reference/mesh-catalog.md "Agent"): the local node's
 * services and checks (local/local-agent.ts), its self description and members.
 * Writes answer an empty 200 as the reference does. ACL: service writes need
 * `service:write` on the name, node checks and node maintenance `node:write`, reads are
 * filtered by `service:read` / `node:read`, `/agent/self` needs `agent:read`.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { BUILD, VERSION } from '../../../kernel/version/index.js';
import { aggregateStatus, CT, memberKey, renderCheck, SERF_CHECK_ID, type CheckDoc, type CheckStatus, type NodeDoc, type ServiceDoc } from '../catalog/model.js';
import { AclView, required } from '../catalog/query.js';
import { str } from '../catalog/fields.js';
import { requireAccess, type Ctx, type MeshDeps } from '../deps.js';
import { meshNotFound, type MeshReply, type MeshRoute } from '../http.js';
import { parseCheck, parseServiceRegistration } from '../local/definition.js';
import { decoded } from './catalog.js';

const EMPTY: MeshReply = { empty: true };

/** A local service as the agent shows it (the reference's `AgentService`). */
function renderAgentService(s: ServiceDoc, datacenter: string): Record<string, unknown> {
  return {
    ID: s.ID,
    Service: s.Service,
    Tags: s.Tags,
    Meta: s.Meta,
    Port: s.Port,
    Address: s.Address,
    ...(s.TaggedAddresses && { TaggedAddresses: s.TaggedAddresses }),
    Weights: s.Weights,
    EnableTagOverride: s.EnableTagOverride,
    Datacenter: datacenter,
  };
}

/** A local check as the agent shows it (not stored in the catalog under this shape: indexes are 0). */
const renderLocalCheck = (c: CheckDoc) => renderCheck({ ...c, CreateIndex: 0, ModifyIndex: 0 });

/** A serf member built from a catalog node with a `serfHealth` check (Status 1 alive, 4 failed). */
function member(ctx: Ctx, node: NodeDoc, alive: boolean): Record<string, unknown> {
  const port = Number(/:(\d+)$/.exec(ctx.deps.self())?.[1] ?? 0);
  return {
    Name: node.Node,
    Addr: node.Address,
    Port: port,
    Tags: { acls: ctx.deps.config.acl.enabled ? '1' : '0', build: VERSION, dc: node.Datacenter, id: node.ID, role: 'consul', segment: '', vsn: '2' },
    Status: alive ? 1 : 4,
    ProtocolMin: 1,
    ProtocolMax: 5,
    ProtocolCur: 2,
    DelegateMin: 2,
    DelegateMax: 5,
    DelegateCur: 4,
  };
}

/** `GET /agent/self` (`agent:read` on this node) → `{Config, Member, Meta, …}`. */
async function self(ctx: Ctx): Promise<MeshReply> {
  const { config, local, state } = ctx.deps;
  requireAccess(ctx, 'agent', 'read', config.nodeName);
  const node = state.get<NodeDoc>(CT.nodes, config.nodeName);
  return {
    body: {
      Config: {
        Datacenter: config.datacenter,
        PrimaryDatacenter: config.primaryDatacenter,
        NodeName: config.nodeName,
        NodeID: local.nodeId,
        Revision: BUILD.commit.slice(0, 9),
        Server: true,
        Version: VERSION,
      },
      DebugConfig: {},
      Coord: null,
      Member: node ? member(ctx, node, true) : null,
      Stats: {},
      Meta: { 'consul-network-segment': '' },
      xDS: null,
    },
  };
}

/** `GET /agent/members` → the nodes with a `serfHealth` check the caller may read (`node:read`). */
async function members(ctx: Ctx): Promise<MeshReply> {
  const { state } = ctx.deps;
  const view = new AclView(ctx);
  const out = [];
  for (const node of state.list<NodeDoc>(CT.nodes)) {
    const serf = state.get<CheckDoc>(CT.checks, memberKey(node.Node, SERF_CHECK_ID));
    if (serf && view.can('node', node.Node)) out.push(member(ctx, node, serf.Status !== 'critical'));
  }
  return { body: out, headers: view.headers() };
}

/** `GET /agent/services` → `{id: AgentService}` the caller may read. */
async function services(ctx: Ctx): Promise<MeshReply> {
  const view = new AclView(ctx);
  const body: Record<string, unknown> = {};
  for (const s of ctx.deps.local.listServices()) if (view.can('service', s.Service)) body[s.ID] = renderAgentService(s, ctx.deps.config.datacenter);
  return { body, headers: view.headers() };
}

/** `GET /agent/service/:id` (`service:read`) → `AgentService`. @throws 404 `unknown service ID: <id>`. */
async function service(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing service ID');
  const s = ctx.deps.local.service(id);
  if (!s) throw meshNotFound(`unknown service ID: ${id}`);
  requireAccess(ctx, 'service', 'read', s.Service);
  return { body: renderAgentService(s, ctx.deps.config.datacenter) };
}

/** `PUT /agent/service/register` (`?replace-existing-checks`; `service:write` on the name, and on the name an existing ID had). */
async function registerService(ctx: Ctx): Promise<MeshReply> {
  const { local } = ctx.deps;
  const reg = parseServiceRegistration(decoded(ctx), local.nodeName);
  requireAccess(ctx, 'service', 'write', reg.service.Service);
  const prior = local.service(reg.service.ID);
  if (prior && prior.Service !== reg.service.Service) requireAccess(ctx, 'service', 'write', prior.Service);
  local.addService(reg, ctx.query.has('replace-existing-checks') && ctx.query.get('replace-existing-checks') !== 'false');
  return EMPTY;
}

/** Local service `id` after checking `service:write` on it. @throws 404 `Unknown service ID "<id>". …`. */
function writableService(ctx: Ctx, id: string): ServiceDoc {
  const s = ctx.deps.local.service(id);
  if (!s) throw meshNotFound(`Unknown service ID ${JSON.stringify(id)}. Ensure that the service ID is passed, not the service name.`);
  requireAccess(ctx, 'service', 'write', s.Service);
  return s;
}

/** `PUT /agent/service/deregister/:id`. */
async function deregisterService(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing service ID');
  writableService(ctx, id);
  ctx.deps.local.removeService(id);
  return EMPTY;
}

/** `?enable=` and `?reason=` of the maintenance endpoints. @throws 400 `Missing value for enable` / `Invalid value for enable: "x"`. */
function maintenanceOf(ctx: Ctx): { enable: boolean; reason: string } {
  const raw = ctx.query.get('enable');
  if (raw === null || raw === '') throw badRequest('Missing value for enable');
  if (!/^(1|t|true|0|f|false)$/i.test(raw)) throw badRequest(`Invalid value for enable: ${JSON.stringify(raw)}`);
  return { enable: /^(1|t|true)$/i.test(raw), reason: ctx.query.get('reason') ?? '' };
}

/** `PUT /agent/service/maintenance/:id?enable=&reason=`. */
async function serviceMaintenance(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing service ID');
  const { enable, reason } = maintenanceOf(ctx);
  writableService(ctx, id);
  ctx.deps.local.serviceMaintenance(id, enable, reason);
  return EMPTY;
}

/** `PUT /agent/maintenance?enable=&reason=` (`node:write`). */
async function nodeMaintenance(ctx: Ctx): Promise<MeshReply> {
  const { enable, reason } = maintenanceOf(ctx);
  requireAccess(ctx, 'node', 'write', ctx.deps.config.nodeName);
  ctx.deps.local.nodeMaintenance(enable, reason);
  return EMPTY;
}

/** `GET /agent/checks` → `{id: HealthCheck}` the caller may read. */
async function checks(ctx: Ctx): Promise<MeshReply> {
  const view = new AclView(ctx);
  const body: Record<string, unknown> = {};
  for (const c of ctx.deps.local.listChecks()) {
    if (c.ServiceID === '' ? view.can('node', c.Node) : view.can('service', c.ServiceName)) body[c.CheckID] = renderLocalCheck(c);
  }
  return { body, headers: view.headers() };
}

/** Checks write access to check `c`: `service:write` on its service, `node:write` for a node check. */
function requireCheckWrite(ctx: Ctx, c: Pick<CheckDoc, 'ServiceID' | 'ServiceName'>): void {
  if (c.ServiceID === '') requireAccess(ctx, 'node', 'write', ctx.deps.config.nodeName);
  else requireAccess(ctx, 'service', 'write', c.ServiceName);
}

/** `PUT /agent/check/register`. @throws 400 `ServiceID "<id>" does not exist`. */
async function registerCheck(ctx: Ctx): Promise<MeshReply> {
  const { local } = ctx.deps;
  const def = parseCheck(decoded(ctx), local.nodeName, '');
  const sid = def.doc.ServiceID;
  const s = sid ? local.service(sid) : undefined;
  if (sid && !s) throw badRequest(`ServiceID ${JSON.stringify(sid)} does not exist`);
  requireCheckWrite(ctx, { ServiceID: sid, ServiceName: s?.Service ?? '' });
  local.addCheck(def);
  return EMPTY;
}

/** Local check `id` after checking write access to it. @throws 404 when there is none. */
function writableCheck(ctx: Ctx, id: string, missing: string): CheckDoc {
  const c = ctx.deps.local.check(id);
  if (!c) throw meshNotFound(missing);
  requireCheckWrite(ctx, c);
  return c;
}

/** `PUT /agent/check/deregister/:id`. */
async function deregisterCheck(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing check ID');
  writableCheck(ctx, id, `Unknown check ID ${JSON.stringify(id)}. Ensure that the check ID is passed, not the check name.`);
  ctx.deps.local.removeCheck(id);
  return EMPTY;
}

/** Sets TTL check `id` to `status` with `output`. @throws 404 `CheckID "<id>" does not have associated TTL`. */
function setTtl(ctx: Ctx, id: string, status: CheckStatus, output: string): MeshReply {
  const missing = `CheckID ${JSON.stringify(id)} does not have associated TTL`;
  writableCheck(ctx, id, missing);
  if (!ctx.deps.local.updateTtl(id, status, output)) throw meshNotFound(missing);
  return EMPTY;
}

/** `PUT /agent/check/pass|warn|fail/:id?note=`. */
const ttlRoute = (status: CheckStatus) => async (ctx: Ctx) => setTtl(ctx, required(ctx.params.id, 'Missing check ID'), status, ctx.query.get('note') ?? '');

/** `PUT /agent/check/update/:id` `{Status, Output}`. @throws 400 `Invalid check status: '<s>'`. */
async function updateCheck(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing check ID');
  const input = decoded(ctx);
  const status = str(input.Status, 'Status');
  if (status !== 'passing' && status !== 'warning' && status !== 'critical') throw badRequest(`Invalid check status: '${status}'`);
  return setTtl(ctx, id, status, str(input.Output, 'Output'));
}

/**
 * `GET /agent/health/service/name/:name` (`service:read`) → `[{AggregatedStatus, Service,
 * Checks}]` of the local instances, each aggregated over its own and the node's checks;
 * status 200 when the worst is `passing`, 429 `warning`, 503 `critical` or `maintenance`,
 * 404 with `[]` when there is none.
 */
async function healthByName(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.name, 'Missing service Name');
  requireAccess(ctx, 'service', 'read', name);
  const { local, config } = ctx.deps;
  const all = local.listChecks();
  const code = { passing: 200, warning: 429, critical: 503, maintenance: 503 } as const;
  let status = 404;
  const body = [];
  for (const s of local.listServices().filter((x) => x.Service === name)) {
    const own = all.filter((c) => c.ServiceID === s.ID || c.ServiceID === '');
    const aggregate = aggregateStatus(own);
    status = status === 404 ? code[aggregate] : Math.max(status, code[aggregate]);
    body.push({ AggregatedStatus: aggregate, Service: renderAgentService(s, config.datacenter), Checks: own.map(renderLocalCheck) });
  }
  return { status, body };
}

/** The agent routes: each served by the agent that receives it, even a follower on shared storage (they act on its own node). */
export const agentRoutes: readonly MeshRoute<MeshDeps>[] = [
  { pattern: 'agent/self', synopsis: 'This agent\'s configuration and member', methods: { GET: self }, local: true },
  { pattern: 'agent/members', synopsis: 'The agents of the datacenter', methods: { GET: members }, local: true },
  { pattern: 'agent/services', synopsis: 'The services registered with this agent', methods: { GET: services }, local: true },
  { pattern: 'agent/service/register', synopsis: 'Register a service with this agent', methods: { PUT: registerService }, local: true },
  { pattern: 'agent/service/deregister/:id', synopsis: 'Deregister a service of this agent', methods: { PUT: deregisterService }, local: true },
  { pattern: 'agent/service/maintenance/:id', synopsis: 'Toggle maintenance mode of a service', methods: { PUT: serviceMaintenance }, local: true },
  { pattern: 'agent/service/:id', synopsis: 'A service of this agent', methods: { GET: service }, local: true },
  { pattern: 'agent/maintenance', synopsis: 'Toggle node maintenance mode', methods: { PUT: nodeMaintenance }, local: true },
  { pattern: 'agent/checks', synopsis: 'The checks of this agent', methods: { GET: checks }, local: true },
  { pattern: 'agent/check/register', synopsis: 'Register a check with this agent', methods: { PUT: registerCheck }, local: true },
  { pattern: 'agent/check/deregister/:id', synopsis: 'Deregister a check of this agent', methods: { PUT: deregisterCheck }, local: true },
  { pattern: 'agent/check/pass/:id', synopsis: 'Set a TTL check passing', methods: { PUT: ttlRoute('passing') }, local: true },
  { pattern: 'agent/check/warn/:id', synopsis: 'Set a TTL check warning', methods: { PUT: ttlRoute('warning') }, local: true },
  { pattern: 'agent/check/fail/:id', synopsis: 'Set a TTL check critical', methods: { PUT: ttlRoute('critical') }, local: true },
  { pattern: 'agent/check/update/:id', synopsis: 'Set a TTL check\'s status and output', methods: { PUT: updateCheck }, local: true },
  { pattern: 'agent/health/service/name/:name', synopsis: 'Aggregated health of this agent\'s instances of a service', methods: { GET: healthByName }, local: true },
];
