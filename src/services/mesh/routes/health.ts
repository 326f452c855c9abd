/**
 * Health endpoints (issue 16 scope 2; reference/mesh-catalog.md "Health"):
 * `GET /health/node/:node`, `/health/checks/:service`, `/health/service/:service`
 * (`passing`, `tag`, `node-meta`, `filter`) and `/health/state/:state`. A check is
 * shown when the caller may read its node and, for a service check, its service; an
 * instance's checks are its node's checks plus its own.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, RenderCache, type ApiQuery, type Rendered } from '../../../kernel/http/index.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { AclView, applyFilter, FILTER_QUERY, filterOf, metaMatches, NODE_META_QUERY, nodeMetaOf, required, TAG_QUERY } from '../catalog/query.js';
import { checksOf } from '../catalog/register.js';
import { CT, renderCheck, renderNode, renderNodeService, STATUSES, type CheckDoc, type CheckStatus, type NodeDoc, type ServiceDoc } from '../catalog/model.js';
import { ANY_CALLER, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import type { MeshReply } from '../http.js';
import { instancesOf } from './catalog.js';

/** May the caller see check `c`? */
function readable(view: AclView, c: CheckDoc): boolean {
  return view.can('node', c.Node) && (c.ServiceID === '' || view.can('service', c.ServiceName));
}

/** The checks of `node` in id order. */
function checksOfNode(ctx: Pick<Ctx, 'deps'>, node: string): (CheckDoc & Indexed)[] {
  return checksOf(ctx.deps.state, node);
}

/** One node's checks split for {@link mergeInstanceChecks}: its own (no service) and each service's, each in id order. */
interface NodeChecks {
  readonly node: readonly (CheckDoc & Indexed)[];
  readonly byService: ReadonlyMap<string, readonly (CheckDoc & Indexed)[]>;
}

function splitChecks(checks: readonly (CheckDoc & Indexed)[]): NodeChecks {
  const node: (CheckDoc & Indexed)[] = [];
  const byService = new Map<string, (CheckDoc & Indexed)[]>();
  for (const c of checks) {
    if (c.ServiceID === '') node.push(c);
    else {
      const own = byService.get(c.ServiceID);
      if (own) own.push(c);
      else byService.set(c.ServiceID, [c]);
    }
  }
  return { node, byService };
}

/**
 * The checks of instance `serviceId`: its node's and its own, in check-ID order (as the
 * node's checks are listed), merged from {@link NodeChecks} so that a node with many
 * instances is not scanned once per instance.
 */
function mergeInstanceChecks(split: NodeChecks, serviceId: string): (CheckDoc & Indexed)[] {
  const own = split.byService.get(serviceId) ?? [];
  const out: (CheckDoc & Indexed)[] = [];
  let i = 0;
  let j = 0;
  while (i < split.node.length || j < own.length) {
    if (j >= own.length || (i < split.node.length && split.node[i]!.CheckID < own[j]!.CheckID)) out.push(split.node[i++]!);
    else out.push(own[j++]!);
  }
  return out;
}

/** The checks of service instance `serviceId` on `node`: the node's own checks and the instance's, in id order. */
export function instanceChecks(ctx: Pick<Ctx, 'deps'>, node: string, serviceId: string): (CheckDoc & Indexed)[] {
  return mergeInstanceChecks(splitChecks(checksOfNode(ctx, node)), serviceId);
}

/** A list of checks as the reply shows it, after ACLs and `filter`. */
function checkReply(ctx: Ctx, view: AclView, checks: readonly (CheckDoc & Indexed)[], tables: string[]): MeshReply {
  const filter = filterOf(ctx);
  const shown = checks.filter((c) => readable(view, c)).map(renderCheck);
  return { body: applyFilter(shown, filter), index: ctx.deps.state.tableIndex(...tables), headers: view.headers() };
}

/** `GET /health/node/:node` → `[HealthCheck]` of the node. */
async function nodeChecks(ctx: Ctx): Promise<MeshReply> {
  const node = required(ctx.params.node, 'Missing node name');
  return checkReply(ctx, AclView.of(ctx), checksOfNode(ctx, node), [CT.checks]);
}

/** `GET /health/checks/:service` (`node-meta`, `filter`) → `[HealthCheck]` of every instance of the service. */
async function serviceChecks(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.service, 'Missing service name');
  const { state } = ctx.deps;
  const meta = nodeMetaOf(ctx);
  const checks = state
    .list<CheckDoc>(CT.checks)
    .filter((c) => c.ServiceName === name && c.ServiceID !== '' && metaMatches(state.get<NodeDoc>(CT.nodes, c.Node)?.Meta ?? null, meta));
  return checkReply(ctx, AclView.of(ctx), checks, [CT.checks, CT.nodes]);
}

/** `?passing` as the reference reads it: present with no value is true. @throws 400 `Invalid value for ?passing`. */
function passingOf(ctx: Ctx): boolean {
  if (!ctx.query.has('passing')) return false;
  const v = ctx.query.get('passing')!;
  if (v === '' || /^(1|t|true)$/i.test(v)) return true;
  if (/^(0|f|false)$/i.test(v)) return false;
  throw badRequest('Invalid value for ?passing');
}

/** The query parameters of `GET /health/service/:service`. */
const SERVICE_HEALTH_QUERY: ApiQuery = {
  passing: Type.Boolean({ description: 'Only instances whose every check passes (present without a value: true).' }),
  ...TAG_QUERY,
  ...NODE_META_QUERY,
  ...FILTER_QUERY,
};

/** One instance's entry of `GET /health/service/:service`. */
interface HealthEntry {
  readonly Node: unknown;
  readonly Service: unknown;
  readonly Checks: readonly Record<string, unknown>[];
}

/**
 * Entries rendered and serialised once per service document and nodes/checks table indexes
 * (`stamp`): the readers of one service (blocking queries woken together, pollers) share them,
 * and a reply without `filter` is joined from their JSON instead of serialised whole (~50 ms
 * for 10,000 instances: BENCHMARKS.md). An entry holds nothing that depends on the caller:
 * which entries a caller gets is decided per request (ACL, `tag`, `node-meta`, `passing`).
 */
const entries = new RenderCache<ServiceDoc & Indexed>();

/**
 * `GET /health/service/:service` (`passing`, `tag`, `node-meta`, `filter`) →
 * `[{Node, Service, Checks}]`; `passing` keeps the instances whose every check (node and
 * service) passes (`warning` does not).
 */
async function serviceHealth(ctx: Ctx): Promise<MeshReply> {
  const name = required(ctx.params.service, 'Missing service name');
  const passing = passingOf(ctx);
  const view = AclView.of(ctx);
  const filter = filterOf(ctx);
  const { state } = ctx.deps;
  const stamp = `${state.tableIndex(CT.nodes)}/${state.tableIndex(CT.checks)}`;
  const kept: Rendered[] = [];
  const perNode = new Map<string, NodeChecks>();
  for (const { node, service } of instancesOf(ctx, view, name)) {
    const entry = entries.get(service, stamp, (): HealthEntry => {
      let split = perNode.get(node.Node);
      if (!split) perNode.set(node.Node, (split = splitChecks(checksOfNode(ctx, node.Node))));
      return { Node: renderNode(node), Service: renderNodeService(service), Checks: mergeInstanceChecks(split, service.ID).map(renderCheck) };
    });
    if (passing && (entry.body as HealthEntry).Checks.some((c) => c.Status !== 'passing')) continue;
    kept.push(entry);
  }
  const index = state.tableIndex(CT.nodes, CT.services, CT.checks);
  const bodies = kept.map((e) => e.body);
  if (filter) return { body: applyFilter(bodies, filter), index, headers: view.headers() };
  return { body: bodies, json: `[${kept.map((e) => e.json).join(',')}]`, index, headers: view.headers() };
}

/** The path's check state. @throws 400 `Invalid check state "<s>": must be any, passing, warning or critical`. */
function wantedState(ctx: Ctx): CheckStatus | 'any' {
  const wanted = required(ctx.params.state, 'Missing check state');
  if (wanted !== 'any' && !STATUSES.includes(wanted as CheckStatus))
    throw badRequest(`Invalid check state "${wanted}": must be any, passing, warning or critical`);
  return wanted as CheckStatus | 'any';
}

/** `GET /health/state/:state` (`any`, `passing`, `warning`, `critical`; `node-meta`, `filter`) → `[HealthCheck]`. */
async function checksInState(ctx: Ctx): Promise<MeshReply> {
  const wanted = wantedState(ctx);
  const { state } = ctx.deps;
  const meta = nodeMetaOf(ctx);
  const checks = state
    .list<CheckDoc>(CT.checks)
    .filter((c) => (wanted === 'any' || c.Status === wanted) && metaMatches(state.get<NodeDoc>(CT.nodes, c.Node)?.Meta ?? null, meta));
  return checkReply(ctx, AclView.of(ctx), checks, [CT.checks, CT.nodes]);
}

/**
 * The health routes: any caller, each check shown when the caller may read its node (and
 * service); a bad `?passing` or state is a 400 whoever asks.
 */
export const healthRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'health/node/:node',
    synopsis: 'The checks of a node',
    methods: { GET: { access: ANY_CALLER, query: FILTER_QUERY, handle: nodeChecks } },
    blocking: [CT.checks],
  },
  {
    pattern: 'health/checks/:service',
    synopsis: 'The checks of a service',
    methods: { GET: { access: ANY_CALLER, query: { ...NODE_META_QUERY, ...FILTER_QUERY }, handle: serviceChecks } },
    blocking: [CT.checks, CT.nodes],
  },
  {
    pattern: 'health/service/:service',
    synopsis: 'The instances of a service with their checks',
    methods: { GET: { access: (ctx) => (passingOf(ctx), ANY_CALLER), query: SERVICE_HEALTH_QUERY, handle: serviceHealth } },
    blocking: [CT.nodes, CT.services, CT.checks],
  },
  {
    pattern: 'health/state/:state',
    synopsis: 'The checks in a state',
    methods: { GET: { access: (ctx) => (wantedState(ctx), ANY_CALLER), query: { ...NODE_META_QUERY, ...FILTER_QUERY }, handle: checksInState } },
    blocking: [CT.checks, CT.nodes],
  },
];
