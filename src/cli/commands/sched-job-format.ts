/**
 * Table output of `cairn sched job …` and `cairn sched eval …` in the reference CLI's style
 * (`nomad job status`, `job history`, `eval list`, `eval status`): `Key = value` blocks,
 * aligned columns, 8-character IDs unless verbose, times as RFC 3339 or `<n><unit> ago`.
 *
 * @module
 */
import type { SchedAllocStub, SchedEvaluation, SchedJob, SchedJobDiff, SchedJobStub, SchedJobSummary } from '../../sdk/index.js';
import { formatJobDiff } from './sched-job-diff.js';
import { kv, list, shortId } from './sched-format.js';

/** Unix ns as RFC 3339 without fractions (the reference's `formatTime`). */
function nsTime(ns: number | undefined): string {
  if (!ns) return '<none>';
  return new Date(Math.floor(ns / 1e6)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** How long before `nowMs` Unix ns `ns` was, as the reference's `prettyTimeDiff` (`12s ago`, `3m ago`, `2h5m ago`, `4d ago`). */
function ago(ns: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - ns / 1e6) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ''} ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? `${Math.floor((s % 3600) / 60)}m` : ''} ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

/** The job list (reference `job status`); with `namespaces`, a Namespace column. */
export function jobList(jobs: readonly SchedJobStub[], namespaces: boolean): string {
  if (jobs.length === 0) return 'No running jobs';
  const header = namespaces ? ['ID', 'Namespace', 'Type', 'Priority', 'Status', 'Submit Date'] : ['ID', 'Type', 'Priority', 'Status', 'Submit Date'];
  return list(
    header,
    jobs.map((j) => {
      const row = [j.ID, j.Type, String(j.Priority), j.Status, nsTime(j.SubmitTime)];
      if (namespaces) row.splice(1, 0, j.Namespace);
      return row;
    }),
  );
}

/**
 * One job (reference `job status ID`): its fields, the summary per task group, its
 * allocations; `nowMs` for ages; `services` Cairn's "Services" section last (sched-services.ts;
 * undefined for a job without service blocks).
 */
export function jobBlock(
  job: SchedJob,
  summary: SchedJobSummary,
  allocs: readonly SchedAllocStub[],
  { verbose, nowMs, services }: { verbose: boolean; nowMs: number; services?: string },
): string {
  const head = kv([
    ['ID', job.ID],
    ['Name', job.Name ?? job.ID],
    ['Submit Date', nsTime(job.SubmitTime)],
    ['Type', job.Type ?? ''],
    ['Priority', job.Priority ?? 0],
    ['Datacenters', (job.Datacenters ?? []).join(',')],
    ['Namespace', job.Namespace ?? ''],
    ['Node Pool', String(job.NodePool ?? '')],
    ['Status', job.Status ?? ''],
    ['Periodic', false],
    ['Parameterized', false],
  ]);
  const groups = Object.entries(summary.Summary);
  const sum = list(
    ['Task Group', 'Queued', 'Starting', 'Running', 'Failed', 'Complete', 'Lost', 'Unknown'],
    groups.map(([g, s]) => [g, s.Queued, s.Starting, s.Running, s.Failed, s.Complete, s.Lost, s.Unknown].map(String)),
  );
  const allocText =
    allocs.length === 0
      ? 'No allocations placed'
      : list(
          ['ID', 'Node ID', 'Task Group', 'Version', 'Desired', 'Status', 'Created', 'Modified'],
          allocs.map((a) => [
            shortId(a.ID, verbose),
            shortId(a.NodeID, verbose),
            a.TaskGroup,
            String(a.JobVersion ?? 0),
            a.DesiredStatus,
            a.ClientStatus,
            ago(a.CreateTime, nowMs),
            ago(a.ModifyTime, nowMs),
          ]),
        );
  return `${head}\n\nSummary\n${sum}\n\nAllocations\n${allocText}${services === undefined ? '' : `\n\nServices\n${services}`}`;
}

/** The versions of a job, newest first (reference `job history`); with `diffs` (`-p`), each version's diff from the one before it under `Diff`. */
export function jobHistory(versions: readonly SchedJob[], diffs?: readonly (SchedJobDiff | undefined)[]): string {
  return versions
    .map((v, i) => {
      const diff = diffs?.[i];
      const rows: [string, string | number | boolean][] = [
        ['Version', v.Version ?? 0],
        ['Stable', Boolean(v.Stable)],
        ['Submit Date', nsTime(v.SubmitTime)],
      ];
      if (diff) rows.push(['Diff', '']);
      return kv(rows) + (diff ? `\n${formatJobDiff(diff, false)}` : '');
    })
    .join('\n\n');
}

/** The evaluation list (reference `eval list`). */
export function evalList(evals: readonly SchedEvaluation[], verbose: boolean): string {
  if (evals.length === 0) return 'No evals found';
  return list(
    ['ID', 'Priority', 'Triggered By', 'Job ID', 'Namespace', 'Node ID', 'Status', 'Placement Failures'],
    evals.map((e) => [
      shortId(e.ID, verbose),
      String(e.Priority),
      e.TriggeredBy,
      e.JobID,
      e.Namespace,
      e.NodeID ? shortId(e.NodeID, verbose) : '<none>',
      e.Status,
      String(Object.keys(e.FailedTGAllocs ?? {}).length > 0),
    ]),
  );
}

/** One evaluation (reference `eval status ID`), with the task groups it could not place. */
export function evalBlock(e: SchedEvaluation, verbose: boolean): string {
  const failed = Object.keys(e.FailedTGAllocs ?? {});
  const rows: [string, string | number | boolean][] = [
    ['ID', shortId(e.ID, verbose)],
    ['Create Time', nsTime(e.CreateTime)],
    ['Modify Time', nsTime(e.ModifyTime)],
    ['Status', e.Status],
    ['Status Description', e.StatusDescription || e.Status],
    ['Type', e.Type],
    ['TriggeredBy', e.TriggeredBy],
    ['Job ID', e.JobID],
    ['Namespace', e.Namespace],
  ];
  if (e.NodeID) rows.push(['Node ID', shortId(e.NodeID, verbose)]);
  rows.push(['Priority', e.Priority], ['Placement Failures', failed.length > 0]);
  let out = kv(rows);
  if (failed.length > 0) {
    out += `\n\n==> Failed Placements\n${failed.map((g) => `Task Group "${g}" (failed to place allocations)`).join('\n')}`;
    if (e.BlockedEval) out += `\n\nEvaluation "${shortId(e.BlockedEval, verbose)}" waiting for additional capacity to place remainder`;
  }
  return out;
}
