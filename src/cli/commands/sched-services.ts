/**
 * The "Services" section Cairn adds to `cairn sched alloc status` and `cairn sched job status`
 * (the reference's `nomad alloc status` shows no discovery health): the instances the
 * allocations' `service` blocks registered in the discovery service and their checks, read
 * through the SDK ({@link allocationInstances}) from the discovery service the environment
 * names, as `cairn mesh …` commands find it (`MESH_HTTP_ADDR`, `MESH_HTTP_TOKEN`, …).
 *
 * ```text
 * Services:                                                  (alloc status: one row per check)
 * Service  Address          Check                     Status   Output
 * web      127.0.0.1:24001  service: "web" check      passing  HTTP GET http://127.0.0.1:24001/: 200 OK
 *
 * Services                                                   (job status: one row per instance)
 * Service  Allocation  Address          Status   Checks
 * web      1a2b3c4d    127.0.0.1:24001  passing  2 passing
 * ```
 *
 * A discovery service that cannot be reached or refuses the read is one line in place of
 * the table, and the rest of the status is printed as usual.
 *
 * @module
 */
import { allocationInstances, MeshApiError, MeshClient, type MeshCheckStatus, type MeshServiceEntry } from '../../sdk/index.js';
import { list, shortId } from './sched-format.js';

/** A job or allocation snapshot's groups: `Services` of groups and tasks are read as they come (the SDK leaves them untyped). */
interface GroupsOf {
  readonly TaskGroups: readonly { readonly Name: string; readonly Tasks: readonly object[] }[];
}

/** Whether `x` (a group or task) has a `Services` list with at least one service block. */
const servesAny = (x: object) => {
  const services = (x as { Services?: unknown }).Services;
  return Array.isArray(services) && services.length > 0;
};

/** Whether a group of `job` (only `group`, when given) or one of its tasks has a `service` block: only then is the discovery service asked. */
export function hasServices(job: GroupsOf | null | undefined, group?: string): boolean {
  const groups = (job?.TaskGroups ?? []).filter((g) => group === undefined || g.Name === group);
  return groups.some((g) => servesAny(g) || g.Tasks.some(servesAny));
}

/** Worse statuses rank higher: an instance is as healthy as its worst check. */
const RANK: Record<MeshCheckStatus, number> = { passing: 0, warning: 1, critical: 2 };

/** `host:port`, IPv6 in brackets; the node's address when the instance has none (the catalog's rule). */
function addressOf(e: MeshServiceEntry): string {
  const host = e.Service.Address || e.Node.Address;
  return host.includes(':') ? `[${host}]:${e.Service.Port}` : `${host}:${e.Service.Port}`;
}

/** A check's output on one line, at most 60 characters (HTTP checks put the response body there). */
function firstLine(output: string): string {
  const line = output.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** The worst status of an instance's checks, `none` without any. */
function healthOf(e: MeshServiceEntry): string {
  return e.Checks.reduce<MeshCheckStatus | undefined>((w, c) => (w === undefined || RANK[c.Status] > RANK[w] ? c.Status : w), undefined) ?? 'none';
}

/** `2 passing, 1 critical`: the instance's checks counted by status. */
function countsOf(e: MeshServiceEntry): string {
  const counts = new Map<string, number>();
  for (const c of e.Checks) counts.set(c.Status, (counts.get(c.Status) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
}

/** One row per check of each instance (alloc status). */
function checkRows(instances: readonly MeshServiceEntry[]): string {
  const rows = instances.flatMap((e) => e.Checks.map((c) => [e.Service.Service, addressOf(e), c.Name, c.Status, firstLine(c.Output)]));
  return list(['Service', 'Address', 'Check', 'Status', 'Output'], rows);
}

/** One row per instance with its allocation (job status). */
function instanceRows(instances: readonly MeshServiceEntry[], verbose: boolean): string {
  const rows = instances.map((e) => [e.Service.Service, shortId(e.Service.Meta?.['cairn-alloc-id'] ?? '', verbose), addressOf(e), healthOf(e), countsOf(e)]);
  return list(['Service', 'Allocation', 'Address', 'Status', 'Checks'], rows);
}

/** Why the discovery service gave nothing, on one line. */
function unreachable(address: string, err: unknown): string {
  if (err instanceof MeshApiError) return `Discovery service at ${address} refused the read: ${err.message.split('\n')[0]} (HTTP ${err.status})`;
  return `Discovery service at ${address} not reachable: ${(err as Error).message.split('\n')[0]}`;
}

/**
 * The section's body for the instances of `allocIds`: the table (`style` `checks` for alloc
 * status, `instances` for job status), `No services registered` when there is none, or the
 * one line saying why the discovery service gave nothing. Never throws.
 */
export async function servicesSection(
  env: Readonly<Record<string, string | undefined>>,
  allocIds: readonly string[],
  { style, verbose }: { style: 'checks' | 'instances'; verbose: boolean },
): Promise<string> {
  let mesh: MeshClient;
  try {
    mesh = MeshClient.fromEnv(env);
  } catch (err) {
    return `Discovery service not reachable: ${(err as Error).message}`;
  }
  try {
    const instances = await allocationInstances(mesh, allocIds);
    if (instances.length === 0) return 'No services registered';
    return style === 'checks' ? checkRows(instances) : instanceRows(instances, verbose);
  } catch (err) {
    return unreachable(mesh.address, err);
  } finally {
    await mesh.close();
  }
}
