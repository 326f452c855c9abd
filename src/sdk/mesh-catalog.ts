/**
 * The discovery service's catalog (`/v1/catalog/*`), health (`/v1/health/*`) and local agent
 * (`/v1/agent/*`) endpoints (reference: Consul's APIs of the same paths), reached as
 * `MeshClient.catalog`, `.health` and `.agent`:
 *
 * ```ts
 * await mesh.agent.registerService({ Name: 'web', Port: 80, Check: { TTL: '30s' } });
 * await mesh.agent.passTtl('service:web');
 * const { items, index } = await mesh.health.service('web', { passing: true });
 * const next = await mesh.health.service('web', { passing: true, index, wait: '30s' }); // blocks until it changes
 * ```
 *
 * Catalog and health reads return `{ items, index }` (lists) or `{ value, index }` with the
 * reply's `X-Mesh-Index`, and take `{ index, wait }` to block until the data changes.
 * Agent reads are not blocking. Every method rejects with `MeshApiError` on a refusal.
 *
 * @module
 */
import type { MeshCall, MeshCallOptions } from './mesh-call.js';
import type {
  MeshAgentSelf,
  MeshAgentService,
  MeshAgentServiceHealth,
  MeshCatalogNode,
  MeshCatalogQuery,
  MeshCheckDefinition,
  MeshCheckStatus,
  MeshHealthCheck,
  MeshHealthServiceQuery,
  MeshMember,
  MeshNode,
  MeshNodeService,
  MeshServiceEntry,
  MeshServiceNode,
  MeshServiceQuery,
  MeshServiceRegistration,
} from './mesh-catalog-types.js';
import type { MeshList } from './mesh-types.js';

export * from './mesh-catalog-types.js';

/** A non-list blocking read: the value and the index to block on. */
export interface MeshIndexed<T> {
  readonly value: T;
  readonly index: number;
}

/** `/v1<prefix>/<name>` with `name` escaped (service, node and check names may hold any character). */
const named = (prefix: string, name: string) => `${prefix}/${encodeURIComponent(name)}`;

/** The call options of a blocking read with the reference's filters. */
function readOptions(o: MeshServiceQuery & { readonly passing?: boolean }): MeshCallOptions {
  const tag = o.tag === undefined ? undefined : typeof o.tag === 'string' ? [o.tag] : o.tag;
  const nodeMeta = o.nodeMeta && Object.entries(o.nodeMeta).map(([k, v]) => `${k}:${v}`);
  return {
    query: { index: o.index, wait: o.wait, filter: o.filter, tag, 'node-meta': nodeMeta, passing: o.passing ? 'true' : undefined },
    // A blocking read may take its `wait` (at most 10 min) plus jitter on top of the call's limit.
    extraTimeoutMs: o.index !== undefined ? 660_000 : 0,
    signal: o.signal,
  };
}

/** `GET` of a list: its items and index. */
async function list<T>(call: MeshCall, path: string, o: MeshServiceQuery & { readonly passing?: boolean }): Promise<MeshList<T>> {
  const r = await call<T[]>('GET', path, readOptions(o));
  return { items: r.body ?? [], index: r.index };
}

/** `/v1/catalog/*`: nodes and services of the datacenter (see the module doc). */
export class MeshCatalog {
  constructor(private readonly call: MeshCall) {}

  /** `GET /v1/catalog/datacenters`: the known datacenters, by name. */
  async datacenters(): Promise<string[]> {
    return (await this.call<string[]>('GET', '/catalog/datacenters')).body;
  }

  /** `GET /v1/catalog/nodes`: the nodes the token may read (`node:read`). */
  nodes(o: MeshCatalogQuery = {}): Promise<MeshList<MeshNode>> {
    return list(this.call, '/catalog/nodes', o);
  }

  /** `GET /v1/catalog/services`: `{name: [tags…]}` of the services the token may read. */
  async services(o: MeshCatalogQuery = {}): Promise<MeshIndexed<Record<string, string[]>>> {
    const r = await this.call<Record<string, string[]>>('GET', '/catalog/services', readOptions(o));
    return { value: r.body, index: r.index };
  }

  /** `GET /v1/catalog/service/<name>`: the instances of a service with their nodes (`tag` narrows). */
  service(name: string, o: MeshServiceQuery = {}): Promise<MeshList<MeshServiceNode>> {
    return list(this.call, named('/catalog/service', name), o);
  }

  /** `GET /v1/catalog/node/<node>`: the node and its services by ID; `null` for an unknown node. */
  async node(node: string, o: MeshCatalogQuery = {}): Promise<MeshIndexed<MeshCatalogNode<Record<string, MeshNodeService>> | null>> {
    const r = await this.call<MeshCatalogNode<Record<string, MeshNodeService>> | null>('GET', named('/catalog/node', node), readOptions(o));
    return { value: r.body, index: r.index };
  }

  /** `GET /v1/catalog/node-services/<node>`: the node and its services as a list. @throws MeshApiError 404 for an unknown node. */
  async nodeServices(node: string, o: MeshCatalogQuery = {}): Promise<MeshIndexed<MeshCatalogNode<MeshNodeService[]>>> {
    const r = await this.call<MeshCatalogNode<MeshNodeService[]>>('GET', named('/catalog/node-services', node), readOptions(o));
    return { value: r.body, index: r.index };
  }

  /**
   * `PUT /v1/catalog/register`: a node with optionally a service and checks (the reference's
   * `CatalogRegistration`, e.g. `{Node, Address, Service: {ID, Service, Port}}`), for
   * external services no agent runs. @throws MeshApiError 403 without `node:write` / `service:write`.
   */
  async register(registration: Readonly<Record<string, unknown>>): Promise<void> {
    await this.call('PUT', '/catalog/register', { body: registration });
  }

  /** `PUT /v1/catalog/deregister`: the node, or only one of its services or checks. */
  async deregister(d: { readonly Node: string; readonly ServiceID?: string; readonly CheckID?: string; readonly Datacenter?: string }): Promise<void> {
    await this.call('PUT', '/catalog/deregister', { body: d });
  }
}

/** `/v1/health/*`: checks and the instances with their health (see the module doc). */
export class MeshHealth {
  constructor(private readonly call: MeshCall) {}

  /** `GET /v1/health/node/<node>`: the checks of a node. */
  node(node: string, o: MeshCatalogQuery = {}): Promise<MeshList<MeshHealthCheck>> {
    return list(this.call, named('/health/node', node), o);
  }

  /** `GET /v1/health/checks/<service>`: the checks of every instance of a service. */
  checks(service: string, o: MeshCatalogQuery = {}): Promise<MeshList<MeshHealthCheck>> {
    return list(this.call, named('/health/checks', service), o);
  }

  /** `GET /v1/health/service/<service>`: the instances with node and checks; `passing` keeps those whose every check passes. */
  service(service: string, o: MeshHealthServiceQuery = {}): Promise<MeshList<MeshServiceEntry>> {
    return list(this.call, named('/health/service', service), o);
  }

  /** `GET /v1/health/state/<state>`: the checks in a state (`any` for all). */
  state(state: MeshCheckStatus | 'any', o: MeshCatalogQuery = {}): Promise<MeshList<MeshHealthCheck>> {
    return list(this.call, named('/health/state', state), o);
  }
}

/** `/v1/agent/*`: the services and checks of the agent the client talks to (see the module doc). */
export class MeshAgent {
  constructor(private readonly call: MeshCall) {}

  /** `GET /v1/agent/self` (`agent:read`). */
  async self(): Promise<MeshAgentSelf> {
    return (await this.call<MeshAgentSelf>('GET', '/agent/self')).body;
  }

  /** `GET /v1/agent/members`: the agents of the datacenter. */
  async members(): Promise<MeshMember[]> {
    return (await this.call<MeshMember[]>('GET', '/agent/members')).body;
  }

  /** `GET /v1/agent/services`: the local services the token may read, by ID. */
  async services(): Promise<Record<string, MeshAgentService>> {
    return (await this.call<Record<string, MeshAgentService>>('GET', '/agent/services')).body;
  }

  /** `GET /v1/agent/service/<id>`. @throws MeshApiError 404 `unknown service ID: <id>`. */
  async service(id: string): Promise<MeshAgentService> {
    return (await this.call<MeshAgentService>('GET', named('/agent/service', id))).body;
  }

  /**
   * `PUT /v1/agent/service/register`: adds or replaces a local service with its checks;
   * `replaceExistingChecks` drops the checks the definition no longer has.
   * @throws MeshApiError 400 `Missing service name` / a field error; 403 without `service:write`.
   */
  async registerService(definition: MeshServiceRegistration, o: { readonly replaceExistingChecks?: boolean; readonly token?: string } = {}): Promise<void> {
    await this.call('PUT', '/agent/service/register', {
      body: definition,
      query: { 'replace-existing-checks': o.replaceExistingChecks ? 'true' : undefined },
      ...(o.token !== undefined && { token: o.token }),
    });
  }

  /** `PUT /v1/agent/service/deregister/<id>` (`token`: instead of the client's). @throws MeshApiError 404 `Unknown service ID "<id>". …`. */
  async deregisterService(id: string, o: { readonly token?: string } = {}): Promise<void> {
    await this.call('PUT', named('/agent/service/deregister', id), o.token !== undefined ? { token: o.token } : {});
  }

  /** `PUT /v1/agent/service/maintenance/<id>`: puts a service in or out of maintenance. */
  async serviceMaintenance(id: string, enable: boolean, reason?: string): Promise<void> {
    await this.call('PUT', named('/agent/service/maintenance', id), { query: { enable: String(enable), reason } });
  }

  /** `PUT /v1/agent/maintenance`: puts this node in or out of maintenance (`node:write`). */
  async nodeMaintenance(enable: boolean, reason?: string): Promise<void> {
    await this.call('PUT', '/agent/maintenance', { query: { enable: String(enable), reason } });
  }

  /** `GET /v1/agent/checks`: the local checks the token may read, by ID. */
  async checks(): Promise<Record<string, MeshHealthCheck>> {
    return (await this.call<Record<string, MeshHealthCheck>>('GET', '/agent/checks')).body;
  }

  /** `PUT /v1/agent/check/register`. @throws MeshApiError 400 `ServiceID "<id>" does not exist`, `Missing check name`. */
  async registerCheck(definition: MeshCheckDefinition): Promise<void> {
    await this.call('PUT', '/agent/check/register', { body: definition });
  }

  /** `PUT /v1/agent/check/deregister/<id>`. */
  async deregisterCheck(id: string): Promise<void> {
    await this.call('PUT', named('/agent/check/deregister', id));
  }

  /** `PUT /v1/agent/check/pass/<id>?note=`: a TTL check passes. @throws MeshApiError 404 when `id` is not a TTL check. */
  async passTtl(id: string, note?: string): Promise<void> {
    await this.call('PUT', named('/agent/check/pass', id), { query: { note } });
  }

  /** `PUT /v1/agent/check/warn/<id>?note=`. */
  async warnTtl(id: string, note?: string): Promise<void> {
    await this.call('PUT', named('/agent/check/warn', id), { query: { note } });
  }

  /** `PUT /v1/agent/check/fail/<id>?note=`. */
  async failTtl(id: string, note?: string): Promise<void> {
    await this.call('PUT', named('/agent/check/fail', id), { query: { note } });
  }

  /** `PUT /v1/agent/check/update/<id>`: a TTL check's status and output. */
  async updateTtl(id: string, status: MeshCheckStatus, output = ''): Promise<void> {
    await this.call('PUT', named('/agent/check/update', id), { body: { Status: status, Output: output } });
  }

  /**
   * `GET /v1/agent/health/service/name/<name>`: the local instances with their aggregated
   * status, and that status (`passing` for HTTP 200; 429 `warning`; 503 `critical` or
   * `maintenance`; `undefined` with no instance).
   */
  async serviceHealth(name: string): Promise<{ status: MeshAgentServiceHealth['AggregatedStatus'] | undefined; items: MeshAgentServiceHealth[] }> {
    const r = await this.call<MeshAgentServiceHealth[] | undefined>('GET', named('/agent/health/service/name', name), {
      allowNotFound: true,
      acceptStatuses: [429, 503],
    });
    const items = r.body ?? [];
    const worst = items.map((i) => i.AggregatedStatus);
    const status = items.length === 0 ? undefined : (['maintenance', 'critical', 'warning', 'passing'] as const).find((s) => worst.includes(s));
    return { status, items };
  }
}
