/**
 * A job: its definition's status, the summary per task group (`/v1/job/:id/summary`), its
 * allocations (each linking to its own screen, with the ports of those not stopped, read
 * from each one's `GET /v1/allocation/:id`), the instances its services registered in the
 * discovery service with their checks (workloadServices.tsx), a periodic job's schedule and
 * launches (JobPeriodic.tsx), a parameterized job's Dispatch form (JobDispatch.tsx), a service
 * job's latest deployment (JobDeployment.tsx), the versions with their changes and Revert
 * (JobVersions.tsx) and evaluations, refreshed every 3 s; Stop and Stop + purge (`DELETE /v1/job/:id[?purge=true]`)
 * after a confirmation.
 */
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { nanoTime, nsQuery, type Allocation, type AllocStub, type Evaluation } from './jobTypes';
import { SchedNav } from './SchedNav';
import { hostPort, ServicesTable } from './workloadServices';
import { JobPeriodic, type PeriodicBlock } from './JobPeriodic';
import { JobVersions } from './JobVersions';
import { JobDispatch, type ParameterizedBlock } from './JobDispatch';
import { JobDeployment } from './JobDeployment';

interface JobDetail {
  ID: string;
  Namespace: string;
  Type: string;
  Priority: number;
  Status: string;
  Stop: boolean;
  SubmitTime: number;
  TaskGroups: Array<{ Services?: unknown[] | null; Tasks: Array<{ Services?: unknown[] | null }> }> | null;
  Periodic: PeriodicBlock | null;
  ParameterizedJob?: ParameterizedBlock | null;
  ParentID?: string;
}

/** Whether a group or task of the job has a `service` block. */
const jobHasServices = (j: JobDetail) => (j.TaskGroups ?? []).some((g) => (g.Services ?? []).length > 0 || g.Tasks.some((t) => (t.Services ?? []).length > 0));

/** Allocations whose ports are read (one request each): a job's first ones not stopped. */
const MAX_PORT_READS = 50;

type GroupSummary = Record<'Queued' | 'Starting' | 'Running' | 'Complete' | 'Failed' | 'Lost', number>;

const REFRESH_MS = 3000;
const STATES = ['Queued', 'Starting', 'Running', 'Complete', 'Failed', 'Lost'] as const;

export function Job() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const ns = params.get('namespace') ?? 'default';
  const base = `/v1/job/${encodeURIComponent(id!)}`;
  const q = `?${nsQuery(ns)}`;
  const job = useQuery({ queryKey: ['sched', 'job', ns, id], queryFn: () => api<JobDetail>('sched', base + q), refetchInterval: REFRESH_MS });
  const summary = useQuery({
    queryKey: ['sched', 'job', ns, id, 'summary'],
    queryFn: () => api<{ Summary: Record<string, GroupSummary> }>('sched', `${base}/summary${q}`),
    refetchInterval: REFRESH_MS,
  });
  const allocs = useQuery({
    queryKey: ['sched', 'job', ns, id, 'allocs'],
    queryFn: () => api<AllocStub[]>('sched', `${base}/allocations${q}`),
    refetchInterval: REFRESH_MS,
  });
  // Stopped allocations hold no ports and no registrations any more.
  const live = (allocs.data ?? []).filter((a) => a.ClientStatus !== 'complete' && a.ClientStatus !== 'failed' && a.ClientStatus !== 'lost');
  const full = useQueries({
    queries: live.slice(0, MAX_PORT_READS).map((a) => ({
      queryKey: ['sched', 'allocation', a.ID],
      queryFn: () => api<Allocation>('sched', `/v1/allocation/${a.ID}?${nsQuery(a.Namespace)}`),
      refetchInterval: REFRESH_MS,
    })),
  });
  const portsOf = new Map(full.flatMap((r) => (r.data ? [[r.data.ID, r.data.AllocatedResources?.Shared.Ports ?? []] as const] : [])));
  const evals = useQuery({
    queryKey: ['sched', 'job', ns, id, 'evals'],
    queryFn: () => api<Evaluation[]>('sched', `${base}/evaluations${q}`),
    refetchInterval: REFRESH_MS,
  });
  const [error, setError] = useState<unknown>();
  const queries = useQueryClient();
  const navigate = useNavigate();

  const stop = async (purge: boolean) => {
    if (!confirm(purge ? `Stop and purge job ${id}? Its history is removed.` : `Stop job ${id}?`)) return;
    setError(undefined);
    try {
      await api('sched', `${base}${q}${purge ? '&purge=true' : ''}`, { method: 'DELETE' });
      await queries.invalidateQueries({ queryKey: ['sched'] });
      if (purge) navigate('/scheduler/jobs');
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <SchedNav />
      <div className="toolbar">
        <h1>Job {id}</h1>
        {job.data && (
          <div className="actions">
            {!job.data.Stop && (
              <button type="button" className="danger" onClick={() => void stop(false)}>
                Stop
              </button>
            )}
            <button type="button" className="danger" onClick={() => void stop(true)}>
              Stop + purge
            </button>
          </div>
        )}
      </div>
      {job.isPending && <Loading />}
      <ErrorNotice error={job.error ?? error} />
      {job.data && (
        <p>
          Namespace <code>{job.data.Namespace}</code>, type {job.data.Type}, priority {job.data.Priority}, submitted {nanoTime(job.data.SubmitTime)}. Status:{' '}
          <strong data-testid="job-status">{job.data.Status}</strong>
          {job.data.ParentID && (
            <>
              . Parent job <Link to={`/scheduler/jobs/${encodeURIComponent(job.data.ParentID)}?${nsQuery(ns)}`}>{job.data.ParentID}</Link>
            </>
          )}
        </p>
      )}
      {job.data?.ParameterizedJob && <JobDispatch id={id!} ns={ns} block={job.data.ParameterizedJob} refreshMs={REFRESH_MS} />}
      {job.data?.Type === 'service' && <JobDeployment id={id!} ns={ns} refreshMs={REFRESH_MS} />}
      <h2>Task groups</h2>
      <ErrorNotice error={summary.error} />
      {summary.data && (
        <DataTable
          testId="job-summary"
          caption="Allocations per task group and state"
          rows={Object.entries(summary.data.Summary)}
          rowKey={([g]) => g}
          columns={[['Group', ([g]) => g] as const, ...STATES.map((s) => [s, ([, c]: [string, GroupSummary]) => c[s] ?? 0] as const)]}
        />
      )}
      <h2>Allocations</h2>
      <ErrorNotice error={allocs.error} />
      {allocs.data?.length === 0 && <p>No allocations.</p>}
      {allocs.data && allocs.data.length > 0 && (
        <DataTable
          testId="job-allocations"
          caption="Allocations"
          rows={allocs.data}
          rowKey={(a) => a.ID}
          columns={[
            ['Allocation', (a) => <Link to={`/scheduler/allocations/${a.ID}?${nsQuery(a.Namespace)}`}>{a.ID.slice(0, 8)}</Link>],
            ['Name', (a) => a.Name],
            ['Node', (a) => a.NodeName],
            ['Desired', (a) => a.DesiredStatus],
            ['Client status', (a) => a.ClientStatus],
            [
              'Ports',
              (a) => (
                <span data-testid={`ports-${a.ID}`}>
                  {(portsOf.get(a.ID) ?? []).map((p) => `${p.Label} ${hostPort(p.HostIP, p.Value)}${p.To > 0 ? ` → ${p.To}` : ''}`).join(', ')}
                </span>
              ),
            ],
          ]}
        />
      )}
      {job.data && jobHasServices(job.data) && (
        <>
          <h2>Services</h2>
          <ServicesTable allocIds={live.map((a) => a.ID)} ns={ns} withAlloc />
        </>
      )}
      {job.data?.Periodic && <JobPeriodic job={{ ...job.data, Periodic: job.data.Periodic }} ns={ns} refreshMs={REFRESH_MS} />}
      <JobVersions id={id!} ns={ns} refreshMs={REFRESH_MS} />
      <h2>Evaluations</h2>
      <ErrorNotice error={evals.error} />
      {evals.data?.length === 0 && <p>No evaluations.</p>}
      {evals.data && evals.data.length > 0 && (
        <DataTable
          testId="job-evaluations"
          caption="Evaluations"
          rows={evals.data}
          rowKey={(e) => e.ID}
          columns={[
            ['Evaluation', (e) => <code>{e.ID.slice(0, 8)}</code>],
            ['Triggered by', (e) => e.TriggeredBy],
            ['Status', (e) => e.Status],
            ['Description', (e) => e.StatusDescription ?? ''],
          ]}
        />
      )}
    </>
  );
}
