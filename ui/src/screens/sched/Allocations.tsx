/** Scheduler allocations of every namespace the token may read (`GET /v1/allocations?namespace=*`), refreshed every 5 s; each links to its own screen. */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/Notice';
import { nsQuery, type AllocStub } from './jobTypes';
import { SchedNav } from './SchedNav';

export function Allocations() {
  const q = useQuery({ queryKey: ['sched', 'allocations'], queryFn: () => api<AllocStub[]>('sched', '/v1/allocations?namespace=*'), refetchInterval: 5000 });
  return (
    <>
      <SchedNav />
      <h1>Allocations</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data?.length === 0 && <p>No allocations.</p>}
      {q.data && q.data.length > 0 && (
        <table data-testid="allocations">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Namespace</th>
              <th scope="col">Job</th>
              <th scope="col">Group</th>
              <th scope="col">Node</th>
              <th scope="col">Desired</th>
              <th scope="col">Client status</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((a) => (
              <tr key={a.ID}>
                <td>
                  <Link to={`/scheduler/allocations/${a.ID}?${nsQuery(a.Namespace)}`}>{a.Name}</Link>
                </td>
                <td>{a.Namespace}</td>
                <td>{a.JobID}</td>
                <td>{a.TaskGroup}</td>
                <td>{a.NodeName}</td>
                <td>{a.DesiredStatus}</td>
                <td>{a.ClientStatus}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
