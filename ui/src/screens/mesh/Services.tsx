/**
 * Discovery: services with the health of their instances, live (blocking queries on
 * `/v1/catalog/services` and `/v1/health/state/any`), and the checks of the chosen service
 * (`?service=<name>`, so other screens link to it), with the scheduler allocation that
 * registered each instance (its `Meta["cairn-alloc-id"]`, read live from
 * `/v1/health/service/<name>`), linking to the allocation's screen.
 */
import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { hasSection } from '../../api/client';
import { useBlocking } from '../../api/useBlocking';
import { MeshNav } from './MeshNav';
import { ErrorNotice, Loading } from '../../components/Notice';

interface Check {
  Node: string;
  CheckID: string;
  Name: string;
  Status: 'passing' | 'warning' | 'critical' | 'maintenance';
  Output: string;
  ServiceID: string;
  ServiceName: string;
}

const RANK = { passing: 0, warning: 1, maintenance: 2, critical: 3 } as const;

/** The `Meta` key naming the scheduler allocation that registered an instance (docs/compatibility.md, issue 26). */
const ALLOC_ID_META = 'cairn-alloc-id';

/** The allocation that registered each instance of `service`, by service ID (none for instances registered otherwise). */
function useAllocOfInstance(service: string): Map<string, string> {
  const instances = useBlocking<Array<{ Service: { ID: string; Meta: Record<string, string> | null } }>>(`/v1/health/service/${encodeURIComponent(service)}`);
  return useMemo(() => {
    const m = new Map<string, string>();
    for (const i of instances.data ?? []) {
      const alloc = i.Service.Meta?.[ALLOC_ID_META];
      if (alloc) m.set(i.Service.ID, alloc);
    }
    return m;
  }, [instances.data]);
}

export function Services() {
  const services = useBlocking<Record<string, string[]>>('/v1/catalog/services');
  const checks = useBlocking<Check[]>('/v1/health/state/any');
  const [params, setParams] = useSearchParams();
  const chosen = params.get('service') ?? undefined;
  const setChosen = (name: string) => setParams({ service: name });
  const byService = useMemo(() => {
    const m = new Map<string, Check[]>();
    for (const c of checks.data ?? []) if (c.ServiceName) m.set(c.ServiceName, [...(m.get(c.ServiceName) ?? []), c]);
    return m;
  }, [checks.data]);

  return (
    <>
      <MeshNav />
      <h1>Services</h1>
      <ErrorNotice error={services.error ?? checks.error} />
      {!services.data && <Loading />}
      {services.data && (
        <table>
          <caption className="sr-only">Services and their health, updated live</caption>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Tags</th>
              <th scope="col">Health</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(services.data)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, tags]) => {
                const cs = byService.get(name) ?? [];
                const worst = cs.reduce<Check['Status'] | undefined>((w, c) => (w === undefined || RANK[c.Status] > RANK[w] ? c.Status : w), undefined);
                const counts = (['passing', 'warning', 'critical'] as const).map((s) => `${cs.filter((c) => c.Status === s).length} ${s}`).join(', ');
                return (
                  <tr key={name}>
                    <td>
                      <button type="button" className="link" onClick={() => setChosen(name)} aria-pressed={chosen === name}>
                        {name}
                      </button>
                    </td>
                    <td>{tags.join(', ')}</td>
                    <td>
                      <span className={`status status-${worst ?? 'none'}`} data-testid={`health-${name}`}>
                        {worst ?? 'no checks'}
                      </span>{' '}
                      {cs.length > 0 && <span className="muted">({counts})</span>}
                    </td>
                  </tr>
                );
              })}
          </tbody>
        </table>
      )}
      {chosen && <ServiceChecks service={chosen} checks={byService.get(chosen) ?? []} />}
    </>
  );
}

/** The checks of one service's instances, each with the allocation that registered it, if any. */
function ServiceChecks({ service, checks }: { service: string; checks: readonly Check[] }) {
  const allocOf = useAllocOfInstance(service);
  const linkAllocs = hasSection('sched');
  return (
    <section aria-labelledby="checks-h">
      <h2 id="checks-h">Checks of {service}</h2>
      <table data-testid="service-checks">
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Node</th>
            <th scope="col">Instance</th>
            <th scope="col">Allocation</th>
            <th scope="col">Status</th>
            <th scope="col">Output</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((c) => (
            <tr key={`${c.Node}/${c.CheckID}`}>
              <td>{c.Name}</td>
              <td>{c.Node}</td>
              <td>{c.ServiceID}</td>
              <td>
                <AllocLink id={allocOf.get(c.ServiceID)} link={linkAllocs} />
              </td>
              <td>
                <span className={`status status-${c.Status}`}>{c.Status}</span>
              </td>
              <td>
                <code>{c.Output}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The allocation's short ID, linking to its screen when this origin reaches the scheduler. */
function AllocLink({ id, link }: { id: string | undefined; link: boolean }) {
  if (!id) return null;
  return link ? <Link to={`/scheduler/allocations/${encodeURIComponent(id)}`}>{id.slice(0, 8)}</Link> : <code>{id.slice(0, 8)}</code>;
}
