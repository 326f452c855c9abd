/**
 * The reconciler of `service` and `batch` jobs (reference/sched-workloads.md "Evaluations and
 * placement"; the reference's `scheduler/reconcile.go`, simplified): per task group, the
 * job's allocations are sorted into
 * - lost: live on a node that is `down`, `disconnected` or gone → `ClientStatus: lost`,
 *   stopped, replaced;
 * - migrating: `DesiredTransition.Migrate` (a drain, `alloc stop`) → stopped, replaced;
 * - failed with `DesiredStatus: run` → replaced now when the reschedule policy allows and its
 *   delay has passed (`PreviousAllocation`/`NextAllocation`, a `RescheduleTracker` event), a
 *   follow-up evaluation at the delay's end when it has not, kept otherwise;
 * - finished: a batch allocation that completed stays and counts; a service one does not;
 * - from an older job version: updated in place when its group is unchanged but for
 *   `Count` (and `Update`), else stopped and replaced; for a group with an update strategy
 *   that replacement is the deployment's (deploy-reconcile.ts: `MaxParallel` at a time,
 *   canaries first);
 * - the rest, untainted.
 * Then the group's `Count` is met: the highest indices stop, missing ones are placed with
 * the lowest free indices. A stopped or missing job, or a group no longer in it, stops all.
 *
 * @module
 */
import { allocTerminal, clientTerminal } from '../alloc.js';
import { allocIndex } from '../csi/claims.js';
import { newEvaluation, type Evaluation, type Job, type ReschedulePolicy, type TaskGroup } from '../jobs/types.js';
import type { NodeDoc } from '../state.js';
import type { StoredDeployment } from '../deployments/doc.js';
import { Rollout, stoppedJobWrites } from './deploy-reconcile.js';
import { ALLOC_TEXT, noUpdates, type AllocUpdate, type DesiredUpdates, type ExistingAlloc, type Placement, type Reconciled } from './model.js';

/** What reconciling needs besides the job and its allocations. */
export interface ReconcileInput {
  readonly evaluation: Evaluation;
  readonly nodes: ReadonlyMap<string, NodeDoc>;
  /** Unix ns. */
  readonly nowNs: number;
  /** Makes a UUID (follow-up evaluation and deployment IDs). */
  readonly newId: () => string;
  /** The job's deployments (every status). */
  readonly deployments: readonly StoredDeployment[];
}

/** Is live allocation `a` on a node that is gone, `down` or `disconnected`? */
export function onLostNode(a: ExistingAlloc, nodes: ReadonlyMap<string, NodeDoc>): boolean {
  const n = nodes.get(a.NodeID);
  return !n || n.Status === 'down' || n.Status === 'disconnected';
}

/** The update that marks `a` lost. */
export const lostUpdate = (a: ExistingAlloc): AllocUpdate => ({
  id: a.ID,
  nodeId: a.NodeID,
  set: { DesiredStatus: 'stop', DesiredDescription: ALLOC_TEXT.lost, ClientStatus: 'lost', ClientDescription: ALLOC_TEXT.lost },
});

/** The update that stops `a` with `why`. */
export const stopUpdate = (a: ExistingAlloc, why: string, extra: AllocUpdate['set'] = {}): AllocUpdate => ({
  id: a.ID,
  nodeId: a.NodeID,
  set: { DesiredStatus: 'stop', DesiredDescription: why, ...extra },
});

/** Does `a` run an older version of `job` whose group `tg` differs in more than `Count` and `Update` (a strategy changes how, not what, runs)? */
export function destructiveChange(a: ExistingAlloc, tg: TaskGroup): boolean {
  const old = a.Job?.TaskGroups.find((g) => g.Name === tg.Name);
  if (!old) return true;
  return JSON.stringify({ ...old, Count: 0, Update: undefined }) !== JSON.stringify({ ...tg, Count: 0, Update: undefined });
}

/** Does `a` run another version of `job`? */
export const outdated = (a: ExistingAlloc, job: Job): boolean => a.Job !== undefined && a.Job.JobModifyIndex !== job.JobModifyIndex;

/** What the reschedule decision reads of a failed allocation. */
type FailedAlloc = Pick<ExistingAlloc, 'TaskStates' | 'ModifyTime' | 'RescheduleTracker'>;

/** When allocation `a` failed, in Unix ns: its tasks' latest `FinishedAt`, else its `ModifyTime`. */
function failedAt(a: FailedAlloc): number {
  let latest = 0;
  for (const s of Object.values(a.TaskStates ?? {})) if (s.FinishedAt) latest = Math.max(latest, Date.parse(s.FinishedAt) * 1e6);
  return latest || a.ModifyTime;
}

/**
 * The reschedule decision for failed allocation `a` under `policy` (the reference's
 * `RescheduleEligible` and `NextDelay`): undefined when no attempt is left, else the time
 * (Unix ns) it may be replaced and the delay used.
 */
function nextReschedule(a: FailedAlloc, policy: ReschedulePolicy | null): { at: number; delay: number } | undefined {
  if (!policy || (!policy.Unlimited && policy.Attempts <= 0)) return undefined;
  const failed = failedAt(a);
  const events = a.RescheduleTracker?.Events ?? [];
  if (!policy.Unlimited && events.filter((e) => failed - e.RescheduleTime < policy.Interval).length >= policy.Attempts) return undefined;
  let delay = policy.Delay;
  if (policy.DelayFunction === 'exponential') delay = policy.Delay * 2 ** events.length;
  else if (policy.DelayFunction === 'fibonacci') {
    let [x, y] = [policy.Delay, policy.Delay];
    for (let i = 1; i < events.length; i++) [x, y] = [y, x + y];
    delay = events.length === 0 ? policy.Delay : y;
  }
  if (policy.MaxDelay > 0) delay = Math.min(delay, policy.MaxDelay);
  return { at: failed + delay, delay };
}

/**
 * May failed allocation `a` be rescheduled under its group's `policy` (the reference's
 * `Allocation.RescheduleEligible`: attempts left in the interval, or `Unlimited`)? The
 * client-status report writes an `alloc-failure` evaluation only then.
 */
export const rescheduleEligible = (a: FailedAlloc, policy: ReschedulePolicy | null): boolean => nextReschedule(a, policy) !== undefined;

/** One second in ns: a reschedule due within it runs now (the reference's `rescheduleWindowSize`). */
const RESCHEDULE_WINDOW_NS = 1e9;

/** Reconciles a `service` or `batch` job (see the module doc); `job` undefined: deregistered and purged. */
export function reconcileGeneric(job: Job | undefined, allocs: readonly ExistingAlloc[], input: ReconcileInput): Reconciled {
  const rollout = job && !job.Stop ? new Rollout(job, { newId: input.newId, nowNs: input.nowNs, deployments: input.deployments }) : undefined;
  const out: Reconciled = { updates: [], placements: [], annotations: {}, followups: [] };
  const byGroup = new Map<string, ExistingAlloc[]>();
  for (const a of allocs) {
    if (!byGroup.has(a.TaskGroup)) byGroup.set(a.TaskGroup, []);
    byGroup.get(a.TaskGroup)!.push(a);
  }
  const groups = job && !job.Stop ? job.TaskGroups : [];
  for (const tg of groups) reconcileGroup({ job: job!, tg, allocs: byGroup.get(tg.Name) ?? [], rollout: rollout! }, input, out);
  // Groups no longer in the job (or a stopped or missing job): stop what still runs.
  for (const [name, list] of byGroup) {
    if (groups.some((g) => g.Name === name)) continue;
    const counts = (out.annotations[name] = noUpdates());
    for (const a of list) {
      if (allocTerminal(a)) continue;
      out.updates.push(onLostNode(a, input.nodes) ? lostUpdate(a) : stopUpdate(a, ALLOC_TEXT.notNeeded));
      counts.Stop++;
    }
  }
  return { ...out, deployments: rollout ? rollout.writes() : stoppedJobWrites(input.deployments) };
}

/** Reconciles task group `tg` of `job` against its existing `allocs`, adding to `out`. */
function reconcileGroup(
  { job, tg, allocs, rollout }: { job: Job; tg: TaskGroup; allocs: readonly ExistingAlloc[]; rollout: Rollout },
  input: ReconcileInput,
  out: Reconciled,
): void {
  const batch = job.Type === 'batch';
  const counts: DesiredUpdates = (out.annotations[tg.Name] = noUpdates());
  const group = rollout.group(tg);
  /** Old allocations a deployment replaces at its pace (the rest of this function replaces them at once). */
  const destructive: { index: number; alloc: ExistingAlloc }[] = [];
  /** Unpromoted canaries of the group's deployment: beside the others, outside `Count`. */
  const canaries: ExistingAlloc[] = [];
  /** Allocations that hold a slot: [index, allocation]. */
  const kept: { index: number; alloc: ExistingAlloc; counted?: 'Ignore' | 'InPlaceUpdate' }[] = [];
  /** Replacements to place: [index, placement]. */
  const replacing: { index: number; placement: Placement; kind: 'Place' | 'Migrate' | 'DestructiveUpdate' }[] = [];
  for (const a of allocs) {
    const index = allocIndex(a.Name);
    if (a.DesiredStatus === 'stop' || a.DesiredStatus === 'evict') {
      // Stopped by the servers: only a batch allocation that had finished keeps its slot.
      if (batch && a.ClientStatus === 'complete') kept.push({ index, alloc: a });
      continue;
    }
    if (a.ClientStatus === 'complete') {
      if (batch) kept.push({ index, alloc: a });
      continue;
    }
    if (a.ClientStatus === 'lost') continue;
    if (a.ClientStatus === 'failed') {
      if (a.NextAllocation) continue;
      const next = nextReschedule(a, tg.ReschedulePolicy);
      const now = input.nowNs + RESCHEDULE_WINDOW_NS >= (next?.at ?? 0) || a.FollowupEvalID === input.evaluation.ID;
      if (next && now) {
        replacing.push({ index, placement: { tg, name: a.Name, previous: a, reschedule: true }, kind: 'Place' });
        continue;
      }
      kept.push({ index, alloc: a });
      if (next && !a.FollowupEvalID) {
        const followup = newEvaluation(
          input.newId(),
          job,
          { triggeredBy: 'alloc-failure', nowNs: input.nowNs },
          { WaitUntil: next.at, PreviousEval: input.evaluation.ID },
        );
        out.followups.push(followup);
        out.updates.push({ id: a.ID, nodeId: a.NodeID, set: { FollowupEvalID: followup.ID } });
      }
      continue;
    }
    if (onLostNode(a, input.nodes)) {
      out.updates.push(lostUpdate(a));
      counts.Stop++;
      replacing.push({ index, placement: { tg, name: a.Name, previous: a }, kind: 'Place' });
      continue;
    }
    if (a.DesiredTransition?.Migrate) {
      out.updates.push(stopUpdate(a, ALLOC_TEXT.migrating));
      replacing.push({ index, placement: { tg, name: a.Name, previous: a }, kind: 'Migrate' });
      continue;
    }
    if (clientTerminal(a)) continue;
    if (group?.isCanary(a)) {
      if (group.keepsCanary(a)) canaries.push(a);
      else {
        // The canaries of a failed or cancelled deployment stop (the reference's `handleGroupCanaries`).
        out.updates.push(stopUpdate(a, ALLOC_TEXT.notNeeded));
        counts.Stop++;
      }
      continue;
    }
    if (outdated(a, job)) {
      if (destructiveChange(a, tg)) {
        if (group) {
          destructive.push({ index, alloc: a });
          continue;
        }
        out.updates.push(stopUpdate(a, ALLOC_TEXT.updating));
        replacing.push({ index, placement: { tg, name: a.Name, previous: a }, kind: 'DestructiveUpdate' });
        continue;
      }
      out.updates.push({ id: a.ID, nodeId: a.NodeID, set: { Job: job, ...group?.inPlace(a) } });
      counts.InPlaceUpdate++;
      kept.push({ index, alloc: a, counted: 'InPlaceUpdate' });
      continue;
    }
    kept.push({ index, alloc: a, counted: 'Ignore' });
    counts.Ignore++;
  }
  if (group) {
    // The deployment's pace: canaries first, then MaxParallel replacements at a time.
    const rolled = group.roll({ destructive, canaries, keptIndices: new Set(kept.map((k) => k.index)), allocs });
    for (const r of rolled.replace) {
      out.updates.push(stopUpdate(r.alloc, ALLOC_TEXT.updating));
      replacing.push({ index: r.index, placement: { tg, name: r.alloc.Name, previous: r.alloc, deploymentId: group.placementId }, kind: 'DestructiveUpdate' });
    }
    for (const r of rolled.wait) {
      kept.push({ index: r.index, alloc: r.alloc, counted: 'Ignore' });
      counts.Ignore++;
    }
    for (const a of rolled.stop) {
      out.updates.push(stopUpdate(a, ALLOC_TEXT.notNeeded));
      counts.Stop++;
    }
    for (const name of rolled.canaryNames) {
      out.placements.push({ tg, name, deploymentId: group.placementId, canary: true });
      counts.Canary++;
    }
  }
  // Meet Count: drop the highest indices first (a dropped replacement is simply not placed).
  const slots = [
    ...kept.map((k) => ({ index: k.index, kept: k as (typeof kept)[number] | undefined, rep: undefined as (typeof replacing)[number] | undefined })),
    ...replacing.map((r) => ({ index: r.index, kept: undefined, rep: r })),
  ];
  slots.sort((x, y) => y.index - x.index);
  let excess = slots.length - tg.Count;
  for (const s of slots) {
    if (excess <= 0) break;
    excess--;
    s.index = -1;
    if (s.kept) {
      const { alloc: a, counted } = s.kept;
      if (!allocTerminal(a)) {
        // Stopped instead of kept or updated in place.
        const i = out.updates.findIndex((u) => u.id === a.ID);
        if (i >= 0) out.updates.splice(i, 1);
        out.updates.push(stopUpdate(a, ALLOC_TEXT.notNeeded));
        counts.Stop++;
        if (counted) counts[counted]--;
      }
    }
  }
  const live = slots.filter((s) => s.index >= 0);
  for (const s of live) {
    if (!s.rep) continue;
    // A replacement in a group with a deployment joins it.
    out.placements.push(group ? { ...s.rep.placement, deploymentId: group.placementId } : s.rep.placement);
    counts[s.rep.kind]++;
  }
  const used = new Set(live.map((s) => s.index));
  let next = 0;
  for (let missing = tg.Count - live.length; missing > 0; missing--) {
    while (used.has(next)) next++;
    used.add(next);
    out.placements.push({ tg, name: `${job.ID}.${tg.Name}[${next}]`, deploymentId: group?.placementId });
    counts.Place++;
  }
  group?.done(counts);
}
