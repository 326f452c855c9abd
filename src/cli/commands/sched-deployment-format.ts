/**
 * Table output of `cairn sched deployment …` in the reference CLI's style (`nomad deployment
 * list` and `deployment status`: its `formatDeployments`, `formatDeployment` and
 * `formatDeploymentGroups`): 8-character IDs unless verbose; the group table gets the
 * Auto Revert, Promoted/Canaries and Progress Deadline columns only when a group needs them.
 *
 * @module
 */
import type { SchedDeployment, SchedDeploymentGroup } from '../../sdk/index.js';
import { kv, list, shortId } from './sched-format.js';

/** The deployment list (reference `deployment list`), or `No deployments found`. */
export function deploymentList(deploys: readonly SchedDeployment[], verbose: boolean): string {
  if (deploys.length === 0) return 'No deployments found';
  return list(
    ['ID', 'Job ID', 'Job Version', 'Status', 'Description'],
    deploys.map((d) => [shortId(d.ID, verbose), d.JobID, String(d.JobVersion), d.Status, d.StatusDescription]),
  );
}

/** An RFC 3339 time without fractions (the reference's `formatTime`), `N/A` for Go's zero time. */
const progressBy = (t: string) => (!t || t.startsWith('0001-') ? 'N/A' : t.replace(/\.\d+(?=Z|[+-]\d\d:\d\d$)/, ''));

/** The per-group table (reference `formatDeploymentGroups`), groups by name. */
function groupTable(groups: Readonly<Record<string, SchedDeploymentGroup>>): string {
  const entries = Object.entries(groups).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const autoRevert = entries.some(([, g]) => g.AutoRevert);
  const canaries = entries.some(([, g]) => g.DesiredCanaries > 0);
  const deadline = entries.some(([, g]) => g.ProgressDeadline !== 0);
  const header = [
    'Task Group',
    ...(autoRevert ? ['Auto Revert'] : []),
    ...(canaries ? ['Promoted'] : []),
    'Desired',
    ...(canaries ? ['Canaries'] : []),
    'Placed',
    'Healthy',
    'Unhealthy',
    ...(deadline ? ['Progress Deadline'] : []),
  ];
  const rows = entries.map(([name, g]) => [
    name,
    ...(autoRevert ? [String(g.AutoRevert)] : []),
    ...(canaries ? [g.DesiredCanaries > 0 ? String(g.Promoted) : 'N/A'] : []),
    String(g.DesiredTotal),
    ...(canaries ? [String(g.DesiredCanaries)] : []),
    String(g.PlacedAllocs),
    String(g.HealthyAllocs),
    String(g.UnhealthyAllocs),
    ...(deadline ? [progressBy(g.RequireProgressBy)] : []),
  ]);
  return list(header, rows);
}

/** One deployment (reference `deployment status <id>`): its fields, then `Deployed` and the group table when it has groups. */
export function deploymentBlock(d: SchedDeployment, verbose: boolean): string {
  const head = kv([
    ['ID', shortId(d.ID, verbose)],
    ['Job ID', d.JobID],
    ['Job Version', d.JobVersion],
    ['Status', d.Status],
    ['Description', d.StatusDescription],
  ]);
  const groups = d.TaskGroups ?? {};
  return Object.keys(groups).length === 0 ? head : `${head}\n\nDeployed\n${groupTable(groups)}`;
}
