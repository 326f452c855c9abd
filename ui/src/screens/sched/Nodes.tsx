/** Scheduler client nodes (`GET /v1/nodes`), refreshed every 5 s. */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SchedNav } from './SchedNav';

interface NodeStub {
  ID: string;
  Name: string;
  Datacenter: string;
  NodePool: string;
  Status: string;
  SchedulingEligibility: string;
  Drain: boolean;
}

export function SchedNodes() {
  const q = useQuery({ queryKey: ['sched', 'nodes'], queryFn: () => api<NodeStub[]>('sched', '/v1/nodes'), refetchInterval: 5000 });
  return (
    <>
      <SchedNav />
      <h1>Nodes</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data && (
        <table data-testid="sched-nodes">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">ID</th>
              <th scope="col">Datacenter</th>
              <th scope="col">Pool</th>
              <th scope="col">Status</th>
              <th scope="col">Eligibility</th>
              <th scope="col">Draining</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((n) => (
              <tr key={n.ID}>
                <td>{n.Name}</td>
                <td>
                  <code>{n.ID}</code>
                </td>
                <td>{n.Datacenter}</td>
                <td>{n.NodePool}</td>
                <td>{n.Status}</td>
                <td>{n.SchedulingEligibility}</td>
                <td>{n.Drain ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
