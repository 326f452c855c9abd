/**
 * Discovery: services with the health of their instances, live (blocking queries on
 * `/v1/catalog/services` and `/v1/health/state/any`), and the checks of the chosen service.
 */
import { useMemo, useState } from 'react';
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

export function Services() {
  const services = useBlocking<Record<string, string[]>>('/v1/catalog/services');
  const checks = useBlocking<Check[]>('/v1/health/state/any');
  const [chosen, setChosen] = useState<string>();
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
      {chosen && (
        <section aria-labelledby="checks-h">
          <h2 id="checks-h">Checks of {chosen}</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Node</th>
                <th scope="col">Instance</th>
                <th scope="col">Status</th>
                <th scope="col">Output</th>
              </tr>
            </thead>
            <tbody>
              {(byService.get(chosen) ?? []).map((c) => (
                <tr key={`${c.Node}/${c.CheckID}`}>
                  <td>{c.Name}</td>
                  <td>{c.Node}</td>
                  <td>{c.ServiceID}</td>
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
      )}
    </>
  );
}
