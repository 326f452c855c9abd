/**
 * A periodic job's schedule (its `Periodic` block), its next launch (the scheduler's plan of
 * the job as stored: `NextPeriodicLaunch`; shown only to tokens that may plan it), a Launch
 * now button (`POST /v1/job/:id/periodic/force`) and its children, each linking to its screen.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { nsQuery, type JobStub } from './jobTypes';

export interface PeriodicBlock {
  Enabled: boolean;
  Spec: string;
  Specs: string[] | null;
  ProhibitOverlap: boolean;
  TimeZone: string;
}

/** Go's zero time: no launch planned. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export function JobPeriodic({ job, ns, refreshMs }: { job: { ID: string; Periodic: PeriodicBlock } & Record<string, unknown>; ns: string; refreshMs: number }) {
  const base = `/v1/job/${encodeURIComponent(job.ID)}`;
  const next = useQuery({
    queryKey: ['sched', 'job', ns, job.ID, 'next-launch'],
    queryFn: async () =>
      (await api<{ NextPeriodicLaunch: string }>('sched', `${base}/plan?${nsQuery(ns)}`, { method: 'POST', body: { Job: job } })).NextPeriodicLaunch,
    retry: false,
  });
  const children = useQuery({
    queryKey: ['sched', 'job', ns, job.ID, 'children'],
    queryFn: () => api<JobStub[]>('sched', `/v1/jobs?prefix=${encodeURIComponent(`${job.ID}/periodic-`)}&${nsQuery(ns)}`),
    refetchInterval: refreshMs,
  });
  const [error, setError] = useState<unknown>();
  const queries = useQueryClient();
  const force = async () => {
    setError(undefined);
    try {
      await api('sched', `${base}/periodic/force?${nsQuery(ns)}`, { method: 'POST' });
      await queries.invalidateQueries({ queryKey: ['sched', 'job', ns, job.ID, 'children'] });
    } catch (err) {
      setError(err);
    }
  };
  const p = job.Periodic;
  const specs = [...(p.Specs ?? []), ...(p.Spec ? [p.Spec] : [])];
  return (
    <section aria-labelledby="job-periodic">
      <h2 id="job-periodic">Periodic launches</h2>
      <dl className="facts" data-testid="job-periodic">
        <div>
          <dt>Schedule</dt>
          <dd>
            <code>{specs.join(', ')}</code> ({p.TimeZone || 'UTC'}){p.Enabled ? '' : ', disabled'}
            {p.ProhibitOverlap ? ', never overlapping' : ''}
          </dd>
        </div>
        <div>
          <dt>Next launch</dt>
          <dd data-testid="next-launch">
            {next.data && next.data !== ZERO_TIME ? new Date(next.data).toLocaleString() : next.error ? 'unknown (this token may not plan the job)' : '—'}
          </dd>
        </div>
      </dl>
      <div className="toolbar">
        <button type="button" onClick={() => void force()}>
          Launch now
        </button>
      </div>
      <ErrorNotice error={error ?? children.error} />
      {children.data && children.data.length > 0 ? (
        <ul className="plain" aria-label={`Launches of ${job.ID}`}>
          {children.data.map((c) => (
            <li key={c.ID}>
              <Link to={`/scheduler/jobs/${encodeURIComponent(c.ID)}?${nsQuery(ns)}`}>{c.ID}</Link> — {c.Status}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No launches yet.</p>
      )}
    </section>
  );
}
