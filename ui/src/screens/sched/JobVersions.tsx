/**
 * A job's kept versions (`GET /v1/job/:id/versions?diffs=true`): each with its stability,
 * submit time and what changed from the version before it (JobDiffView.tsx), and a Revert
 * button for every version but the current one (`POST /v1/job/:id/revert`, after a
 * confirmation) — the reference's `job history -p` and `job revert` on one screen.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { JobDiffView, type JobDiff } from './JobDiffView';
import { nanoTime, nsQuery } from './jobTypes';

interface Version {
  Version: number;
  Stable: boolean;
  SubmitTime: number;
}

export function JobVersions({ id, ns, refreshMs }: { id: string; ns: string; refreshMs: number }) {
  const base = `/v1/job/${encodeURIComponent(id)}`;
  const q = useQuery({
    queryKey: ['sched', 'job', ns, id, 'versions'],
    queryFn: () => api<{ Versions: Version[]; Diffs: JobDiff[] | null }>('sched', `${base}/versions?diffs=true&${nsQuery(ns)}`),
    refetchInterval: refreshMs,
  });
  const [open, setOpen] = useState<number>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const queries = useQueryClient();
  const current = q.data?.Versions[0]?.Version;

  const revert = async (v: number) => {
    if (!confirm(`Register version ${v} of job ${id} again as its next version?`)) return;
    setError(undefined);
    setNotice(undefined);
    try {
      await api('sched', `${base}/revert?${nsQuery(ns)}`, { method: 'POST', body: { JobID: id, JobVersion: v, EnforcePriorVersion: current } });
      setNotice(`Reverted to version ${v}.`);
      await queries.invalidateQueries({ queryKey: ['sched', 'job', ns, id] });
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="job-versions">
      <h2 id="job-versions">Versions</h2>
      <ErrorNotice error={q.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      {q.data && (
        <table data-testid="job-versions-table">
          <caption className="sr-only">Versions of job {id}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Stable</th>
              <th scope="col">Submitted</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {q.data.Versions.map((v, i) => {
              const diff = q.data.Diffs?.[i];
              return (
                <tr key={v.Version}>
                  <td>{v.Version}</td>
                  <td>{v.Stable ? 'yes' : 'no'}</td>
                  <td>{nanoTime(v.SubmitTime)}</td>
                  <td>
                    {diff && (
                      <button type="button" aria-expanded={open === v.Version} onClick={() => setOpen(open === v.Version ? undefined : v.Version)}>
                        {open === v.Version ? 'Hide changes' : `Changes in version ${v.Version}`}
                      </button>
                    )}
                    {v.Version !== current && (
                      <button type="button" onClick={() => void revert(v.Version)}>
                        Revert to version {v.Version}
                      </button>
                    )}
                    {open === v.Version && diff && <JobDiffView diff={diff} />}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
