/**
 * The ranking of affinities and spreads (jobs/preferences.ts; the reference's
 * `NodeAffinityIterator` and `SpreadIterator` in `scheduler/rank.go` and `spread.go`):
 *
 * - `node-affinity`: the weights of the job's, group's and tasks' affinities the node
 *   matches, over the sum of their absolute weights (in [-1, 1]); none when nothing matches.
 * - `allocation-spread`: per spread, the node's attribute value and how many of the group's
 *   allocations it would hold with this one. With targets, `(desired - used) / desired`
 *   weighted by the spread's share of the spreads' weights (`desired` = the target's
 *   percent of the group's count; a value without a target takes the implicit remainder,
 *   else -1); without targets, the reference's even-spread boost (a value below the least
 *   used gains, the most used loses, -1 when all are even). A node without the attribute: -1.
 *
 * @module
 */
import type { Job, Spread, TaskGroup } from '../jobs/types.js';
import type { NodeDoc } from '../state.js';
import { meetsConstraint, resolveTarget } from './constraints.js';

/** `node-affinity` of `n` for group `tg` of `job`; undefined when the group has no affinity or the node matches none. */
export function affinityScore(job: Job, tg: TaskGroup, n: NodeDoc): number | undefined {
  const all = [...(job.Affinities ?? []), ...(tg.Affinities ?? []), ...tg.Tasks.flatMap((t) => t.Affinities ?? [])];
  if (all.length === 0) return undefined;
  const sum = all.reduce((s, a) => s + Math.abs(a.Weight), 0);
  const total = all.reduce((s, a) => s + (meetsConstraint(a, n) ? a.Weight : 0), 0);
  return total === 0 ? undefined : total / sum;
}

/** How many of the group's allocations each value of an attribute holds (this plan's included). */
type UseMap = Map<string, number>;

/** The reference's `evenSpreadScoreBoost` of a node whose value holds `current`, given `use`. */
function evenBoost(use: UseMap, current: number): number {
  if (use.size === 0) return 0;
  const counts = [...use.values()];
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  if (current !== min) return min === 0 ? -1 : (min - current) / min;
  if (min === max) return -1;
  if (min === 0) return 1;
  return (max - current) / min;
}

/** The desired count of `value` under `s` for a group of `count` allocations; undefined when it gets none. */
function desired(s: Spread, value: string, count: number): number | undefined {
  const targets = s.SpreadTarget ?? [];
  const own = targets.find((t) => t.Value === value);
  if (own) return (own.Percent / 100) * count;
  const rest = 100 - targets.reduce((x, t) => x + t.Percent, 0);
  return rest > 0 ? (rest / 100) * count : undefined;
}

/**
 * `allocation-spread` of `n` for group `tg` of `job`; undefined when it has no spread or the
 * score is 0. `countOn(nodeId)`: the group's allocations on a node (this plan's included);
 * `nodes`: every node by ID (their attribute values).
 */
export function spreadScore(
  job: Job,
  tg: TaskGroup,
  n: NodeDoc,
  use: { readonly countOn: (nodeId: string) => number; readonly nodes: ReadonlyMap<string, NodeDoc>; readonly nodeIds: Iterable<string> },
): number | undefined {
  const spreads = [...(job.Spreads ?? []), ...(tg.Spreads ?? [])];
  if (spreads.length === 0) return undefined;
  const sumWeights = spreads.reduce((s, x) => s + x.Weight, 0);
  let total = 0;
  for (const s of spreads) {
    const value = resolveTarget(s.Attribute, n);
    if (value === undefined) {
      total -= 1;
      continue;
    }
    const counts: UseMap = new Map();
    for (const id of use.nodeIds) {
      const c = use.countOn(id);
      const other = use.nodes.get(id);
      const v = other && resolveTarget(s.Attribute, other);
      if (c > 0 && v !== undefined) counts.set(v, (counts.get(v) ?? 0) + c);
    }
    if (!s.SpreadTarget) {
      total += evenBoost(counts, counts.get(value) ?? 0);
      continue;
    }
    const want = desired(s, value, tg.Count);
    if (want === undefined || want === 0) {
      total -= 1;
      continue;
    }
    total += ((want - ((counts.get(value) ?? 0) + 1)) / want) * (s.Weight / sumWeights);
  }
  return total === 0 ? undefined : total;
}
