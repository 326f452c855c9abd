/**
 * High availability of the secrets service: which server is active (`GET /v1/sys/leader`)
 * and what this server is (`GET /v1/sys/health?standbyok=true&perfstandbyok=true`, so a
 * standby answers 200 rather than its 429/473). Cairn has no `sys/ha-status` (the
 * reference's list of every node), so the standbys cannot be listed: the screen says so.
 * Refreshed every 5 s.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { RootOnlyNote } from './RootOnly';
import { SecretsNav } from './SecretsNav';

interface Leader {
  ha_enabled: boolean;
  is_self: boolean;
  active_time: string;
  leader_address: string;
  leader_cluster_address: string;
  performance_standby: boolean;
}

interface Health {
  standby: boolean;
  performance_standby: boolean;
  sealed: boolean;
  version: string;
  cluster_name?: string;
  server_time_utc: number;
}

/** The role of the server that answered. */
function role(l: Leader, h: Health): string {
  if (h.sealed) return 'sealed';
  if (!l.ha_enabled) return 'active (HA not enabled: a single server)';
  if (l.is_self) return 'active';
  return h.performance_standby ? 'performance standby (serves reads, forwards writes)' : 'standby (forwards every request)';
}

export function HaStatus() {
  const leader = useQuery({ queryKey: ['secrets', 'ha-leader'], queryFn: () => api<Leader>('secrets', '/v1/sys/leader'), refetchInterval: 5000 });
  const health = useQuery({ queryKey: ['secrets', 'ha-health'], queryFn: () => api<Health>('secrets', '/v1/sys/health?standbyok=true&perfstandbyok=true'), refetchInterval: 5000 });
  const l = leader.data;
  const h = health.data;
  return (
    <>
      <SecretsNav />
      <h1>High availability</h1>
      <RootOnlyNote what="The HA status is served" />
      {(leader.isPending || health.isPending) && <Loading />}
      <ErrorNotice error={leader.error ?? health.error} />
      {l && h && (
        <>
          <dl className="facts">
            <div>
              <dt>This server</dt>
              <dd data-testid="ha-role">{role(l, h)}</dd>
            </div>
            <div>
              <dt>Active server</dt>
              <dd data-testid="ha-active">{l.is_self || !l.ha_enabled ? 'this server' : l.leader_address || 'unknown (no server holds the lock)'}</dd>
            </div>
            {l.ha_enabled && (
              <div>
                <dt>Active server's cluster address</dt>
                <dd>{l.leader_cluster_address || '—'}</dd>
              </div>
            )}
            {l.is_self && l.ha_enabled && (
              <div>
                <dt>Active since</dt>
                <dd>{new Date(l.active_time).toLocaleString()}</dd>
              </div>
            )}
            {h.cluster_name && (
              <div>
                <dt>Cluster</dt>
                <dd>{h.cluster_name}</dd>
              </div>
            )}
            <div>
              <dt>Version</dt>
              <dd>{h.version}</dd>
            </div>
          </dl>
          <h2>Standbys</h2>
          <p className="muted">
            {l.ha_enabled
              ? 'The API does not list the standby servers (Cairn has no sys/ha-status); each standby reports itself here when you open its own address.'
              : 'None: high availability is not enabled on this server.'}
          </p>
        </>
      )}
    </>
  );
}
