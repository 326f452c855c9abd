/**
 * A service job's latest deployment (`GET /v1/job/:id/deployment`, null for none; contract 29,
 * the reference's `Deployment`): its status and description, and per task group the desired,
 * placed, healthy and unhealthy allocations, the canaries placed of those desired and whether
 * they were promoted (when some group asks for canaries), with a progress bar that also says
 * its figures in words. Promote (`POST /v1/deployment/promote/:id` {All}), Fail
 * (`/fail/:id`), Pause and Resume (`/pause/:id` {Pause}) act on it — Promote and Fail after a
 * confirmation, as they replace or roll back allocations; the panel is read again every
 * `refreshMs` as the job's others.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { nsQuery } from './jobTypes';

/** One task group's `DeploymentState`; `RequireProgressBy` is RFC 3339 (Go's zero time when none). */
interface GroupState {
  AutoRevert: boolean;
  Promoted: boolean;
  PlacedCanaries: string[] | null;
  DesiredCanaries: number;
  DesiredTotal: number;
  PlacedAllocs: number;
  HealthyAllocs: number;
  UnhealthyAllocs: number;
  RequireProgressBy: string;
}

interface Deployment {
  ID: string;
  JobVersion: number;
  Status: string;
  StatusDescription: string;
  TaskGroups: Record<string, GroupState> | null;
}

/** The reference's `DeploymentUpdateResponse`: `RevertedJobVersion` set when failing rolled the job back. */
interface UpdateReply {
  EvalID: string;
  RevertedJobVersion?: number | null;
}

const ACTIVE = ['running', 'paused'];

/** A status's colour class; the status is always written out too. */
const STATUS_CLASS: Record<string, string> = { successful: 'status-passing', running: 'status-warning', paused: 'status-warning', failed: 'status-critical' };

/** An RFC 3339 time as a local date and time; '—' for none (Go's zero time). */
const deadline = (t: string) => (!t || t.startsWith('0001-') ? '—' : new Date(t).toLocaleString());

/** The group rows; `canaries`: the canary columns are shown (some group asks for canaries). */
function GroupRows({ groups, canaries }: { groups: Array<[string, GroupState]>; canaries: boolean }) {
  return (
    <>
      {groups.map(([name, g]) => (
        <tr key={name} data-testid={`deployment-group-${name}`}>
          <th scope="row">{name}</th>
          <td>{g.DesiredTotal}</td>
          <td>{g.PlacedAllocs}</td>
          <td>{g.HealthyAllocs}</td>
          <td>{g.UnhealthyAllocs}</td>
          {canaries && <td>{g.DesiredCanaries > 0 ? `${(g.PlacedCanaries ?? []).length} of ${g.DesiredCanaries}` : '—'}</td>}
          {canaries && <td>{g.DesiredCanaries > 0 ? (g.Promoted ? 'yes' : 'no') : 'N/A'}</td>}
          <td className="progress">
            <progress value={g.HealthyAllocs} max={Math.max(g.DesiredTotal, 1)} aria-label={`Group ${name}: healthy allocations of those desired`} />{' '}
            {g.HealthyAllocs} of {g.DesiredTotal} healthy
            {g.UnhealthyAllocs > 0 ? `, ${g.UnhealthyAllocs} unhealthy` : ''}
          </td>
          <td>{deadline(g.RequireProgressBy)}</td>
        </tr>
      ))}
    </>
  );
}

export function JobDeployment({ id, ns, refreshMs }: { id: string; ns: string; refreshMs: number }) {
  const q = useQuery({
    queryKey: ['sched', 'job', ns, id, 'deployment'],
    queryFn: () => api<Deployment | null>('sched', `/v1/job/${encodeURIComponent(id)}/deployment?${nsQuery(ns)}`),
    refetchInterval: refreshMs,
  });
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const queries = useQueryClient();
  const d = q.data;
  const short = d?.ID.slice(0, 8) ?? '';
  const groups = Object.entries(d?.TaskGroups ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const active = !!d && ACTIVE.includes(d.Status);
  // As the reference's status table: the canary columns only when some group asks for canaries.
  const canaries = groups.some(([, g]) => g.DesiredCanaries > 0);
  const canPromote = d?.Status === 'running' && groups.some(([, g]) => g.DesiredCanaries > 0 && !g.Promoted);

  /** Sends `action` about the deployment (after `question`, when given) and says `done` with the reply. */
  const act = async (action: 'promote' | 'fail' | 'pause', body: Record<string, unknown>, done: (r: UpdateReply) => string, question?: string) => {
    if (!d || (question && !confirm(question))) return;
    setError(undefined);
    setNotice(undefined);
    try {
      const r = await api<UpdateReply>('sched', `/v1/deployment/${action}/${encodeURIComponent(d.ID)}?${nsQuery(ns)}`, {
        method: 'POST',
        body: { DeploymentID: d.ID, ...body },
      });
      setNotice(done(r));
      await queries.invalidateQueries({ queryKey: ['sched', 'job', ns, id] });
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="job-deployment">
      <h2 id="job-deployment">Latest deployment</h2>
      <ErrorNotice error={q.error ?? error} />
      {notice && <p role="status">{notice}</p>}
      {d === null && <p className="muted">No deployment.</p>}
      {d && (
        <>
          <dl className="facts" data-testid="job-deployment">
            <div>
              <dt>Deployment</dt>
              <dd>
                <code>{short}</code> of job version {d.JobVersion}
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <strong className={`status ${STATUS_CLASS[d.Status] ?? ''}`} data-testid="deployment-status">
                  {d.Status}
                </strong>
              </dd>
            </div>
            <div>
              <dt>Description</dt>
              <dd data-testid="deployment-description">{d.StatusDescription}</dd>
            </div>
          </dl>
          {active && (
            <div className="toolbar">
              <div className="actions">
                {canPromote && (
                  <button
                    type="button"
                    className="primary"
                    onClick={() =>
                      void act(
                        'promote',
                        { All: true },
                        () => `Deployment ${short} promoted.`,
                        `Promote the canaries of deployment ${short}? The job's other allocations are then replaced by the new version.`,
                      )
                    }
                  >
                    Promote canaries
                  </button>
                )}
                {d.Status === 'running' && (
                  <button type="button" onClick={() => void act('pause', { Pause: true }, () => `Deployment ${short} paused.`)}>
                    Pause deployment
                  </button>
                )}
                {d.Status === 'paused' && (
                  <button type="button" onClick={() => void act('pause', { Pause: false }, () => `Deployment ${short} resumed.`)}>
                    Resume deployment
                  </button>
                )}
                <button
                  type="button"
                  className="danger"
                  onClick={() =>
                    void act(
                      'fail',
                      {},
                      (r) =>
                        `Deployment ${short} failed.${typeof r.RevertedJobVersion === 'number' ? ` Auto-reverted to job version ${r.RevertedJobVersion}.` : ''}`,
                      `Mark deployment ${short} as failed? No more allocations are placed for it, and a group with auto_revert goes back to the job's last stable version.`,
                    )
                  }
                >
                  Fail deployment
                </button>
              </div>
            </div>
          )}
          {groups.length > 0 && (
            <table data-testid="deployment-groups">
              <caption className="sr-only">Allocations of deployment {short} per task group</caption>
              <thead>
                <tr>
                  <th scope="col">Task group</th>
                  <th scope="col">Desired</th>
                  <th scope="col">Placed</th>
                  <th scope="col">Healthy</th>
                  <th scope="col">Unhealthy</th>
                  {canaries && <th scope="col">Canaries placed</th>}
                  {canaries && <th scope="col">Promoted</th>}
                  <th scope="col">Progress</th>
                  <th scope="col">Progress deadline</th>
                </tr>
              </thead>
              <tbody>
                <GroupRows groups={groups} canaries={canaries} />
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
