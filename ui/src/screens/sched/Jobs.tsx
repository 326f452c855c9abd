/** Scheduler jobs of every namespace the token may read (`GET /v1/jobs?namespace=*`), refreshed every 5 s. */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { nanoTime, nsQuery, type JobStub } from './jobTypes';
import { SchedNav } from './SchedNav';

export function Jobs() {
  const q = useQuery({ queryKey: ['sched', 'jobs'], queryFn: () => api<JobStub[]>('sched', '/v1/jobs?namespace=*'), refetchInterval: 5000 });
  return (
    <>
      <SchedNav />
      <div className="toolbar">
        <h1>Jobs</h1>
        <Link className="button primary" to="/scheduler/jobs-run">
          Run job
        </Link>
      </div>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {q.data?.length === 0 && <p>No jobs.</p>}
      {q.data && q.data.length > 0 && (
        <DataTable
          testId="jobs"
          caption="Jobs"
          rows={q.data}
          rowKey={(j) => `${j.Namespace}/${j.ID}`}
          columns={[
            ['ID', (j) => <Link to={`/scheduler/jobs/${encodeURIComponent(j.ID)}?${nsQuery(j.Namespace)}`}>{j.ID}</Link>],
            ['Namespace', (j) => j.Namespace],
            ['Type', (j) => j.Type],
            ['Priority', (j) => j.Priority],
            ['Status', (j) => <span data-testid={`job-status-${j.ID}`}>{j.Status}</span>],
            ['Submitted', (j) => nanoTime(j.SubmitTime)],
          ]}
        />
      )}
    </>
  );
}
