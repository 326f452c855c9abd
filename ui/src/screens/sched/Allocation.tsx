/**
 * An allocation (`GET /v1/allocation/:id`, refreshed every 3 s): its ports, its CPU and
 * memory over time while it runs (AllocStats.tsx), its services'
 * instances in the discovery service with their checks (workloadServices.tsx), each task's state with its
 * templates and workload identities (taskTemplates.tsx) and its events, and the tail of the task's stdout or stderr (`GET /v1/client/fs/logs/:alloc`,
 * plain, from the end), fetched again on Refresh.
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, ApiError, request } from '../../api/client';
import { DataTable } from '../../components/DataTable';
import { ErrorNotice, Loading } from '../../components/Notice';
import { allocHasServices, nanoTime, nsQuery, type Allocation as Alloc } from './jobTypes';
import { SchedNav } from './SchedNav';
import { TaskTemplates } from './taskTemplates';
import { PortsTable, ServicesTable } from './workloadServices';

/** The CPU and memory charts, with uPlot, in their own chunk (loaded on first use). */
const AllocStats = lazy(() => import('./AllocStats'));

/** How much of the log's end is shown, in bytes. */
const TAIL_BYTES = 64 * 1024;

export function Allocation() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const ns = params.get('namespace') ?? 'default';
  const q = useQuery({
    queryKey: ['sched', 'allocation', id],
    queryFn: () => api<Alloc>('sched', `/v1/allocation/${encodeURIComponent(id!)}?${nsQuery(ns)}`),
    refetchInterval: 3000,
  });
  const a = q.data;
  return (
    <>
      <SchedNav />
      <h1>Allocation {id?.slice(0, 8)}</h1>
      {q.isPending && <Loading />}
      <ErrorNotice error={q.error} />
      {a && (
        <>
          <p>
            {a.Name} of job <Link to={`/scheduler/jobs/${encodeURIComponent(a.JobID)}?${nsQuery(a.Namespace)}`}>{a.JobID}</Link> on node {a.NodeName}. Desired{' '}
            {a.DesiredStatus}, client status <strong data-testid="alloc-status">{a.ClientStatus}</strong>.
          </p>
          {(a.AllocatedResources?.Shared.Ports ?? []).length > 0 && (
            <section aria-labelledby="ports-h">
              <h2 id="ports-h">Ports</h2>
              <PortsTable ports={a.AllocatedResources!.Shared.Ports!} testId="alloc-ports" />
            </section>
          )}
          {a.ClientStatus === 'running' && (
            <section aria-labelledby="usage-h">
              <h2 id="usage-h">Resource use</h2>
              <Suspense fallback={<Loading />}>
                <AllocStats id={a.ID} ns={a.Namespace} />
              </Suspense>
            </section>
          )}
          {allocHasServices(a) && (
            <section aria-labelledby="services-h">
              <h2 id="services-h">Services</h2>
              <ServicesTable allocIds={[a.ID]} ns={a.Namespace} withAlloc={false} />
            </section>
          )}
          {Object.entries(a.TaskStates ?? {}).map(([task, s]) => (
            <section key={task} aria-labelledby={`task-${task}`}>
              <h2 id={`task-${task}`}>
                Task {task}: <span data-testid={`task-state-${task}`}>{s.State}</span>
                {s.Failed ? ' (failed)' : ''}
              </h2>
              <TaskTemplates task={task} templates={s.Templates} identities={s.Identities} />
              <DataTable
                testId={`task-events-${task}`}
                caption={`Events of task ${task}`}
                rows={(s.Events ?? []).map((e, i) => ({ ...e, i }))}
                rowKey={(e) => String(e.i)}
                columns={[
                  ['Time', (e) => nanoTime(e.Time)],
                  ['Type', (e) => e.Type],
                  ['Message', (e) => e.DisplayMessage || e.Message || ''],
                ]}
              />
              <TaskLog alloc={a.ID} ns={a.Namespace} task={task} />
            </section>
          ))}
        </>
      )}
    </>
  );
}

/**
 * The log's bytes as text: fetched as is, since {@link api} would read a log that happens
 * to be JSON (`42`) as a value. @throws ApiError for a non-2xx reply, with its body's text.
 */
async function fetchLog(path: string): Promise<string> {
  const { url, init } = request('sched', path);
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, [text.trim() || `HTTP ${res.status}`]);
  return text;
}

/** The tail of one task's stdout or stderr, fetched on open, on switching stream, and on Refresh. */
function TaskLog({ alloc, ns, task }: { alloc: string; ns: string; task: string }) {
  const [type, setType] = useState<'stdout' | 'stderr'>('stdout');
  const q = useQuery({
    queryKey: ['sched', 'logs', alloc, task, type],
    queryFn: () =>
      fetchLog(`/v1/client/fs/logs/${alloc}?task=${encodeURIComponent(task)}&type=${type}&plain=true&origin=end&offset=${TAIL_BYTES}&${nsQuery(ns)}`),
  });
  return (
    <>
      <div className="toolbar">
        <h3>Log of {task}</h3>
        <div className="segmented" role="group" aria-label={`Log stream of ${task}`}>
          {(['stdout', 'stderr'] as const).map((t) => (
            <button key={t} type="button" aria-pressed={type === t} onClick={() => setType(t)}>
              {t}
            </button>
          ))}
        </div>
        <button type="button" onClick={() => void q.refetch()} disabled={q.isFetching}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={q.error} />
      {q.data !== undefined && (
        <pre className="log" data-testid={`log-${task}`} tabIndex={0} aria-label={`${type} of ${task}`}>
          {q.data || '(empty)'}
        </pre>
      )}
    </>
  );
}
