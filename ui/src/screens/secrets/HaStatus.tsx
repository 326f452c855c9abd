/**
 * High availability of the secrets service: which server is active (`GET /v1/sys/leader`),
 * what this server is (`GET /v1/sys/health?standbyok=true&perfstandbyok=true`, so a
 * standby answers 200 rather than its 429/473), and every server of the cluster: the
 * active one and the standbys it heard from (`GET /v1/sys/ha-status`, answered by the
 * active server; needs `read` on `sys/ha-status`). Refreshed every 5 s.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { RootOnlyNote } from './RootOnly';
import { SecretsNav } from './SecretsNav';
import type { SysHealth as Health, SysLeader as Leader } from '../../api/secrets-sys';

/** One server of `sys/ha-status`. */
interface HaNode {
  hostname: string;
  api_address: string;
  cluster_address: string;
  active_node: boolean;
  last_echo: string | null;
  version: string;
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
  const health = useQuery({
    queryKey: ['secrets', 'ha-health'],
    queryFn: () => api<Health>('secrets', '/v1/sys/health?standbyok=true&perfstandbyok=true'),
    refetchInterval: 5000,
  });
  const members = useQuery({
    queryKey: ['secrets', 'ha-status'],
    queryFn: () => api<{ nodes: HaNode[] }>('secrets', '/v1/sys/ha-status').then((r) => r.nodes),
    refetchInterval: 5000,
  });
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
          <section aria-labelledby="ha-servers-h">
            <h2 id="ha-servers-h">Servers</h2>
            <p className="muted">The active server and the standbys it heard from since it became active.</p>
            {members.isPending && <Loading />}
            {/* One notice per refusal: a namespace's 400 is already shown above. */}
            <ErrorNotice error={leader.error || health.error ? undefined : members.error} />
            {members.data && <HaServers nodes={members.data} />}
          </section>
        </>
      )}
    </>
  );
}

/** The `sys/ha-status` nodes as a table: the active server first, as the API orders them. */
function HaServers({ nodes }: { nodes: HaNode[] }) {
  return (
    <table data-testid="ha-servers">
      <thead>
        <tr>
          <th scope="col">Host name</th>
          <th scope="col">API address</th>
          <th scope="col">Cluster address</th>
          <th scope="col">Role</th>
          <th scope="col">Version</th>
          <th scope="col">Last echo</th>
        </tr>
      </thead>
      <tbody>
        {nodes.map((n) => (
          <tr key={`${n.api_address} ${n.hostname}`}>
            <td>{n.hostname}</td>
            <td>
              <code>{n.api_address || '—'}</code>
            </td>
            <td>{n.cluster_address ? <code>{n.cluster_address}</code> : '—'}</td>
            <td>{n.active_node ? 'active' : 'standby'}</td>
            <td>{n.version}</td>
            <td>{n.last_echo ? new Date(n.last_echo).toLocaleString() : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
