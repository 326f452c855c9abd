/**
 * Node selection (reference/sched-workloads.md "Evaluations and placement"; the reference's
 * feasibility and rank iterators, without their candidate limit: every feasible node is
 * scored). For each placement: the nodes that pass feasible.ts, then those that still have
 * the group's CPU and memory and its ports (ports.ts; after the allocations already there and
 * this plan's own changes), that honour `distinct_hosts`, and where the group's CSI volumes can be claimed
 * (csi/alloc-claims.ts `claimRefusal`, the claim rules of a write). The best score wins: the
 * average of the bin-packing score and, when the node already runs allocations of the same
 * job and group, the job anti-affinity penalty `-(collisions + 1) / count`, and for a
 * rescheduled allocation -1 on the node it failed on. A placement that finds no node is
 * counted in its group's `FailedTGAllocs` metrics (later ones are `CoalescedFailures`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { claimRefusal, type Reader } from '../csi/alloc-claims.js';
import type { SchedDeps } from '../service-deps.js';
import type { AllocMetric, Evaluation, Job, NodeScoreMeta, TaskGroup } from '../jobs/types.js';
import type { NodeDoc } from '../state.js';
import { bump, constraintsOf, filterReason, newMetrics, readyNodes, type Metrics } from './feasible.js';
import { ALLOC_TEXT, type ExistingAlloc, type NewAlloc, type Placement, type Plan, type Reconciled } from './model.js';
import { allocPortKeys, assignPorts, type PortOffer } from './ports.js';
import { add, allocatedResources, allocUsage, binPackScore, exhausted, groupAsk, nodeCapacity, ZERO, type Amount } from './resources.js';
import { affinityScore, spreadScore } from './preferences.js';

/** What placing needs. */
export interface PlaceInput {
  readonly deps: SchedDeps;
  readonly read: Reader;
  readonly evaluation: Evaluation;
  readonly job: Job;
  readonly nodes: ReadonlyMap<string, NodeDoc>;
  /** Every live allocation, of every job (their nodes' usage). */
  readonly allocs: readonly ExistingAlloc[];
  /** Unix ns. */
  readonly nowNs: number;
}

/** Per node: CPU and memory held, the ports held (ports.ts keys), and how many allocations of this job (per group) are there. */
interface NodeLoad {
  used: Amount;
  readonly ports: Set<string>;
  readonly ofJob: Map<string, number>;
}

/** The plan of `reconciled` for `input.job`: nodes chosen for its placements (see the module doc). */
export function placeAll(reconciled: Reconciled, input: PlaceInput): Plan {
  const { job } = input;
  const loads = new Map<string, NodeLoad>();
  const load = (id: string): NodeLoad => {
    let l = loads.get(id);
    if (!l) loads.set(id, (l = { used: ZERO, ports: new Set(), ofJob: new Map() }));
    return l;
  };
  const stopping = new Set(reconciled.updates.filter((u) => u.set.DesiredStatus === 'stop' || u.set.ClientStatus === 'lost').map((u) => u.id));
  for (const a of input.allocs) {
    if (stopping.has(a.ID)) continue;
    const l = load(a.NodeID);
    l.used = add(l.used, allocUsage(a));
    for (const k of allocPortKeys(a)) l.ports.add(k);
    if (a.JobID === job.ID && a.Namespace === job.Namespace && a.DesiredStatus === 'run') l.ofJob.set(a.TaskGroup, (l.ofJob.get(a.TaskGroup) ?? 0) + 1);
  }
  const plan: Plan = {
    evaluation: input.evaluation,
    namespace: job.Namespace,
    jobId: job.ID,
    job,
    updates: [...reconciled.updates],
    places: [],
    annotations: reconciled.annotations,
    failed: {},
    queued: {},
    followups: reconciled.followups,
    deployments: reconciled.deployments,
  };
  const ready = readyNodes([...input.nodes.values()], job);
  const perGroup = new Map<string, { feasible: NodeDoc[]; metrics: Metrics }>();
  for (const p of reconciled.placements) {
    let g = perGroup.get(p.tg.Name);
    if (!g) {
      const metrics = newMetrics();
      readyNodes([...input.nodes.values()], job, metrics);
      const constraints = constraintsOf(job, p.tg);
      const feasible: NodeDoc[] = [];
      for (const n of ready) {
        const why = filterReason(n, p.tg, constraints);
        if (why === undefined) feasible.push(n);
        else {
          metrics.NodesFiltered++;
          metrics.ConstraintFiltered = bump(metrics.ConstraintFiltered, why);
        }
      }
      metrics.NodesEvaluated = ready.length;
      perGroup.set(p.tg.Name, (g = { feasible, metrics }));
    }
    const id = randomUUID();
    const alloc = newAlloc(id, p, input);
    // Each selection counts into its own copy of the group's filter metrics (the reference's per-select AllocMetric).
    const metrics: Metrics | undefined =
      plan.failed[p.tg.Name] === undefined
        ? {
            ...g.metrics,
            NodesAvailable: { ...g.metrics.NodesAvailable },
            ConstraintFiltered: g.metrics.ConstraintFiltered && { ...g.metrics.ConstraintFiltered },
          }
        : undefined;
    const chosen = choose(p, g.feasible, { alloc, loads, input, metrics });
    if (!chosen) {
      if (plan.failed[p.tg.Name]) (plan.failed[p.tg.Name] as Metrics).CoalescedFailures++;
      else plan.failed[p.tg.Name] = toAllocMetric(metrics!);
      plan.queued[p.tg.Name] = (plan.queued[p.tg.Name] ?? 0) + 1;
      continue;
    }
    const shared = { ...alloc.AllocatedResources.Shared, ...chosen.ports };
    const placed: NewAlloc = {
      ...alloc,
      NodeID: chosen.node.ID,
      NodeName: chosen.node.Name,
      AllocatedResources: { ...alloc.AllocatedResources, Shared: shared },
      Metrics: { ...toAllocMetric(metrics ?? { ...g.metrics }), ScoreMetaData: chosen.scoreMeta },
    };
    plan.places.push(placed);
    const l = load(chosen.node.ID);
    l.used = add(l.used, allocUsage(placed));
    for (const k of allocPortKeys(placed)) l.ports.add(k);
    l.ofJob.set(p.tg.Name, (l.ofJob.get(p.tg.Name) ?? 0) + 1);
    if (p.previous) {
      const i = plan.updates.findIndex((u) => u.id === p.previous!.ID);
      const link = { NextAllocation: id };
      if (i >= 0) plan.updates[i] = { ...plan.updates[i]!, set: { ...plan.updates[i]!.set, ...link } };
      else
        plan.updates.push({
          id: p.previous.ID,
          nodeId: p.previous.NodeID,
          set: { DesiredStatus: 'stop', DesiredDescription: ALLOC_TEXT.rescheduled, ...link },
        });
    }
  }
  return plan;
}

/** The reference's `AllocMetric` of a failed group. */
function toAllocMetric(m: Metrics): AllocMetric & Metrics {
  return { ...m, ClassFiltered: null, ClassExhausted: null, QuotaExhausted: null, Scores: null };
}

/** The allocation placement `p` makes, before its node is chosen. */
function newAlloc(id: string, p: Placement, input: PlaceInput): NewAlloc {
  const { job, nowNs } = input;
  const prev = p.previous;
  const csi = Object.fromEntries(Object.entries(p.tg.Volumes ?? {}).filter(([, v]) => v.Type === 'csi'));
  return {
    ID: id,
    Namespace: job.Namespace,
    EvalID: input.evaluation.ID,
    Name: p.name,
    NodeID: '',
    NodeName: '',
    JobID: job.ID,
    Job: job,
    TaskGroup: p.tg.Name,
    DesiredStatus: 'run',
    DesiredDescription: '',
    ClientStatus: 'pending',
    ClientDescription: '',
    Volumes: Object.keys(csi).length > 0 ? csi : null,
    DeploymentID: p.deploymentId ?? '',
    // A canary says so from its placement: the client registers its services' canary tags.
    ...(p.canary && { DeploymentStatus: { Healthy: null, Timestamp: '', Canary: true } }),
    TaskStates: null,
    AllocatedResources: allocatedResources(p.tg),
    PreviousAllocation: prev?.ID ?? '',
    NextAllocation: '',
    FollowupEvalID: '',
    RescheduleTracker:
      p.reschedule && prev
        ? { Events: [...(prev.RescheduleTracker?.Events ?? []), { RescheduleTime: nowNs, PrevAllocID: prev.ID, PrevNodeID: prev.NodeID, Delay: 0 }] }
        : (prev?.RescheduleTracker ?? null),
    AllocModifyIndex: 0,
    CreateTime: nowNs,
    ModifyTime: nowNs,
  };
}

/** How many nodes' scores an allocation's metrics keep (the reference's `MaxRetainedNodeScores`). */
const SCORE_META_NODES = 5;

/** Is `distinct_hosts` set on the job (any allocation of it counts) or on group `tg` (its own)? */
function distinctHosts(job: Job, tg: TaskGroup): 'job' | 'group' | undefined {
  if ((job.Constraints ?? []).some((c) => c.Operand === 'distinct_hosts')) return 'job';
  if ((tg.Constraints ?? []).some((c) => c.Operand === 'distinct_hosts')) return 'group';
  return undefined;
}

/**
 * The best node for placement `p` among `feasible` with the ports the allocation gets there
 * (none for a group without a network), or undefined (its reasons counted into `metrics` when given).
 */
function choose(
  p: Placement,
  feasible: readonly NodeDoc[],
  { alloc, loads, input, metrics }: { alloc: NewAlloc; loads: ReadonlyMap<string, NodeLoad>; input: PlaceInput; metrics: Metrics | undefined },
): { node: NodeDoc; ports: PortOffer | undefined; scoreMeta: NodeScoreMeta[] } | undefined {
  const ask = groupAsk(p.tg);
  const ranked: NodeScoreMeta[] = [];
  const distinct = distinctHosts(input.job, p.tg);
  let best: { node: NodeDoc; ports: PortOffer | undefined } | undefined;
  let bestScore = -Infinity;
  for (const n of feasible) {
    if (p.nodeId !== undefined && n.ID !== p.nodeId) continue;
    const l = loads.get(n.ID) ?? { used: ZERO, ports: new Set<string>(), ofJob: new Map<string, number>() };
    const sameGroup = l.ofJob.get(p.tg.Name) ?? 0;
    if (distinct && (distinct === 'group' ? sameGroup : [...l.ofJob.values()].reduce((s, x) => s + x, 0)) > 0) {
      if (metrics) {
        metrics.NodesFiltered++;
        metrics.ConstraintFiltered = bump(metrics.ConstraintFiltered, 'distinct_hosts');
      }
      continue;
    }
    const capacity = nodeCapacity(n);
    const after = add(l.used, ask);
    const dim = exhausted(after, capacity);
    if (dim) {
      if (metrics) {
        metrics.NodesExhausted++;
        metrics.DimensionExhausted = bump(metrics.DimensionExhausted, dim);
      }
      continue;
    }
    const ports = assignPorts(p.tg, n, l.ports);
    if (ports.exhausted) {
      if (metrics) {
        metrics.NodesExhausted++;
        metrics.DimensionExhausted = bump(metrics.DimensionExhausted, `network: ${ports.exhausted}`);
      }
      continue;
    }
    if (alloc.Volumes) {
      const why = claimRefusal(input.deps, { ...alloc, NodeID: n.ID }, input.read);
      if (why) {
        if (metrics) {
          metrics.NodesFiltered++;
          metrics.ConstraintFiltered = bump(metrics.ConstraintFiltered, why.message.replace(/^alloc "[^"]*" failed to claim /, ''));
        }
        continue;
      }
    }
    const scores: Record<string, number> = { binpack: binPackScore(after, capacity) };
    if (sameGroup > 0) scores['job-anti-affinity'] = -(sameGroup + 1) / Math.max(1, p.tg.Count);
    if (p.reschedule && p.previous?.NodeID === n.ID) scores['node-reschedule-penalty'] = -1;
    const affinity = affinityScore(input.job, p.tg, n);
    if (affinity !== undefined) scores['node-affinity'] = affinity;
    const spread = spreadScore(input.job, p.tg, n, {
      countOn: (id) => loads.get(id)?.ofJob.get(p.tg.Name) ?? 0,
      nodes: input.nodes,
      nodeIds: loads.keys(),
    });
    if (spread !== undefined) scores['allocation-spread'] = spread;
    const values = Object.values(scores);
    const score = values.reduce((s, x) => s + x, 0) / values.length;
    ranked.push({ NodeID: n.ID, Scores: scores, NormScore: score });
    if (score > bestScore) {
      bestScore = score;
      best = { node: n, ports: ports.offer };
    }
  }
  // The reference keeps the best five nodes' scores in the allocation's metrics.
  ranked.sort((x, y) => y.NormScore - x.NormScore);
  return best && { ...best, scoreMeta: ranked.slice(0, SCORE_META_NODES) };
}
