/**
 * The `service` dependency (`health.service`): `GET /v1/health/service/<name>` blocking
 * queries with `?tag=`, `?dc=`, `?near=`, and `?passing` when the only filter is `passing`
 * (consul-template's `passingOnly`: the server leaves the others out, so their flapping wakes
 * nothing). Each instance is handed over flattened with its checks' aggregated status
 * (dependency.ts {@link HealthInstance}; the reference API client's `AggregatedStatus`:
 * maintenance, else critical, else warning, else passing), sorted by node then ID as
 * consul-template sorts them; data.ts applies the other filter forms (`any`, lists).
 *
 * @module
 */
import type { MeshHealthCheck, MeshServiceEntry } from '../../../../../sdk/mesh.js';
import type { Dependency, HealthInstance } from '../../../template/dependency.js';
import { runBlockingQuery } from './blocking.js';
import type { DiscoveryReader } from './discovery.js';
import type { TemplateSourceSettings } from './settings.js';
import type { WatchLoop } from './shared.js';

/** The reference's maintenance check IDs: the node's, and a service's prefix. */
const NODE_MAINTENANCE = '_node_maintenance';
const SERVICE_MAINTENANCE_PREFIX = '_service_maintenance:';

/** The worst status of `checks` (module doc); `passing` without checks. */
function aggregatedStatus(checks: readonly Pick<MeshHealthCheck, 'CheckID' | 'Status'>[]): string {
  let warning = false;
  let critical = false;
  for (const c of checks) {
    if (c.CheckID === NODE_MAINTENANCE || c.CheckID.startsWith(SERVICE_MAINTENANCE_PREFIX)) return 'maintenance';
    if (c.Status === 'critical') critical = true;
    else if (c.Status === 'warning') warning = true;
  }
  return critical ? 'critical' : warning ? 'warning' : 'passing';
}

function instance(e: MeshServiceEntry): HealthInstance {
  return {
    Node: e.Node.Node,
    NodeAddress: e.Node.Address,
    NodeDatacenter: e.Node.Datacenter,
    NodeMeta: e.Node.Meta,
    ID: e.Service.ID,
    Name: e.Service.Service,
    Address: e.Service.Address,
    Port: e.Service.Port,
    Tags: e.Service.Tags,
    ServiceMeta: e.Service.Meta,
    Status: aggregatedStatus(e.Checks),
  };
}

const byNodeThenId = (a: HealthInstance, b: HealthInstance) => (a.Node !== b.Node ? (a.Node < b.Node ? -1 : 1) : a.ID < b.ID ? -1 : a.ID > b.ID ? 1 : 0);

/** The watch of a `health.service` dependency (module doc). */
export function healthServiceLoop(d: Dependency & { kind: 'health.service' }, reader: DiscoveryReader, settings: TemplateSourceSettings): WatchLoop {
  const { health } = reader.groups({ dc: d.dc, near: d.near });
  const passing = d.filter.length === 1 && d.filter[0] === 'passing';
  return (ctx) =>
    runBlockingQuery(
      ctx,
      async (o) => {
        const r = await health.service(d.name, { ...o, tag: d.tag, passing });
        return { value: r.items.map(instance).sort(byNodeThenId), index: r.index };
      },
      settings,
    );
}
