/**
 * The discovery instances the scheduler's clients registered for allocations (issue 26;
 * docs/compatibility.md "Services and checks of workloads"): every such registration carries
 * `Meta["cairn-alloc-id"]`, so the instances of some allocations are found with two filtered
 * reads, `GET /v1/catalog/services` (the names, since a service name may be interpolated)
 * then `GET /v1/health/service/<name>` per name, each with the filter
 * `Service.Meta["cairn-alloc-id"] == "<id>" or …`.
 *
 * ```ts
 * const instances = await allocationInstances(mesh, [alloc.ID]);
 * for (const { Service, Checks } of instances) console.log(Service.Service, Service.Port, Checks.map((c) => c.Status));
 * ```
 *
 * @module
 */
import type { MeshCatalog, MeshHealth, MeshServiceEntry } from './mesh-catalog.js';

/** The `Meta` key naming the allocation that registered an instance (set by the scheduler's client). */
export const ALLOC_ID_META = 'cairn-alloc-id';

/** Allocation IDs per filter expression: keeps each request's query string short (about 50 bytes per ID). */
const IDS_PER_READ = 16;

/** `<selector> == "<a>" or <selector> == "<b>" …` (IDs quoted as JSON strings, which the filter language reads alike). */
function anyOf(selector: string, ids: readonly string[]): string {
  return ids.map((id) => `${selector} == ${JSON.stringify(id)}`).join(' or ');
}

/**
 * The instances registered for any of `allocIds`, each with its node and checks, sorted by
 * service name, then allocation, then service ID. Instances the caller's token may not read
 * are left out, as the reads leave them out; no IDs, no request.
 * @throws MeshApiError when the discovery service refuses a read; MeshConnectionError when it cannot be reached.
 */
export async function allocationInstances(
  mesh: { readonly catalog: MeshCatalog; readonly health: MeshHealth },
  allocIds: readonly string[],
): Promise<MeshServiceEntry[]> {
  const found: MeshServiceEntry[] = [];
  for (let i = 0; i < allocIds.length; i += IDS_PER_READ) {
    const ids = allocIds.slice(i, i + IDS_PER_READ);
    const names = Object.keys((await mesh.catalog.services({ filter: anyOf(`ServiceMeta[${JSON.stringify(ALLOC_ID_META)}]`, ids) })).value);
    const filter = anyOf(`Service.Meta[${JSON.stringify(ALLOC_ID_META)}]`, ids);
    const lists = await Promise.all(names.map((name) => mesh.health.service(name, { filter })));
    for (const l of lists) found.push(...l.items);
  }
  const key = (e: MeshServiceEntry) => [e.Service.Service, e.Service.Meta?.[ALLOC_ID_META] ?? '', e.Service.ID];
  return found.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k]! < y[k]! ? -1 : 1;
    return 0;
  });
}
