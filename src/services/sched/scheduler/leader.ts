/**
 * The scheduler on the leader (reference/sched-workloads.md "Evaluations and placement",
 * "Client agent"): the evaluation broker and its workers, the heartbeat timers, and the
 * leader's reactions to the state's change feed. Only the server that leads runs it (the
 * agent starts it with the other leader-only work and stops it on stepping down), so on
 * shared PostgreSQL storage one server schedules; followers forward every write to it.
 *
 * Reactions, each its own write after the batch that caused it (in batch order):
 * - an evaluation stored `pending` → the broker;
 * - a node that registers or reports its status → its heartbeat timer starts again;
 * - a node that goes `down`/`disconnected` or is purged → a `node-update` evaluation for each
 *   job with live allocations there (the scheduler marks them lost and replaces them);
 * - a node that becomes ready and eligible, or whose resources change → a `node-update`
 *   evaluation for each `system` job, and every `blocked` evaluation `pending` again;
 * - a drain that starts → its live allocations get `DesiredTransition.Migrate` (label
 *   `AllocationUpdateDesiredStatus`; system ones unless `IgnoreSystemJobs`) and a `node-drain`
 *   evaluation per job; once the last of them stops the drain completes (`Node drain
 *   complete`, `LastDrain.Status: complete`, the node stays ineligible, as the reference; a
 *   drain of a node with nothing to move stays until cleared, where the reference completes it);
 * - an allocation that becomes terminal (resources free) → every `blocked` evaluation
 *   `pending` again; an allocation written by anything but a plan → its job's status;
 * - a periodic job stored or changed → its launch timer (periodic.ts);
 * - an allocation of a deployment or a deployment changed → the deployment watcher's check
 *   (deployments/watcher.ts), and its progress deadlines.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../kernel/log/logger.js';
import type { ChangeBatch, Txn } from '../../../kernel/store/index.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { allocTerminal } from '../alloc.js';
import type { SchedDeps } from '../service-deps.js';
import { jobKey, newEvaluation, type Evaluation, type Job } from '../jobs/types.js';
import { appendEvents, NODE_EVENT, nodeEvent, type DrainStrategy, type StoredNode } from '../node.js';
import { LABEL, T } from '../state.js';
import { EvalBroker } from './broker.js';
import { nodeReady } from './feasible.js';
import type { Heartbeats } from './heartbeat.js';
import { refreshJobStatus } from './job-status.js';
import type { ExistingAlloc } from './model.js';
import { runEvaluation } from './worker.js';
import { PeriodicDispatcher } from './periodic.js';
import { DeploymentWatcher } from '../deployments/watcher.js';

/** Options of {@link Scheduler}. */
export interface SchedulerOptions {
  /** The handlers' dependencies (read when the scheduler starts: the agent builds them after it). */
  readonly deps: () => SchedDeps;
  readonly log: Logger;
  /**
   * Evaluations run at once; default {@link DEFAULT_WORKERS}. `0` turns the scheduler off
   * (no broker, no reactions, no heartbeat timers): evaluations stay as their writer left
   * them. Only tests of what the jobs API itself writes use it.
   */
  readonly workers?: number;
  readonly heartbeats: Heartbeats;
}

/** Scheduler workers by default (the reference runs one per core; this host has few). */
const DEFAULT_WORKERS = 2;

/** See the module doc. */
export class Scheduler {
  private broker: EvalBroker | undefined;
  private periodic: PeriodicDispatcher | undefined;
  private deployments: DeploymentWatcher | undefined;
  private unsubscribe: (() => void) | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: SchedulerOptions) {}

  /** Starts leading: pending evaluations are queued, heartbeat timers set, blocked evaluations tried again (nothing with `workers: 0`). */
  start(): void {
    if (this.broker || this.o.workers === 0) return;
    const deps = this.o.deps();
    const broker = new EvalBroker({ workers: this.o.workers ?? DEFAULT_WORKERS, now: deps.now, run: (id) => runEvaluation(deps, id, this.o.log) });
    this.broker = broker;
    broker.start();
    this.o.heartbeats.start();
    this.unsubscribe = deps.state.subscribe((b) => this.onBatch(deps, b));
    for (const e of deps.state.list<Evaluation>(T.evals)) broker.offer(e);
    this.periodic = new PeriodicDispatcher(deps, this.o.log);
    this.periodic.start();
    this.deployments = new DeploymentWatcher(deps, this.o.log);
    this.deployments.start();
    // Capacity may have appeared while no server led.
    this.react(deps, (tx) => unblockAll(tx, deps.state, deps.now() * 1e6));
  }

  /** Stops leading: no new evaluation starts; waits for the running ones and pending reactions. */
  async stop(): Promise<void> {
    const broker = this.broker;
    if (!broker) return;
    this.broker = undefined;
    this.unsubscribe?.();
    this.o.heartbeats.stop();
    await this.periodic?.stop();
    this.periodic = undefined;
    await this.deployments?.stop();
    this.deployments = undefined;
    await broker.stop();
    await this.chain;
  }

  /** Evaluations waiting to run (ready or delayed). */
  get queued(): number {
    return this.broker?.depth ?? 0;
  }

  /** Queues `fn` as one write labelled `label` after the reactions queued before. */
  private react(deps: SchedDeps, fn: (tx: Txn) => void, label: string = LABEL.evalUpdate): void {
    this.chain = this.chain
      .then(() => (this.broker ? deps.state.txn(fn, label) : undefined))
      .then(
        () => undefined,
        (err: unknown) => this.o.log.warn({ err }, 'scheduler: a reaction to a state change failed'),
      );
  }

  private onBatch(deps: SchedDeps, batch: ChangeBatch): void {
    const broker = this.broker;
    if (!broker) return;
    const nowNs = () => deps.now() * 1e6;
    let unblock = false;
    const statusOf = new Set<string>();
    const drainCheck = new Set<string>();
    for (const c of batch.changes) {
      if (c.table === T.evals) {
        if (c.doc) broker.offer(c.doc as unknown as Evaluation);
      } else if (c.table === T.nodes) {
        const prev = c.previous as unknown as StoredNode | undefined;
        const node = c.doc as unknown as StoredNode | undefined;
        if (!node) {
          this.o.heartbeats.forget(c.id);
          this.react(deps, (tx) => nodeJobEvals(tx, c.id, 'node-update', nowNs()));
          continue;
        }
        if ((batch.label === LABEL.nodeRegister || batch.label === LABEL.nodeEvent) && node.Status !== 'down') this.o.heartbeats.touch(node.ID);
        const gone = (s: string | undefined) => s === 'down' || s === 'disconnected';
        if (gone(node.Status) && !gone(prev?.Status)) this.react(deps, (tx) => nodeJobEvals(tx, node.ID, 'node-update', nowNs()));
        const resized = prev !== undefined && JSON.stringify(prev.NodeResources) !== JSON.stringify(node.NodeResources);
        if (nodeReady(node) && (!prev || !nodeReady(prev) || resized)) {
          unblock = true;
          this.react(deps, (tx) => systemJobEvals(tx, node, nowNs()));
        }
        if (node.DrainStrategy && !prev?.DrainStrategy) {
          this.react(deps, (tx) => startDrain(tx, node.ID, nowNs()), LABEL.allocDesired);
        }
      } else if (c.table === T.allocs) {
        const prev = c.previous as unknown as ExistingAlloc | undefined;
        const a = (c.doc ?? c.previous) as unknown as ExistingAlloc;
        const nowTerminal = !c.doc || allocTerminal(a);
        if (nowTerminal && prev && !allocTerminal(prev)) {
          unblock = true;
          drainCheck.add(a.NodeID);
        }
        if (batch.label !== LABEL.planResult) statusOf.add(jobKey(a.Namespace, a.JobID));
      }
    }
    if (unblock) this.react(deps, (tx) => unblockAll(tx, deps.state, nowNs()));
    if (statusOf.size > 0) {
      this.react(
        deps,
        (tx) => {
          for (const k of statusOf) {
            const slash = k.indexOf('/');
            refreshJobStatus(tx, k.slice(0, slash), k.slice(slash + 1));
          }
        },
        LABEL.allocUpdate,
      );
    }
    for (const id of drainCheck) this.react(deps, (tx) => completeDrain(tx, id, deps.now()), LABEL.nodeDrain);
  }
}

/** Every `blocked` evaluation `pending` again (their run blocks them again when still nothing fits). */
function unblockAll(tx: Txn, state: Pick<Txn, 'list'>, nowNs: number): void {
  // The state's cached order (nothing else was written in this transaction before).
  for (const e of state.list<Evaluation>(T.evals))
    if (e.Status === 'blocked') tx.put<Evaluation>(T.evals, e.ID, { ...e, Status: 'pending', ModifyTime: nowNs });
}

/** The job an evaluation is for: the stored one, else the snapshot on the allocation. */
function jobFor(tx: Txn, a: ExistingAlloc & { Job: Job }): Job {
  return tx.get<Job>(T.jobs, jobKey(a.Namespace, a.JobID)) ?? a.Job;
}

/** Live allocations the scheduler placed on node `nodeId` (an allocation without its job, stored by an older Cairn through the removed `PUT /v1/allocation`, is left alone). */
const liveOn = (tx: Txn, nodeId: string): (ExistingAlloc & { Job: Job })[] =>
  tx.list<ExistingAlloc>(T.allocs).filter((a) => a.NodeID === nodeId && a.Job !== undefined && !allocTerminal(a)) as (ExistingAlloc & { Job: Job })[];

/** One `trigger` evaluation for each job with live allocations on node `nodeId`. */
function nodeJobEvals(tx: Txn, nodeId: string, trigger: string, nowNs: number): void {
  const seen = new Set<string>();
  const node = tx.get<StoredNode>(T.nodes, nodeId);
  for (const a of liveOn(tx, nodeId)) {
    const k = jobKey(a.Namespace, a.JobID);
    if (seen.has(k)) continue;
    seen.add(k);
    const id = randomUUID();
    tx.put<Evaluation>(
      T.evals,
      id,
      newEvaluation(id, jobFor(tx, a), { triggeredBy: trigger, nowNs }, { NodeID: nodeId, NodeModifyIndex: node?.ModifyIndex ?? 0 }),
    );
  }
}

/** A `node-update` evaluation for node `node` of each running `system` job. */
function systemJobEvals(tx: Txn, node: StoredNode, nowNs: number): void {
  for (const job of tx.list<Job>(T.jobs)) {
    if (job.Type !== 'system' || job.Stop) continue;
    const id = randomUUID();
    tx.put<Evaluation>(
      T.evals,
      id,
      newEvaluation(
        id,
        job,
        { triggeredBy: 'node-update', nowNs },
        { NodeID: node.ID, NodeModifyIndex: tx.get<StoredNode>(T.nodes, node.ID)?.ModifyIndex ?? 0 },
      ),
    );
  }
}

/** Does the drain of `node` move allocation `a`? (System allocations stay with `IgnoreSystemJobs`.) */
function drains(node: StoredNode, a: ExistingAlloc): boolean {
  const ignoreSystem = (node.DrainStrategy as DrainStrategy | null)?.IgnoreSystemJobs === true;
  return !(ignoreSystem && a.Job?.Type === 'system');
}

/** Marks the live allocations a drain of `nodeId` moves to migrate, with a `node-drain` evaluation per job. */
function startDrain(tx: Txn, nodeId: string, nowNs: number): void {
  const node = tx.get<StoredNode>(T.nodes, nodeId);
  if (!node?.DrainStrategy) return;
  const seen = new Set<string>();
  for (const a of liveOn(tx, nodeId)) {
    if (!drains(node, a) || a.DesiredTransition?.Migrate) continue;
    tx.put<ExistingAlloc>(T.allocs, a.ID, {
      ...a,
      DesiredTransition: { Migrate: true, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null },
      ModifyTime: nowNs,
    });
    const k = jobKey(a.Namespace, a.JobID);
    if (seen.has(k)) continue;
    seen.add(k);
    const id = randomUUID();
    tx.put<Evaluation>(
      T.evals,
      id,
      newEvaluation(id, jobFor(tx, a), { triggeredBy: 'node-drain', nowNs }, { NodeID: nodeId, NodeModifyIndex: node.ModifyIndex }),
    );
  }
}

/** Completes the drain of `nodeId` when nothing it moves is live there any more. `nowMs` epoch ms. */
function completeDrain(tx: Txn, nodeId: string, nowMs: number): void {
  const node = tx.get<StoredNode>(T.nodes, nodeId);
  if (!node?.DrainStrategy) return;
  if (liveOn(tx, nodeId).some((a) => drains(node, a))) return;
  const stamp = formatTime(new Date(nowMs));
  tx.put<StoredNode>(T.nodes, nodeId, {
    ...node,
    DrainStrategy: null,
    LastDrain: node.LastDrain ? { ...node.LastDrain, UpdatedAt: stamp, Status: 'complete' } : null,
    StatusUpdatedAt: Math.floor(nowMs / 1000),
    Events: appendEvents(node.Events, nodeEvent({ index: tx.index, nowMs }, NODE_EVENT.drainComplete, 'Drain')),
  });
}
