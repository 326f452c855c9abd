/**
 * Scheduler CSI plugins with their health (`GET /v1/plugins?type=csi`, refreshed every 5 s)
 * and a plugin's detail (`GET /v1/plugin/csi/<id>`) with its snapshots, a page at a time
 * (`GET /v1/volumes/snapshot?plugin_id=&per_page=&next_token=`; a plugin without
 * LIST_SNAPSHOTS answers 400, shown).
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SchedNav } from './SchedNav';

interface PluginStub {
  ID: string;
  Provider: string;
  ControllerRequired: boolean;
  ControllersHealthy: number;
  ControllersExpected: number;
  NodesHealthy: number;
  NodesExpected: number;
}

/** `healthy/expected` and whether that is all of them. */
function Health({ healthy, expected }: { healthy: number; expected: number }) {
  const ok = expected > 0 && healthy === expected;
  return (
    <span className={`status status-${ok ? 'passing' : healthy === 0 && expected > 0 ? 'critical' : 'maintenance'}`}>{`${healthy}/${expected} healthy`}</span>
  );
}

export function Plugins() {
  const q = useQuery({ queryKey: ['sched', 'plugins'], queryFn: () => api<PluginStub[]>('sched', '/v1/plugins?type=csi'), refetchInterval: 5000 });
  return (
    <>
      <SchedNav />
      <h1>CSI plugins</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && q.data.length === 0 && <p>No CSI plugins.</p>}
      {q.data && q.data.length > 0 && (
        <table data-testid="plugins">
          <thead>
            <tr>
              <th scope="col">Plugin</th>
              <th scope="col">Provider</th>
              <th scope="col">Controllers</th>
              <th scope="col">Nodes</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((p) => (
              <tr key={p.ID}>
                <td>
                  <Link to={`/scheduler/plugins/${encodeURIComponent(p.ID)}`}>{p.ID}</Link>
                </td>
                <td>{p.Provider}</td>
                <td>{p.ControllerRequired ? <Health healthy={p.ControllersHealthy} expected={p.ControllersExpected} /> : 'none required'}</td>
                <td>
                  <Health healthy={p.NodesHealthy} expected={p.NodesExpected} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

interface Plugin extends PluginStub {
  Version: string;
  Controllers: Record<string, { Healthy: boolean; HealthDescription: string }>;
  Nodes: Record<string, { Healthy: boolean; HealthDescription: string }>;
}

interface Snapshot {
  ID: string;
  ExternalSourceVolumeID: string;
  SizeBytes: number;
  CreateTime: number;
  IsReady: boolean;
}

export function PluginDetail() {
  const id = useParams().id!;
  const q = useQuery({
    queryKey: ['sched', 'plugin', id],
    queryFn: () => api<Plugin>('sched', `/v1/plugin/csi/${encodeURIComponent(id)}`),
    refetchInterval: 5000,
  });
  const p = q.data;
  return (
    <>
      <SchedNav />
      <h1>CSI plugin {id}</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {p && (
        <>
          <dl className="facts" aria-label="Plugin">
            <div>
              <dt>Provider</dt>
              <dd>
                {p.Provider} {p.Version}
              </dd>
            </div>
            <div>
              <dt>Controllers</dt>
              <dd>{p.ControllerRequired ? <Health healthy={p.ControllersHealthy} expected={p.ControllersExpected} /> : 'none required'}</dd>
            </div>
            <div>
              <dt>Nodes</dt>
              <dd>
                <Health healthy={p.NodesHealthy} expected={p.NodesExpected} />
              </dd>
            </div>
          </dl>
          <h2>Instances</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Node</th>
                <th scope="col">Health</th>
              </tr>
            </thead>
            <tbody>
              {(['Controllers', 'Nodes'] as const).flatMap((role) =>
                Object.entries(p[role] ?? {}).map(([node, info]) => (
                  <tr key={`${role}-${node}`}>
                    <td>{role === 'Controllers' ? 'controller' : 'node'}</td>
                    <td>
                      <code>{node}</code>
                    </td>
                    <td>
                      <span className={`status status-${info.Healthy ? 'passing' : 'critical'}`}>{info.Healthy ? 'healthy' : 'unhealthy'}</span>
                      {info.HealthDescription && info.HealthDescription !== 'healthy' ? ` ${info.HealthDescription}` : ''}
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
          <Snapshots plugin={id} />
        </>
      )}
    </>
  );
}

function Snapshots({ plugin }: { plugin: string }) {
  const [tokens, setTokens] = useState<string[]>(['']);
  const token = tokens[tokens.length - 1];
  const q = useQuery({
    queryKey: ['sched', 'snapshots', plugin, token],
    queryFn: () =>
      api<{ Snapshots: Snapshot[]; NextToken: string }>(
        'sched',
        `/v1/volumes/snapshot?${new URLSearchParams({ plugin_id: plugin, per_page: '25', next_token: token })}`,
      ),
  });
  return (
    <section aria-labelledby="snapshots-h">
      <h2 id="snapshots-h">Snapshots</h2>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && q.data.Snapshots.length === 0 && <p>No snapshots.</p>}
      {q.data && q.data.Snapshots.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Snapshot</th>
              <th scope="col">Source volume</th>
              <th scope="col">Size (bytes)</th>
              <th scope="col">Ready</th>
            </tr>
          </thead>
          <tbody>
            {q.data.Snapshots.map((s) => (
              <tr key={s.ID}>
                <td>
                  <code>{s.ID}</code>
                </td>
                <td>{s.ExternalSourceVolumeID}</td>
                <td>{s.SizeBytes}</td>
                <td>{s.IsReady ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions">
        <button type="button" disabled={tokens.length < 2} onClick={() => setTokens((t) => t.slice(0, -1))}>
          Previous snapshots
        </button>
        <button type="button" disabled={!q.data?.NextToken} onClick={() => setTokens((t) => [...t, q.data!.NextToken])}>
          Next snapshots
        </button>
      </div>
    </section>
  );
}
