/**
 * The discovery service's card: its leader, its services by health and the failing checks
 * by name (`GET /v1/health/state/any` and `/v1/catalog/services`, blocking queries: a check
 * that fails shows at once), linking to the services screen.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useBlocking } from '../../api/useBlocking';
import { errorState, StatusCard, type CardState } from '../../components/StatusCard';

interface Check {
  Node: string;
  CheckID: string;
  Name: string;
  Status: 'passing' | 'warning' | 'critical' | 'maintenance';
  ServiceName: string;
}

/** A service's health: its worst check's. */
function worstOf(checks: readonly Check[]): Check['Status'] {
  if (checks.some((c) => c.Status === 'critical')) return 'critical';
  if (checks.some((c) => c.Status === 'warning' || c.Status === 'maintenance')) return 'warning';
  return 'passing';
}

export function DiscoveryCard() {
  const checks = useBlocking<Check[]>('/v1/health/state/any');
  const services = useBlocking<Record<string, string[]>>('/v1/catalog/services');
  const leader = useQuery({ queryKey: ['overview', 'mesh-leader'], queryFn: () => api<string>('mesh', '/v1/status/leader'), refetchInterval: 5000 });
  const all = checks.data ?? [];
  const names = Object.keys(services.data ?? {});
  const byHealth = { passing: 0, warning: 0, critical: 0 };
  for (const name of names) {
    const status = worstOf(all.filter((c) => c.ServiceName === name));
    byHealth[status === 'maintenance' ? 'warning' : status]++;
  }
  const failing = all.filter((c) => c.Status === 'critical' || c.Status === 'warning');
  let state: CardState = 'unknown';
  let sentence = 'Not reached yet.';
  if (checks.error) [state, sentence] = errorState(checks.error);
  else if (checks.data && services.data) {
    const counts = `${names.length} services: ${byHealth.passing} passing, ${byHealth.warning} warning, ${byHealth.critical} critical`;
    const lead = leader.data ? `leader ${leader.data}` : 'no leader known';
    state = failing.some((c) => c.Status === 'critical') ? 'bad' : failing.length > 0 || !leader.data ? 'warn' : 'ok';
    sentence = `${counts}; ${lead}.`;
  }
  return (
    <StatusCard id="discovery" title="Discovery" state={state} sentence={sentence} to="/discovery" linkText="Services">
      {failing.length > 0 && (
        <ul className="card-list" aria-label="Failing checks">
          {failing.slice(0, 5).map((c) => (
            <li key={`${c.Node}/${c.CheckID}`}>
              <span className={`status-${c.Status}`}>{c.Status}</span>{' '}
              {c.ServiceName ? <Link to={`/discovery?service=${encodeURIComponent(c.ServiceName)}`}>{c.Name}</Link> : c.Name} on {c.Node}
            </li>
          ))}
          {failing.length > 5 && <li>and {failing.length - 5} more</li>}
        </ul>
      )}
    </StatusCard>
  );
}
