/**
 * The reconciler of `system` jobs (reference/sched-workloads.md "Evaluations and placement";
 * the reference's `scheduler/scheduler_system.go`, simplified): one allocation of each task
 * group, named `<job>.<group>[0]`, on every ready, eligible node of the job's datacenters and
 * pool that passes its constraints and drivers. Allocations on nodes that are gone or `down`
 * are lost; on a draining node (or marked to migrate) they stop; on a node that merely became
 * ineligible they stay, as the reference. A stopped job stops everything.
 *
 * @module
 */
import { allocTerminal, clientTerminal } from '../alloc.js';
import type { Job } from '../jobs/types.js';
import type { DrainStrategy } from '../node.js';
import type { NodeDoc } from '../state.js';
import { constraintsOf, filterReason, readyNodes } from './feasible.js';
import { ALLOC_TEXT, noUpdates, type ExistingAlloc, type Reconciled } from './model.js';
import { destructiveChange, lostUpdate, onLostNode, outdated, stopUpdate } from './reconcile.js';

/** Reconciles a `system` job; `job` undefined: deregistered and purged. */
export function reconcileSystem(job: Job | undefined, allocs: readonly ExistingAlloc[], nodes: ReadonlyMap<string, NodeDoc>): Reconciled {
  const out: Reconciled = { updates: [], placements: [], annotations: {}, followups: [] };
  const live = allocs.filter((a) => !allocTerminal(a));
  const groups = job && !job.Stop ? job.TaskGroups : [];
  for (const a of live) {
    if (groups.some((g) => g.Name === a.TaskGroup)) continue;
    const counts = (out.annotations[a.TaskGroup] ??= noUpdates());
    out.updates.push(onLostNode(a, nodes) ? lostUpdate(a) : stopUpdate(a, ALLOC_TEXT.notNeeded));
    counts.Stop++;
  }
  if (!job || groups.length === 0) return out;
  const ready = readyNodes([...nodes.values()], job);
  for (const tg of groups) {
    const counts = (out.annotations[tg.Name] = noUpdates());
    const constraints = constraintsOf(job, tg);
    const feasible = new Set(ready.filter((n) => filterReason(n, tg, constraints) === undefined).map((n) => n.ID));
    const covered = new Set<string>();
    for (const a of live.filter((x) => x.TaskGroup === tg.Name)) {
      if (onLostNode(a, nodes)) {
        out.updates.push(lostUpdate(a));
        counts.Stop++;
        continue;
      }
      const node = nodes.get(a.NodeID)!;
      const drain = node.DrainStrategy as DrainStrategy | null;
      if (a.DesiredTransition?.Migrate || (drain && !drain.IgnoreSystemJobs)) {
        out.updates.push(stopUpdate(a, ALLOC_TEXT.nodeTainted));
        counts.Migrate++;
        continue;
      }
      if (covered.has(a.NodeID)) {
        out.updates.push(stopUpdate(a, ALLOC_TEXT.notNeeded));
        counts.Stop++;
        continue;
      }
      covered.add(a.NodeID);
      if (clientTerminal(a) || !outdated(a, job)) {
        counts.Ignore++;
      } else if (destructiveChange(a, tg)) {
        out.updates.push(stopUpdate(a, ALLOC_TEXT.updating));
        if (feasible.has(a.NodeID)) out.placements.push({ tg, name: a.Name, previous: a, nodeId: a.NodeID });
        counts.DestructiveUpdate++;
      } else {
        out.updates.push({ id: a.ID, nodeId: a.NodeID, set: { Job: job } });
        counts.InPlaceUpdate++;
      }
    }
    for (const id of feasible) {
      if (covered.has(id)) continue;
      out.placements.push({ tg, name: `${job.ID}.${tg.Name}[0]`, nodeId: id });
      counts.Place++;
    }
  }
  return out;
}
