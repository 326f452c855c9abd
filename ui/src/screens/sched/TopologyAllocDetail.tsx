/**
 * The allocation chosen in the topology: its job, group, node and status, each task's state
 * and its ports (`GET /v1/allocation/:id`, refreshed every 3 s), with a link to its screen.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { nsQuery, type Allocation } from './jobTypes';
import type { TopologyAllocStub } from './topologyModel';
import { PortsTable } from './workloadServices';

export function TopologyAllocDetail({ stub, onClose }: { stub: TopologyAllocStub; onClose: () => void }) {
  const q = useQuery({
    queryKey: ['sched', 'topology-alloc', stub.ID],
    queryFn: () => api<Allocation>('sched', `/v1/allocation/${encodeURIComponent(stub.ID)}?${nsQuery(stub.Namespace)}`),
    refetchInterval: 3000,
  });
  const a = q.data;
  return (
    <aside className="topology-detail" aria-labelledby="topology-detail-h" data-testid="topology-detail">
      <h2 id="topology-detail-h">{stub.Name}</h2>
      <ErrorNotice error={q.error} />
      {q.isPending && <Loading />}
      {a && (
        <>
          <p>
            Job <Link to={`/scheduler/jobs/${encodeURIComponent(a.JobID)}?${nsQuery(a.Namespace)}`}>{a.JobID}</Link>, group {a.TaskGroup}, on node {a.NodeName};
            client status <strong>{a.ClientStatus}</strong>.
          </p>
          <table>
            <caption>Task states</caption>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">State</th>
                <th scope="col">Restarts</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(a.TaskStates ?? {}).map(([task, s]) => (
                <tr key={task}>
                  <td>{task}</td>
                  <td>{s.State}</td>
                  <td>{s.Restarts}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {(a.AllocatedResources?.Shared.Ports ?? []).length > 0 ? (
            <PortsTable ports={a.AllocatedResources!.Shared.Ports!} testId="topology-ports" />
          ) : (
            <p>No ports.</p>
          )}
          <Link to={`/scheduler/allocations/${a.ID}?${nsQuery(a.Namespace)}`}>Allocation details</Link>
        </>
      )}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </aside>
  );
}
