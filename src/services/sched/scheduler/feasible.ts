/**
 * Which nodes may run a task group, before resources (reference/sched-workloads.md
 * "Evaluations and placement"; the reference's feasibility checkers): the job's datacenters
 * (`*` globs) and node pool, node `Status: ready` and `SchedulingEligibility: eligible`, no
 * drain, the job's, group's and tasks' constraints, every task's driver detected and
 * healthy, and the host network of each of the group's ports. What it filters is counted the way the reference's `AllocMetric` shows it.
 *
 * @module
 */
import { globMatch } from '../acl/glob.js';
import type { Constraint, Job, TaskGroup } from '../jobs/types.js';
import type { NodeDoc } from '../state.js';
import { constraintText, meetsConstraint } from './constraints.js';
import { hostNetworkReason } from './ports.js';

/** The placement metrics of one task group, as the reference's `AllocMetric` (mutable while placing). */
export interface Metrics {
  NodesEvaluated: number;
  NodesFiltered: number;
  NodesInPool: number;
  NodesAvailable: Record<string, number>;
  ConstraintFiltered: Record<string, number> | null;
  NodesExhausted: number;
  DimensionExhausted: Record<string, number> | null;
  CoalescedFailures: number;
}

/** Fresh metrics. */
export function newMetrics(): Metrics {
  return {
    NodesEvaluated: 0,
    NodesFiltered: 0,
    NodesInPool: 0,
    NodesAvailable: {},
    ConstraintFiltered: null,
    NodesExhausted: 0,
    DimensionExhausted: null,
    CoalescedFailures: 0,
  };
}

/** Counts one more under `key` of a count map. */
export function bump(m: Record<string, number> | null, key: string): Record<string, number> {
  const out = m ?? {};
  out[key] = (out[key] ?? 0) + 1;
  return out;
}

/** Is node `n` in one of `datacenters` (globs, `*` any)? */
function inDatacenters(n: NodeDoc, datacenters: readonly string[]): boolean {
  return datacenters.some((d) => d === '*' || d === n.Datacenter || (d.includes('*') && globMatch(d, n.Datacenter)));
}

/** Is node `n` in the job's node pool? (`all` takes every pool, as the reference.) */
function inPool(n: NodeDoc, job: Job): boolean {
  const pool = job.NodePool || 'default';
  return pool === 'all' || (n.NodePool || 'default') === pool;
}

/** Does node `n` take new allocations? `ready`, eligible and not draining (the reference's `Node.Ready`). */
export function nodeReady(n: NodeDoc): boolean {
  return n.Status === 'ready' && n.SchedulingEligibility === 'eligible' && !n.DrainStrategy;
}

/**
 * Nodes of the job's datacenters and pool that are ready (the reference's `readyNodesInDCsAndPool`),
 * with `NodesInPool` and `NodesAvailable` (per datacenter) counted into `m`.
 */
export function readyNodes(nodes: readonly NodeDoc[], job: Job, m?: Metrics): NodeDoc[] {
  const out: NodeDoc[] = [];
  for (const n of nodes) {
    if (!inPool(n, job)) continue;
    if (m) m.NodesInPool++;
    if (!nodeReady(n) || !inDatacenters(n, job.Datacenters)) continue;
    if (m) m.NodesAvailable[n.Datacenter] = (m.NodesAvailable[n.Datacenter] ?? 0) + 1;
    out.push(n);
  }
  return out;
}

/** Is driver `name` usable on node `n`? `Drivers[name]` detected and healthy; without driver info, the attribute `driver.<name>` true (the reference's fallback). */
function hasDriver(n: NodeDoc, name: string): boolean {
  const info = n.Drivers && Object.hasOwn(n.Drivers, name) ? (n.Drivers[name] as { Detected?: unknown; Healthy?: unknown } | null) : undefined;
  if (info) return info.Detected === true && info.Healthy === true;
  const attr = n.Attributes && Object.hasOwn(n.Attributes, `driver.${name}`) ? n.Attributes[`driver.${name}`] : undefined;
  return attr === '1' || attr === 'true';
}

/** The constraints that apply to `tg`: the job's, the group's, then each task's. */
export function constraintsOf(job: Job, tg: TaskGroup): Constraint[] {
  return [...(job.Constraints ?? []), ...(tg.Constraints ?? []), ...tg.Tasks.flatMap((t) => t.Constraints ?? [])];
}

/**
 * Why node `n` cannot run `tg` regardless of resources: a `ConstraintFiltered` key (the
 * constraint's text, `missing drivers`, or a port's host network the node lacks:
 * ports.ts), or undefined when it can.
 */
export function filterReason(n: NodeDoc, tg: TaskGroup, constraints: readonly Constraint[]): string | undefined {
  for (const t of tg.Tasks) if (!hasDriver(n, t.Driver)) return 'missing drivers';
  for (const c of constraints) if (!meetsConstraint(c, n)) return constraintText(c);
  return hostNetworkReason(n, tg);
}
