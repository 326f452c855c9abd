/**
 * Gateway: workers with their upstream details (address, state, last status, active
 * sessions, release version) and sessions with cancel (`GET /v1/workers`,
 * `GET /v1/sessions?scope_id=global&recursive=true`, `POST /v1/sessions/{id}:cancel`), with the gateway token of
 * GatewaySection.tsx.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';

interface Worker {
  name: string;
  address: string;
  state: string;
  active_session_count: number;
  last_status_time: string;
  release_version: string;
}

interface GwSession {
  id: string;
  endpoint: string;
  status: string;
  created_time: string;
  expiration_time: string;
  connections: unknown[];
}

/** The workers and sessions screen (the gateway login is GatewaySection.tsx's). */
export function Sessions() {
  const queries = useQueryClient();
  const workers = useQuery({
    queryKey: ['gateway', 'workers'],
    queryFn: () => api<{ items: Worker[] }>('gateway', '/v1/workers').then((r) => r.items ?? []),
    refetchInterval: 5000,
  });
  const sessions = useQuery({
    queryKey: ['gateway', 'sessions'],
    queryFn: () => api<{ items?: GwSession[] }>('gateway', '/v1/sessions?scope_id=global&recursive=true').then((r) => r.items ?? []),
    refetchInterval: 5000,
  });
  const [error, setError] = useState<unknown>();
  const cancel = async (id: string) => {
    setError(undefined);
    try {
      await api('gateway', `/v1/sessions/${encodeURIComponent(id)}:cancel`, { method: 'POST', body: {} });
      await queries.invalidateQueries({ queryKey: ['gateway'] });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>Gateway</h1>
      <ErrorNotice error={workers.error ?? sessions.error ?? error} />
      <section aria-labelledby="workers-h">
        <h2 id="workers-h">Workers</h2>
        {workers.isPending && <Loading />}
        <table data-testid="workers">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Address</th>
              <th scope="col">State</th>
              <th scope="col">Active sessions</th>
              <th scope="col">Last status</th>
              <th scope="col">Release version</th>
            </tr>
          </thead>
          <tbody>
            {(workers.data ?? []).map((w) => (
              <tr key={w.name}>
                <td>{w.name}</td>
                <td>{w.address}</td>
                <td>{w.state}</td>
                <td>{w.active_session_count}</td>
                <td>{new Date(w.last_status_time).toLocaleString()}</td>
                <td>{w.release_version}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="sessions-h">
        <h2 id="sessions-h">Sessions</h2>
        {sessions.isPending && <Loading />}
        <table data-testid="sessions">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Target</th>
              <th scope="col">Status</th>
              <th scope="col">Connections</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(sessions.data ?? []).map((s) => (
              <tr key={s.id}>
                <td>
                  <code>{s.id}</code>
                </td>
                <td>{s.endpoint}</td>
                <td data-testid={`status-${s.id}`}>{s.status}</td>
                <td>{s.connections.length}</td>
                <td>{new Date(s.expiration_time).toLocaleString()}</td>
                <td>
                  {(s.status === 'pending' || s.status === 'active') && (
                    <button type="button" className="danger" onClick={() => void cancel(s.id)} aria-label={`Cancel session ${s.id}`}>
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
