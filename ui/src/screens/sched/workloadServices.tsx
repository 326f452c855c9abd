/**
 * What the job and allocation screens show of an allocation's network and services (issue
 * 26): its ports (`AllocatedResources.Shared.Ports`: label, `HostIP:Value`, `To`) and the
 * instances its `service` blocks registered in the discovery service, found by their
 * `Meta["cairn-alloc-id"]` with filtered reads of `/v1/catalog/services` (the names: a name
 * may be interpolated) and `/v1/health/service/<name>`, as the SDK's `allocationInstances`
 * reads them. Each service links to the discovery screen of that service.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, hasSection } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice } from '../../components/Notice';
import { nsQuery, type PortMapping } from './jobTypes';

/** The `Meta` key naming the allocation that registered an instance. */
const ALLOC_ID_META = 'cairn-alloc-id';

type CheckStatus = 'passing' | 'warning' | 'critical';

/** One instance of `GET /v1/health/service/:name`, the fields shown. */
export interface Instance {
  Node: { Node: string; Address: string };
  Service: { ID: string; Service: string; Address: string; Port: number; Meta: Record<string, string> | null };
  Checks: Array<{ CheckID: string; Name: string; Status: CheckStatus; Output: string }>;
}

const RANK: Record<CheckStatus, number> = { passing: 0, warning: 1, critical: 2 };

/** The filter `<selector> == "<a>" or …` for the allocation IDs. */
const anyOf = (selector: string, ids: readonly string[]) => ids.map((id) => `${selector} == ${JSON.stringify(id)}`).join(' or ');

/** The instances the allocations registered, sorted by service, then allocation. @throws ApiError when the discovery service refuses a read. */
async function instancesOf(allocIds: readonly string[]): Promise<Instance[]> {
  if (allocIds.length === 0) return [];
  const meta = JSON.stringify(ALLOC_ID_META);
  const names = Object.keys(
    await api<Record<string, string[]>>('mesh', `/v1/catalog/services?filter=${encodeURIComponent(anyOf(`ServiceMeta[${meta}]`, allocIds))}`),
  );
  const filter = encodeURIComponent(anyOf(`Service.Meta[${meta}]`, allocIds));
  const lists = await Promise.all(names.map((n) => api<Instance[]>('mesh', `/v1/health/service/${encodeURIComponent(n)}?filter=${filter}`)));
  const key = (i: Instance) => `${i.Service.Service}\u0000${i.Service.Meta?.[ALLOC_ID_META] ?? ''}\u0000${i.Service.ID}`;
  return lists.flat().sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** `host:port` (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The worst status of an instance's checks. */
function worst(i: Instance): CheckStatus | undefined {
  return i.Checks.reduce<CheckStatus | undefined>((w, c) => (w === undefined || RANK[c.Status] > RANK[w] ? c.Status : w), undefined);
}

/** The allocation's ports: label, host address and port, and the port the task is told to bind when mapped. */
export function PortsTable({ ports, testId }: { ports: readonly PortMapping[]; testId: string }) {
  return (
    <DataTable
      testId={testId}
      caption="Ports"
      rows={ports}
      rowKey={(p) => p.Label}
      columns={[
        ['Label', (p) => p.Label],
        ['Address', (p) => <code>{hostPort(p.HostIP, p.Value)}</code>],
        ['To', (p) => (p.To > 0 ? String(p.To) : '')],
      ]}
    />
  );
}

/**
 * The instances of `allocIds` with each check's status, refreshed every 3 s; `withAlloc`
 * adds a column linking to each instance's allocation (the job screen). Nothing without
 * the discovery section on this origin.
 */
export function ServicesTable({ allocIds, ns, withAlloc }: { allocIds: readonly string[]; ns: string; withAlloc: boolean }) {
  const enabled = hasSection('mesh');
  const q = useQuery({ queryKey: ['mesh', 'alloc-instances', ...allocIds], queryFn: () => instancesOf(allocIds), refetchInterval: 3000, enabled });
  if (!enabled) return <p>The discovery service is not reachable from this UI.</p>;
  const allocColumn = [
    'Allocation',
    (i: Instance) => {
      const id = i.Service.Meta?.[ALLOC_ID_META] ?? '';
      return <Link to={`/scheduler/allocations/${id}?${nsQuery(ns)}`}>{id.slice(0, 8)}</Link>;
    },
  ] as const;
  return (
    <>
      <ErrorNotice error={q.error} />
      {q.data?.length === 0 && <p>No service instances registered.</p>}
      {q.data && q.data.length > 0 && (
        <DataTable
          testId="alloc-services"
          caption="Service instances and their checks, from the discovery service"
          rows={q.data}
          rowKey={(i) => i.Service.ID}
          columns={[
            ['Service', (i) => <Link to={`/discovery?service=${encodeURIComponent(i.Service.Service)}`}>{i.Service.Service}</Link>],
            ...(withAlloc ? [allocColumn] : []),
            ['Address', (i) => <code>{hostPort(i.Service.Address || i.Node.Address, i.Service.Port)}</code>],
            [
              'Health',
              (i) => (
                <span className={`status status-${worst(i) ?? 'none'}`} data-testid={`instance-health-${i.Service.ID}`}>
                  {worst(i) ?? 'no checks'}
                </span>
              ),
            ],
            [
              'Checks',
              (i) => (
                <ul className="checks">
                  {i.Checks.map((c) => (
                    <li key={c.CheckID} title={c.Output}>
                      {c.Name}: <span className={`status status-${c.Status}`}>{c.Status}</span>
                    </li>
                  ))}
                </ul>
              ),
            ],
          ]}
        />
      )}
    </>
  );
}
