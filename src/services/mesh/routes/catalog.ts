/**
 * Catalog endpoints (issue 16 scope 1; reference/mesh-catalog.md "Catalog"):
 * `PUT /catalog/register`, `PUT /catalog/deregister`, `GET /catalog/datacenters`,
 * `/catalog/nodes`, `/catalog/services`, `/catalog/service/:service`, `/catalog/node/:node`,
 * `/catalog/node-services/:node`. Reads block on the tables they read and report the
 * highest of their indexes; lists are filtered by `node:read` / `service:read`.
 *
 * @module
 */
import { badRequest, CairnError, PUBLIC, RenderCache, type Public } from '../../../kernel/http/index.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { anyCaseInput, ANY_CASE_BODY_KIND, meshBody } from '../body-decoding.js';
import { permissionDenied } from '../acl/index.js';
import { applyFilter, AclView, FILTER_QUERY, filterOf, metaMatches, NODE_META_QUERY, nodeMetaOf, required, TAG_QUERY, tagsMatch } from '../catalog/query.js';
import { str, type Input } from '../catalog/fields.js';
import { CT, memberKey, nodePrefix, renderNode, renderNodeService, renderServiceNode, type NodeDoc, type ServiceDoc } from '../catalog/model.js';
import { applyDeregistration, applyRegistration, parseRegistration, vetDeregistration, vetRegistration, type Deny } from '../catalog/register.js';
import { ANY_CALLER, type MeshRouteSpec, type MeshRule } from '../access.js';
import type { Ctx, MeshDeps } from '../deps.js';
import { reconcileSessions } from '../sessions/store.js';
import { meshForbidden, meshNotFound, type MeshReply } from '../http.js';

/**
 * The `PUT /catalog/register` body (the reference's `RegisterRequest`), names in any case,
 * in the order {@link parseRegistration} checks them; the nested service and checks keep
 * their checks there (`Service.Port must be a number`).
 */
const RegisterBody = meshBody(
  'RegisterRequest',
  {
    Datacenter: Go.string('another datacenter sends the request there'),
    Node: Go.string(),
    SkipNodeUpdate: Go.bool(),
    Address: Go.string(),
    Service: Go.object('the NodeService'),
    Check: Go.object('one HealthCheck'),
    Checks: Go.any('a list of HealthChecks'),
    ID: Go.string('the node ID'),
    TaggedAddresses: Go.map(),
    NodeMeta: Go.map(),
  },
  { anyCase: true },
);

/** The `PUT /catalog/deregister` body (the reference's `DeregisterRequest`), names in any case. */
const DeregisterBody = meshBody(
  'DeregisterRequest',
  { Datacenter: Go.string('another datacenter sends the request there'), Node: Go.string(), ServiceID: Go.string(), CheckID: Go.string() },
  { anyCase: true },
);

/** The reference's denial for `resource:write` on `segment`, for the caller of `ctx`. */
function denyFor(ctx: Ctx): Deny {
  return (resource, segment) => meshForbidden(permissionDenied(ctx.caller.accessorId, resource, 'write', segment).message);
}

/** The other datacenter a catalog write's body names (`Datacenter`), undefined for this one. @throws 400 for a non-string. */
function otherDatacenter(ctx: Ctx, input: Input): string | undefined {
  const dc = str(input.Datacenter, 'Datacenter');
  return dc === '' || dc === ctx.deps.config.datacenter ? undefined : dc;
}

/**
 * A catalog write whose body names another `Datacenter` goes there, as the reference's
 * register and deregister do; undefined for this datacenter.
 * @throws 500 `No path to datacenter` when no server of it is known.
 */
async function forwardByBody(ctx: Ctx, input: Input): Promise<MeshReply | undefined> {
  const dc = otherDatacenter(ctx, input);
  if (dc === undefined) return undefined;
  const forwarded = ctx.deps.forwardTo(dc, ctx.req, ctx.secret);
  if (!forwarded) throw new CairnError('internal', 'No path to datacenter');
  return { forwarded: await forwarded };
}

/**
 * The rule of a catalog write: none here when the body names another datacenter (it goes
 * there unchecked, and that one checks it), else any caller whose token resolves once
 * `check` accepted the body: the permissions it needs depend on what is stored, and are
 * checked in the write's transaction ({@link vetRegistration}). @throws 400 for a bad body.
 */
function catalogWriteRule(check: (ctx: Ctx, input: Input) => unknown): (ctx: Ctx) => MeshRule | Public {
  return (ctx) => {
    const input = anyCaseInput(ctx);
    if (otherDatacenter(ctx, input) !== undefined) return PUBLIC;
    check(ctx, input);
    return ANY_CALLER;
  };
}

/** `PUT /catalog/register` → `true`. Needs `node:write` / `service:write` as {@link vetRegistration} says. */
async function register(ctx: Ctx): Promise<MeshReply> {
  const input = anyCaseInput(ctx);
  const elsewhere = await forwardByBody(ctx, input);
  if (elsewhere) return elsewhere;
  const reg = parseRegistration(input, ctx.deps.config.datacenter);
  const deny = denyFor(ctx);
  const authz = ctx.caller.authorizer;
  const now = ctx.deps.now();
  await ctx.deps.state.txn((tx) => {
    vetRegistration(tx, authz, reg, deny);
    applyRegistration(tx, reg);
    reconcileSessions(tx, reg.node.Node, now);
  });
  return { body: true };
}

/** What a deregistration names. @throws 400 `Must provide node`, or naming a field of the wrong type. */
function deregistrationOf(input: Input): { node: string; serviceId: string | undefined; checkId: string | undefined } {
  const node = str(input.Node, 'Node');
  if (node === '') throw badRequest('Must provide node');
  return { node, serviceId: str(input.ServiceID, 'ServiceID') || undefined, checkId: str(input.CheckID, 'CheckID') || undefined };
}

/** `PUT /catalog/deregister` `{Datacenter?, Node, ServiceID?, CheckID?}` → `true`. */
async function deregister(ctx: Ctx): Promise<MeshReply> {
  const input = anyCaseInput(ctx);
  const elsewhere = await forwardByBody(ctx, input);
  if (elsewhere) return elsewhere;
  const d = deregistrationOf(input);
  const deny = denyFor(ctx);
  const authz = ctx.caller.authorizer;
  const now = ctx.deps.now();
  await ctx.deps.state.txn((tx) => {
    vetDeregistration(tx, authz, d, deny);
    applyDeregistration(tx, d);
    reconcileSessions(tx, d.node, now);
  });
  return { body: true };
}

/** `GET /catalog/datacenters` → this one and every one `wan_addresses` names, by name. */
async function datacenters(ctx: Ctx): Promise<MeshReply> {
  const { datacenter, wanAddresses } = ctx.deps.config;
  return { body: [...new Set([datacenter, ...Object.keys(wanAddresses)])].sort() };
}

/** `GET /catalog/nodes` (`node-meta`, `filter`) → nodes the caller may read. */
async function nodes(ctx: Ctx): Promise<MeshReply> {
  const view = AclView.of(ctx);
  const meta = nodeMetaOf(ctx);
  const filter = filterOf(ctx);
  const listed = ctx.deps.state
    .list<NodeDoc>(CT.nodes)
    .filter((n) => metaMatches(n.Meta, meta) && view.can('node', n.Node))
    .map(renderNode);
  return { body: applyFilter(listed, filter), index: ctx.deps.state.tableIndex(CT.nodes), headers: view.headers() };
}

/** `GET /catalog/services` (`node-meta`, `filter`) → `{name: [tags…]}` of the services the caller may read. */
async function services(ctx: Ctx): Promise<MeshReply> {
  const { state } = ctx.deps;
  const view = AclView.of(ctx);
  const meta = nodeMetaOf(ctx);
  const filter = filterOf(ctx);
  let instances = state.list<ServiceDoc>(CT.services);
  if (meta.length > 0) instances = instances.filter((s) => metaMatches(state.get<NodeDoc>(CT.nodes, s.Node)?.Meta ?? null, meta));
  if (filter) {
    const pairs = instances.map((s) => ({ s, shown: renderServiceNode(state.get<NodeDoc>(CT.nodes, s.Node)!, s) }));
    const kept = new Set(
      applyFilter(
        pairs.map((p) => p.shown),
        filter,
      ),
    );
    instances = pairs.filter((p) => kept.has(p.shown)).map((p) => p.s);
  }
  const tags = new Map<string, Set<string>>();
  for (const s of instances) {
    let set = tags.get(s.Service);
    if (!set) tags.set(s.Service, (set = new Set()));
    s.Tags.forEach((t) => set!.add(t));
  }
  const body: Record<string, string[]> = {};
  for (const [name, set] of [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) if (view.can('service', name)) body[name] = [...set].sort();
  return { body, index: state.tableIndex(CT.services, CT.nodes), headers: view.headers() };
}

/**
 * The instances of service `name` with their nodes, those the caller may read
 * (`service:read` on the name, `node:read` on the node), matching every `tag` and `node-meta`.
 */
export function instancesOf(ctx: Ctx, view: AclView, name: string): Array<{ node: NodeDoc & Indexed; service: ServiceDoc & Indexed }> {
  return serviceInstances(ctx.deps.state, view, name, { tags: ctx.query.getAll('tag'), meta: nodeMetaOf(ctx) });
}

/** Which instances of a service {@link serviceInstances} keeps (empty lists: all). */
export interface InstanceFilter {
  /** Tags every kept instance carries (case-insensitive): the `?tag=` parameters. */
  readonly tags: readonly string[];
  /** `[key, value]` pairs every kept instance's node meta holds: the `?node-meta=` parameters. */
  readonly meta: ReadonlyArray<[string, string]>;
}

/**
 * The instances of service `name` in `state` that `view` may read (`service:read` on the
 * name, `node:read` on the node) and that `filter` keeps: what the catalog and health
 * routes and DNS answer from.
 */
export function serviceInstances(
  state: MeshDeps['state'],
  view: AclView,
  name: string,
  { tags, meta }: InstanceFilter,
): Array<{ node: NodeDoc & Indexed; service: ServiceDoc & Indexed }> {
  const out: Array<{ node: NodeDoc & Indexed; service: ServiceDoc & Indexed }> = [];
  const all = state.listBy<ServiceDoc>(CT.services, 'name', name);
  if (all.length > 0 && !view.can('service', name)) return out;
  for (const service of all) {
    const node = state.get<NodeDoc>(CT.nodes, service.Node);
    if (!node || !tagsMatch(service.Tags, tags) || !metaMatches(node.Meta, meta)) continue;
    if (view.can('node', node.Node)) out.push({ node, service });
  }
  return out;
}

/**
 * `ServiceNode` renderings kept per service document and nodes table index, shared by every
 * reader of the service (as health.ts keeps its entries): a reply without `filter` is joined
 * from their JSON. They hold nothing that depends on the caller.
 */
const serviceNodeRenders = new RenderCache<ServiceDoc & Indexed>();

/** `GET /catalog/service/:service` (`tag`, `node-meta`, `filter`) → `[ServiceNode]`. */
async function serviceNodes(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.service, 'Missing service name');
  const view = AclView.of(ctx);
  const filter = filterOf(ctx);
  const { state } = ctx.deps;
  const stamp = String(state.tableIndex(CT.nodes));
  const kept = instancesOf(ctx, view, name).map(({ node, service }) => serviceNodeRenders.get(service, stamp, () => renderServiceNode(node, service)));
  const index = state.tableIndex(CT.services, CT.nodes);
  const bodies = kept.map((r) => r.body);
  if (filter) return { body: applyFilter(bodies, filter), index, headers: view.headers() };
  return { body: bodies, json: `[${kept.map((r) => r.json).join(',')}]`, index, headers: view.headers() };
}

/** Node `name` and its services the caller may read; undefined when it is not there or not readable. */
function nodeWithServices(ctx: Ctx, view: AclView, name: string): { node: NodeDoc & Indexed; services: (ServiceDoc & Indexed)[] } | undefined {
  const { state } = ctx.deps;
  const node = state.get<NodeDoc>(CT.nodes, name);
  if (!node || !view.can('node', name)) return undefined;
  const services: (ServiceDoc & Indexed)[] = [];
  for (const s of state.scan<ServiceDoc>(CT.services, nodePrefix(name))) {
    if (!memberKey(s.Node, s.ID).startsWith(nodePrefix(name))) break;
    // A node named `<name>/…` shares the id prefix: skip its entries.
    if (s.Node === name && view.can('service', s.Service)) services.push(s);
  }
  return { node, services };
}

/** `GET /catalog/node/:node` → `{Node, Services: {id: NodeService}}`; an unknown node answers `null`. */
async function nodeServicesMap(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.node, 'Missing node name');
  const view = AclView.of(ctx);
  const found = nodeWithServices(ctx, view, name);
  const index = ctx.deps.state.tableIndex(CT.nodes, CT.services);
  if (!found) return { body: null, index, headers: view.headers() };
  const body = { Node: renderNode(found.node), Services: Object.fromEntries(found.services.map((s) => [s.ID, renderNodeService(s)])) };
  return { body, index, headers: view.headers() };
}

/** `GET /catalog/node-services/:node` (`filter` on the services) → `{Node, Services: [NodeService]}`; unknown → 404. */
async function nodeServicesList(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.node, 'Missing node name');
  const view = AclView.of(ctx);
  const filter = filterOf(ctx);
  const found = nodeWithServices(ctx, view, name);
  const index = ctx.deps.state.tableIndex(CT.nodes, CT.services);
  if (!found) throw meshNotFound(`Node not found: "${name}"`);
  const body = { Node: renderNode(found.node), Services: applyFilter(found.services.map(renderNodeService), filter) };
  return { body, index, headers: view.headers() };
}

/**
 * The catalog routes: writes need what they write (node, service), checked against the
 * stored entries in their transaction; reads any caller, filtered by `node:read` /
 * `service:read`; the datacenters anyone.
 */
export const catalogRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'catalog/register',
    synopsis: 'Register a node, a service and checks',
    methods: {
      PUT: {
        access: catalogWriteRule((ctx, input) => parseRegistration(input, ctx.deps.config.datacenter)),
        body: RegisterBody,
        bodyKind: ANY_CASE_BODY_KIND,
        handle: register,
      },
    },
  },
  {
    pattern: 'catalog/deregister',
    synopsis: 'Deregister a node, a service or a check',
    methods: {
      PUT: { access: catalogWriteRule((_ctx, input) => deregistrationOf(input)), body: DeregisterBody, bodyKind: ANY_CASE_BODY_KIND, handle: deregister },
    },
  },
  { pattern: 'catalog/datacenters', synopsis: 'List known datacenters', methods: { GET: { access: PUBLIC, handle: datacenters } } },
  {
    pattern: 'catalog/nodes',
    synopsis: 'List nodes',
    methods: { GET: { access: ANY_CALLER, query: { ...NODE_META_QUERY, ...FILTER_QUERY }, handle: nodes } },
    blocking: [CT.nodes],
  },
  {
    pattern: 'catalog/services',
    synopsis: 'List services with their tags',
    methods: { GET: { access: ANY_CALLER, query: { ...NODE_META_QUERY, ...FILTER_QUERY }, handle: services } },
    blocking: [CT.services, CT.nodes],
  },
  {
    pattern: 'catalog/service/:service',
    synopsis: 'List the instances of a service',
    methods: { GET: { access: ANY_CALLER, query: { ...TAG_QUERY, ...NODE_META_QUERY, ...FILTER_QUERY }, handle: serviceNodes } },
    blocking: [CT.services, CT.nodes],
  },
  {
    pattern: 'catalog/node/:node',
    synopsis: 'A node and its services (map by ID)',
    methods: { GET: { access: ANY_CALLER, handle: nodeServicesMap } },
    blocking: [CT.nodes, CT.services],
  },
  {
    pattern: 'catalog/node-services/:node',
    synopsis: 'A node and its services (list)',
    methods: { GET: { access: ANY_CALLER, query: FILTER_QUERY, handle: nodeServicesList } },
    blocking: [CT.nodes, CT.services],
  },
];
