/**
 * Agent endpoints (issue 16 scope 3; reference/mesh-catalog.md "Agent"): the local node's
 * services and checks (local/local-agent.ts), its self description and members.
 * Writes answer an empty 200 as the reference does. ACL: service writes need
 * `service:write` on the name, node checks and node maintenance `node:write`, reads are
 * filtered by `service:read` / `node:read`, `/agent/self` needs `agent:read`.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, type ApiQuery } from '../../../kernel/http/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { BUILD, VERSION } from '../../../kernel/version/index.js';
import {
  aggregateStatus,
  CT,
  memberKey,
  renderCheck,
  SERF_CHECK_ID,
  type CheckDoc,
  type CheckStatus,
  type NodeDoc,
  type ServiceDoc,
} from '../catalog/model.js';
import { AclView, required } from '../catalog/query.js';
import { str } from '../catalog/fields.js';
import { ANY_CALLER, need, needs, type MeshRouteSpec, type MeshRule, type Permission } from '../access.js';
import type { Ctx } from '../deps.js';
import { meshNotFound, type MeshReply } from '../http.js';
import { parseCheck, parseServiceRegistration } from '../local/definition.js';
import { anyCaseInput, ANY_CASE_BODY_KIND, meshBody } from '../body-decoding.js';

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
  const view = AclView.of(ctx);
  const out = [];
  for (const node of state.list<NodeDoc>(CT.nodes)) {
    const serf = state.get<CheckDoc>(CT.checks, memberKey(node.Node, SERF_CHECK_ID));
    if (serf && view.can('node', node.Node)) out.push(member(ctx, node, serf.Status !== 'critical'));
  }
  return { body: out, headers: view.headers() };
}

/** `GET /agent/services` → `{id: AgentService}` the caller may read. */
async function services(ctx: Ctx): Promise<MeshReply> {
  const view = AclView.of(ctx);
  const body: Record<string, unknown> = {};
  for (const s of ctx.deps.local.listServices()) if (view.can('service', s.Service)) body[s.ID] = renderAgentService(s, ctx.deps.config.datacenter);
  return { body, headers: view.headers() };
}

/** Local service `id`. @throws 404 `missing`. */
function localService(ctx: Ctx, id: string, missing: string): ServiceDoc {
  const s = ctx.deps.local.service(id);
  if (!s) throw meshNotFound(missing);
  return s;
}

/**
 * The `PUT /agent/service/register` body (the reference's `ServiceDefinition`), names in any
 * case, in the order parseServiceRegistration checks them; the fields with their own texts
 * (lists, numbers, the checks) are `any` and checked there.
 */
const ServiceDefinitionBody = meshBody(
  'ServiceDefinition',
  {
    Name: Go.string(),
    ID: Go.string('default: the name'),
    Tags: Go.any('a list of strings'),
    Address: Go.string(),
    TaggedAddresses: Go.object(),
    Meta: Go.map(),
    Port: Go.any('a whole number'),
    Weights: Go.any('{Passing, Warning}, each default 1'),
    EnableTagOverride: Go.bool(),
    Check: Go.object('one check definition'),
    Checks: Go.any('a list of check definitions'),
  },
  { anyCase: true },
);

/** The fields of a check definition parseCheck reads, in its order; `any` where it has its own texts (durations, numbers, the unsupported kinds). */
const CHECK_FIELDS = {
  Name: Go.string(),
  CheckID: Go.string('default: ID, else the name'),
  ID: Go.string(),
  ...Object.fromEntries(
    ['Args', 'ScriptArgs', 'GRPC', 'H2PING', 'DockerContainerID', 'AliasService', 'AliasNode', 'OSService', 'UDP'].map((k) => [k, Go.any('not supported')]),
  ),
  HTTP: Go.string(),
  TCP: Go.string(),
  TTL: Go.any('a Go duration'),
  Interval: Go.any('a Go duration'),
  Timeout: Go.any('a Go duration'),
  DeregisterCriticalServiceAfter: Go.any('a Go duration'),
  SuccessBeforePassing: Go.any('a whole number'),
  FailuresBeforeCritical: Go.any('a whole number'),
  Method: Go.string(),
  Header: Go.any('a map of header name → list of values'),
  Body: Go.string(),
  TLSSkipVerify: Go.bool(),
  Status: Go.any('passing, warning or critical (default)'),
  Notes: Go.string(),
  ServiceID: Go.string('the local service it belongs to'),
};

/** The `PUT /agent/check/register` body (the reference's `CheckDefinition`), names in any case. */
const CheckDefinitionBody = meshBody('CheckDefinition', CHECK_FIELDS, { anyCase: true });

/** The `PUT /agent/check/update/:id` body (the reference's `checkUpdate`), names in any case. */
const CheckUpdateBody = meshBody('checkUpdate', { Status: Go.string('passing, warning or critical'), Output: Go.string() }, { anyCase: true });

const unknownServiceId = (id: string) => `unknown service ID: ${id}`;

/** `GET /agent/service/:id` (`service:read`) → `AgentService`. @throws 404 `unknown service ID: <id>`. */
async function service(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing service ID');
  return { body: renderAgentService(localService(ctx, id, unknownServiceId(id)), ctx.deps.config.datacenter) };
}

/** `service:read` on the path's local service. @throws 404 `unknown service ID: <id>` (before the caller is resolved). */
function serviceReadRule(ctx: Ctx): MeshRule {
  const id = required(ctx.params.id, 'Missing service ID');
  return need('service', 'read', localService(ctx, id, unknownServiceId(id)).Service);
}

/** `service:write` on the registered name, and on the name an existing ID had. @throws 400 for a bad body. */
function registerServiceRule(ctx: Ctx): MeshRule {
  const { local } = ctx.deps;
  const name = parseServiceRegistration(anyCaseInput(ctx), local.nodeName).service;
  const prior = local.service(name.ID);
  const permissions: Permission[] = [{ resource: 'service', access: 'write', segment: name.Service }];
  if (prior && prior.Service !== name.Service) permissions.push({ resource: 'service', access: 'write', segment: prior.Service });
  return needs(...permissions);
}

/** `PUT /agent/service/register` (`?replace-existing-checks`). */
async function registerService(ctx: Ctx): Promise<MeshReply> {
  const { local } = ctx.deps;
  const reg = parseServiceRegistration(anyCaseInput(ctx), local.nodeName);
  local.addService(reg, ctx.query.has('replace-existing-checks') && ctx.query.get('replace-existing-checks') !== 'false');
  return EMPTY;
}

const unknownWritableService = (id: string) => `Unknown service ID ${JSON.stringify(id)}. Ensure that the service ID is passed, not the service name.`;

/** `service:write` on the path's local service. @throws 404 `Unknown service ID "<id>". …` (before the caller is resolved). */
function serviceWriteRule(ctx: Ctx): MeshRule {
  const id = required(ctx.params.id, 'Missing service ID');
  return need('service', 'write', localService(ctx, id, unknownWritableService(id)).Service);
}

/** `PUT /agent/service/deregister/:id`. */
async function deregisterService(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing service ID');
  localService(ctx, id, unknownWritableService(id));
  ctx.deps.local.removeService(id);
  return EMPTY;
}

/** The query parameters of the maintenance endpoints ({@link maintenanceOf}). */
const MAINTENANCE_QUERY: ApiQuery = {
  enable: Type.Boolean({ description: 'Required: `true` enters maintenance, `false` leaves it.' }),
  reason: Type.String({ description: 'Why, shown in the maintenance check’s notes.' }),
};

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
  localService(ctx, id, unknownWritableService(id));
  ctx.deps.local.serviceMaintenance(id, enable, reason);
  return EMPTY;
}

/** `PUT /agent/maintenance?enable=&reason=`. */
async function nodeMaintenance(ctx: Ctx): Promise<MeshReply> {
  const { enable, reason } = maintenanceOf(ctx);
  ctx.deps.local.nodeMaintenance(enable, reason);
  return EMPTY;
}

/** `node:write` on this agent's node. */
const nodeWrite = (ctx: Ctx): MeshRule => need('node', 'write', ctx.deps.config.nodeName);

/** `GET /agent/checks` → `{id: HealthCheck}` the caller may read. */
async function checks(ctx: Ctx): Promise<MeshReply> {
  const view = AclView.of(ctx);
  const body: Record<string, unknown> = {};
  for (const c of ctx.deps.local.listChecks()) {
    if (c.ServiceID === '' ? view.can('node', c.Node) : view.can('service', c.ServiceName)) body[c.CheckID] = renderLocalCheck(c);
  }
  return { body, headers: view.headers() };
}

/** Write access to check `c`: `service:write` on its service, `node:write` for a node check. */
function checkWrite(ctx: Ctx, c: Pick<CheckDoc, 'ServiceID' | 'ServiceName'>): MeshRule {
  return c.ServiceID === '' ? nodeWrite(ctx) : need('service', 'write', c.ServiceName);
}

/** A check registration and the name of the service it belongs to (`''`: a node check). @throws 400 `ServiceID "<id>" does not exist`. */
function checkRegistration(ctx: Ctx): { def: ReturnType<typeof parseCheck>; serviceName: string } {
  const { local } = ctx.deps;
  const def = parseCheck(anyCaseInput(ctx), local.nodeName, '');
  const sid = def.doc.ServiceID;
  const s = sid ? local.service(sid) : undefined;
  if (sid && !s) throw badRequest(`ServiceID ${JSON.stringify(sid)} does not exist`);
  return { def, serviceName: s?.Service ?? '' };
}

/** Write access to the check a registration names (its service's, or this node's). @throws 400 as {@link checkRegistration}. */
function registerCheckRule(ctx: Ctx): MeshRule {
  const { def, serviceName } = checkRegistration(ctx);
  return checkWrite(ctx, { ServiceID: def.doc.ServiceID, ServiceName: serviceName });
}

/** `PUT /agent/check/register`. @throws 400 `ServiceID "<id>" does not exist`. */
async function registerCheck(ctx: Ctx): Promise<MeshReply> {
  ctx.deps.local.addCheck(checkRegistration(ctx).def);
  return EMPTY;
}

/** Local check `id`. @throws 404 `missing` when there is none. */
function localCheck(ctx: Ctx, id: string, missing: string): CheckDoc {
  const c = ctx.deps.local.check(id);
  if (!c) throw meshNotFound(missing);
  return c;
}

const unknownCheckId = (id: string) => `Unknown check ID ${JSON.stringify(id)}. Ensure that the check ID is passed, not the check name.`;
const noTtl = (id: string) => `CheckID ${JSON.stringify(id)} does not have associated TTL`;

/** Write access to the path's local check. @throws 404 with the text `missing(id)` gives (before the caller is resolved). */
const checkWriteRule =
  (missing: (id: string) => string) =>
  (ctx: Ctx): MeshRule => {
    const id = required(ctx.params.id, 'Missing check ID');
    return checkWrite(ctx, localCheck(ctx, id, missing(id)));
  };

/** `PUT /agent/check/deregister/:id`. */
async function deregisterCheck(ctx: Ctx): Promise<MeshReply> {
  const id = required(ctx.params.id, 'Missing check ID');
  localCheck(ctx, id, unknownCheckId(id));
  ctx.deps.local.removeCheck(id);
  return EMPTY;
}

/** Sets TTL check `id` to `status` with `output`. @throws 404 `CheckID "<id>" does not have associated TTL`. */
function setTtl(ctx: Ctx, id: string, status: CheckStatus, output: string): MeshReply {
  if (!ctx.deps.local.updateTtl(id, status, output)) throw meshNotFound(noTtl(id));
  return EMPTY;
}

/** The query parameter of the TTL check endpoints. */
const TTL_QUERY: ApiQuery = { note: Type.String({ description: 'The check’s new output.' }) };

/** `PUT /agent/check/pass|warn|fail/:id?note=`. */
const ttlRoute = (status: CheckStatus) => async (ctx: Ctx) => setTtl(ctx, required(ctx.params.id, 'Missing check ID'), status, ctx.query.get('note') ?? '');

/** `PUT /agent/check/update/:id` `{Status, Output}`: the status and output. @throws 400 `Invalid check status: '<s>'`. */
function checkUpdate(ctx: Ctx): { status: CheckStatus; output: string } {
  const input = anyCaseInput(ctx);
  const status = str(input.Status, 'Status');
  if (status !== 'passing' && status !== 'warning' && status !== 'critical') throw badRequest(`Invalid check status: '${status}'`);
  return { status, output: str(input.Output, 'Output') };
}

/** `PUT /agent/check/update/:id` `{Status, Output}`. */
async function updateCheck(ctx: Ctx): Promise<MeshReply> {
  const { status, output } = checkUpdate(ctx);
  return setTtl(ctx, required(ctx.params.id, 'Missing check ID'), status, output);
}

/**
 * `GET /agent/health/service/name/:name` → `[{AggregatedStatus, Service, Checks}]` of the
 * local instances, each aggregated over its own and the node's checks; status 200 when the
 * worst is `passing`, 429 `warning`, 503 `critical` or `maintenance`, 404 with `[]` when
 * there is none.
 */
async function healthByName(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.name, 'Missing service Name');
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

/**
 * The agent routes: each served by the agent that receives it, even a follower on shared
 * storage (they act on its own node). Service writes need `service:write` on the name, node
 * checks and node maintenance `node:write`, `/agent/self` `agent:read`, one service
 * `service:read`; lists any caller, filtered by `service:read` / `node:read`. A bad body or
 * query (400) and an unknown service or check (404) come before the caller is resolved.
 */
export const agentRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'agent/self',
    synopsis: "This agent's configuration and member",
    methods: { GET: { access: (ctx) => need('agent', 'read', ctx.deps.config.nodeName), forward: 'local', handle: self } },
  },
  { pattern: 'agent/members', synopsis: 'The agents of the datacenter', methods: { GET: { access: ANY_CALLER, forward: 'local', handle: members } } },
  {
    pattern: 'agent/services',
    synopsis: 'The services registered with this agent',
    methods: { GET: { access: ANY_CALLER, forward: 'local', handle: services } },
  },
  {
    pattern: 'agent/service/register',
    synopsis: 'Register a service with this agent',
    methods: {
      PUT: {
        access: registerServiceRule,
        forward: 'local',
        query: { 'replace-existing-checks': Type.Boolean({ description: 'Present and not `false`: the checks given replace those the service had.' }) },
        body: ServiceDefinitionBody,
        bodyKind: ANY_CASE_BODY_KIND,
        handle: registerService,
      },
    },
  },
  {
    pattern: 'agent/service/deregister/:id',
    synopsis: 'Deregister a service of this agent',
    methods: { PUT: { access: serviceWriteRule, forward: 'local', handle: deregisterService } },
  },
  {
    pattern: 'agent/service/maintenance/:id',
    synopsis: 'Toggle maintenance mode of a service',
    methods: { PUT: { access: (ctx) => (maintenanceOf(ctx), serviceWriteRule(ctx)), forward: 'local', query: MAINTENANCE_QUERY, handle: serviceMaintenance } },
  },
  { pattern: 'agent/service/:id', synopsis: 'A service of this agent', methods: { GET: { access: serviceReadRule, forward: 'local', handle: service } } },
  {
    pattern: 'agent/maintenance',
    synopsis: 'Toggle node maintenance mode',
    methods: { PUT: { access: (ctx) => (maintenanceOf(ctx), nodeWrite(ctx)), forward: 'local', query: MAINTENANCE_QUERY, handle: nodeMaintenance } },
  },
  { pattern: 'agent/checks', synopsis: 'The checks of this agent', methods: { GET: { access: ANY_CALLER, forward: 'local', handle: checks } } },
  {
    pattern: 'agent/check/register',
    synopsis: 'Register a check with this agent',
    methods: { PUT: { access: registerCheckRule, forward: 'local', body: CheckDefinitionBody, bodyKind: ANY_CASE_BODY_KIND, handle: registerCheck } },
  },
  {
    pattern: 'agent/check/deregister/:id',
    synopsis: 'Deregister a check of this agent',
    methods: { PUT: { access: checkWriteRule(unknownCheckId), forward: 'local', handle: deregisterCheck } },
  },
  {
    pattern: 'agent/check/pass/:id',
    synopsis: 'Set a TTL check passing',
    methods: { PUT: { access: checkWriteRule(noTtl), forward: 'local', query: TTL_QUERY, handle: ttlRoute('passing') } },
  },
  {
    pattern: 'agent/check/warn/:id',
    synopsis: 'Set a TTL check warning',
    methods: { PUT: { access: checkWriteRule(noTtl), forward: 'local', query: TTL_QUERY, handle: ttlRoute('warning') } },
  },
  {
    pattern: 'agent/check/fail/:id',
    synopsis: 'Set a TTL check critical',
    methods: { PUT: { access: checkWriteRule(noTtl), forward: 'local', query: TTL_QUERY, handle: ttlRoute('critical') } },
  },
  {
    pattern: 'agent/check/update/:id',
    synopsis: "Set a TTL check's status and output",
    methods: {
      PUT: {
        access: (ctx) => (checkUpdate(ctx), checkWriteRule(noTtl)(ctx)),
        forward: 'local',
        body: CheckUpdateBody,
        bodyKind: ANY_CASE_BODY_KIND,
        handle: updateCheck,
      },
    },
  },
  {
    pattern: 'agent/health/service/name/:name',
    synopsis: "Aggregated health of this agent's instances of a service",
    methods: { GET: { access: (ctx) => need('service', 'read', required(ctx.params.name, 'Missing service Name')), forward: 'local', handle: healthByName } },
  },
];
