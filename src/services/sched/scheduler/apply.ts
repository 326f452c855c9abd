/**
 * The plan applier (reference/sched-workloads.md "Evaluations and placement"; the
 * reference's `nomad/plan_apply.go`): a plan computed from a view of the state that may have
 * aged is checked against the state at commit, inside the committing transaction, so two
 * evaluations placing at once never over-commit a node. A placement is refused when its
 * node is gone, no longer ready, eligible and undrained, or no longer has the CPU and memory,
 * or one of its ports is held there now (allocations committed meanwhile count: two plans
 * made at once never give one port twice); the rest of the plan commits. The caller runs
 * the evaluation again for what was refused.
 *
 * Every placement carries the default identities of its tasks, signed with the keyring's
 * active key before the write (keyring/alloc-identities.ts).
 *
 * Allocations without CSI volumes are written in one transaction labelled `PlanResult`,
 * with the job's status and the plan's deployment writes (deployments/plan-writes.ts); allocations that claim or release CSI volumes go one by one through
 * csi/alloc-claims.ts `writeAllocation` (the same label), which takes and releases the claims
 * and publishes to the controller, with the same node check inside its transaction.
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';
import { claimRequests } from '../csi/claims.js';
import { writeAllocation, type Reader } from '../csi/alloc-claims.js';
import { withDefaultIdentities } from '../keyring/alloc-identities.js';
import type { SchedDeps } from '../service-deps.js';
import { LABEL, T, type NodeDoc } from '../state.js';
import { nodeReady } from './feasible.js';
import { applyDeploymentWrites } from '../deployments/plan-writes.js';
import { refreshJobStatus } from './job-status.js';
import type { AllocUpdate, ExistingAlloc, NewAlloc, Plan } from './model.js';
import { allocPortKeys } from './ports.js';
import { add, allocUsage, exhausted, nodeCapacity, sub, ZERO, type Amount } from './resources.js';

/** What applying a plan did. */
export interface Applied {
  readonly placed: number;
  readonly refused: number;
  /** Index of the last write (0: nothing written). */
  readonly index: number;
}

/** What a node's live allocations hold: CPU and memory, and ports (ports.ts keys). */
interface Held {
  readonly amount: Amount;
  readonly ports: ReadonlySet<string>;
}

/** Why `node` cannot take `alloc` on top of what is `held` there, or undefined when it can (the reference's `evaluateNodePlan`). */
function nodeRefusal(node: NodeDoc | undefined, held: Held, alloc: NewAlloc): string | undefined {
  if (!node) return 'node does not exist';
  if (!nodeReady(node)) return 'node is not ready for placements';
  const dim = exhausted(add(held.amount, allocUsage(alloc)), nodeCapacity(node));
  if (dim) return `node exhausted on ${dim}`;
  const taken = allocPortKeys(alloc).find((k) => held.ports.has(k));
  return taken ? `collision when reserving port for alloc ${alloc.ID}: [port ${taken} already in use]` : undefined;
}

/** What the live allocations `read` shows hold on `nodeId`. */
function heldOn(read: Reader, nodeId: string): Held {
  const ports = new Set<string>();
  let amount = ZERO;
  for (const a of read.list<ExistingAlloc>(T.allocs)) {
    if (a.NodeID !== nodeId) continue;
    amount = add(amount, allocUsage(a));
    for (const k of allocPortKeys(a)) ports.add(k);
  }
  return { amount, ports };
}

const hasClaims = (a: { Namespace: string; Name: string; Volumes: Readonly<Record<string, unknown>> | null }) => claimRequests(a).length > 0;

/** Applies `plan` (see the module doc) at `nowNs` (Unix ns). Never throws for a refused placement; throws for a failed write. */
export async function applyPlan(deps: SchedDeps, plan: Plan, nowNs: number): Promise<Applied> {
  let placed = 0;
  let refused = 0;
  let index = 0;
  const state = deps.state;
  const viaClaims = (u: AllocUpdate) => {
    const a = state.get<ExistingAlloc>(T.allocs, u.id);
    return a !== undefined && hasClaims(a);
  };
  const batchUpdates = plan.updates.filter((u) => !viaClaims(u));
  // Each placement carries its tasks' default identities, signed before its write.
  const places = plan.places.map((a) => withDefaultIdentities(deps, a));
  const batchPlaces = places.filter((a) => !hasClaims(a));
  if (batchUpdates.length + batchPlaces.length > 0 || plan.job || plan.deployments) {
    const { result, index: at } = await state.txn((tx) => {
      // Usage per node from the state as it is now (every earlier write applied: this function
      // runs synchronously), then kept up to date with this transaction's own changes.
      const used = new Map<string, Amount>();
      const use = (node: string, delta: Amount) => used.set(node, add(used.get(node) ?? ZERO, delta));
      const ports = new Map<string, Set<string>>();
      const portsOf = (node: string) => ports.get(node) ?? ports.set(node, new Set()).get(node)!;
      if (batchPlaces.length > 0) {
        for (const a of state.list<ExistingAlloc>(T.allocs)) {
          use(a.NodeID, allocUsage(a));
          for (const k of allocPortKeys(a)) portsOf(a.NodeID).add(k);
        }
      }
      for (const u of batchUpdates) {
        const current = tx.get<ExistingAlloc>(T.allocs, u.id);
        if (!current) continue;
        // A client that finished meanwhile keeps its status; the servers' decision still applies.
        const set =
          current.ClientStatus !== 'pending' && current.ClientStatus !== 'running' && u.set.ClientStatus
            ? { ...u.set, ClientStatus: current.ClientStatus, ClientDescription: current.ClientDescription }
            : u.set;
        const next = tx.put<ExistingAlloc>(T.allocs, u.id, { ...current, ...set, ModifyTime: nowNs, AllocModifyIndex: tx.index });
        if (batchPlaces.length > 0) {
          use(current.NodeID, sub(allocUsage(next), allocUsage(current)));
          // An allocation this plan stops frees its ports for this plan's placements.
          const kept = new Set(allocPortKeys(next));
          for (const k of allocPortKeys(current)) if (!kept.has(k)) portsOf(current.NodeID).delete(k);
        }
      }
      const placedIds: string[] = [];
      for (const a of batchPlaces) {
        const why = nodeRefusal(tx.get<NodeDoc>(T.nodes, a.NodeID), { amount: used.get(a.NodeID) ?? ZERO, ports: portsOf(a.NodeID) }, a);
        if (why) continue;
        tx.put<NewAlloc>(T.allocs, a.ID, { ...a, AllocModifyIndex: tx.index });
        use(a.NodeID, allocUsage(a));
        for (const k of allocPortKeys(a)) portsOf(a.NodeID).add(k);
        placedIds.push(a.ID);
      }
      applyDeploymentWrites(tx, plan.deployments, nowNs);
      refreshJobStatus(tx, plan.namespace, plan.jobId);
      return placedIds.length;
    }, LABEL.planResult);
    placed += result;
    refused += batchPlaces.length - result;
    index = Math.max(index, at);
  }
  for (const u of plan.updates.filter(viaClaims)) {
    const w = await writeAllocation(deps, {
      id: u.id,
      label: LABEL.planResult,
      build: (current) => (current ? { ...current, ...u.set, ModifyTime: nowNs } : (missing(u.id) as never)),
    }).catch((err: unknown) => {
      deps.plugins.log.warn({ err, alloc: u.id }, 'scheduler: an allocation update was not applied');
      return undefined;
    });
    if (w) index = Math.max(index, w.index);
  }
  for (const a of places.filter(hasClaims)) {
    const w = await writeAllocation(deps, {
      id: a.ID,
      label: LABEL.planResult,
      build: (_current, read) => {
        const why = nodeRefusal(read.get<NodeDoc>(T.nodes, a.NodeID), heldOn(read, a.NodeID), a);
        if (why) throw new CairnError('conflict', why);
        return a;
      },
    }).catch((err: unknown) => {
      // A claim the write refused (a plugin's failed publish, a claim taken meanwhile): the
      // evaluation blocks without a FailedTGAllocs reason, so the log is where the reason shows.
      deps.plugins.log.warn({ err, alloc: a.ID, job: a.JobID }, 'scheduler: a placement was not applied');
      return undefined;
    });
    if (w) {
      placed++;
      index = Math.max(index, w.index);
    } else refused++;
  }
  return { placed, refused, index };
}

const missing = (id: string): never => {
  throw new CairnError('not_found', `alloc ${id} not found`);
};
