/**
 * Heartbeat timers on the leader (reference/sched-workloads.md "Client agent"; the
 * reference's `nomad/heartbeat.go`): every node that registers or reports its status gets
 * (again) a timer of its TTL plus the grace period; a node whose timer runs out is marked
 * `down` with the node event `Node heartbeat missed` (label `NodeEvent`). What then happens to
 * its allocations is the leader's reaction to the status change (leader.ts). On becoming
 * leader every node not `down` gets a fresh timer, as the reference.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { appendEvents, NODE_EVENT, nodeEvent, type StoredNode } from '../node.js';
import { LABEL, T } from '../state.js';

/** The reference's minimum heartbeat TTL: 10 s in ms (`min_heartbeat_ttl`). */
export const MIN_HEARTBEAT_TTL_MS = 10_000;
/** The reference's heartbeat grace: 10 s in ms (`heartbeat_grace`). */
export const HEARTBEAT_GRACE_MS = 10_000;

/** Options of {@link Heartbeats}. */
export interface HeartbeatOptions {
  readonly state: StateStore;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** TTL given to clients, ms. */
  readonly ttlMs: number;
  /** Extra time the servers wait past the TTL, ms. */
  readonly graceMs: number;
}

/** See the module doc. */
export class Heartbeats {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = false;

  constructor(private readonly o: HeartbeatOptions) {}

  /** The TTL a client is told (`HeartbeatTTL`), ms. */
  get ttlMs(): number {
    return this.o.ttlMs;
  }

  /** Starts: a timer for every node not `down`. */
  start(): void {
    this.running = true;
    for (const n of this.o.state.list<StoredNode>(T.nodes)) if (n.Status !== 'down') this.touch(n.ID);
  }

  /** Stops every timer. */
  stop(): void {
    this.running = false;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Node `id` heartbeat: its timer starts again (no-op unless leading). */
  touch(id: string): void {
    if (!this.running) return;
    const old = this.timers.get(id);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.timers.delete(id);
      void this.expire(id);
    }, this.o.ttlMs + this.o.graceMs);
    t.unref();
    this.timers.set(id, t);
  }

  /** Node `id` is gone (purged): no timer. */
  forget(id: string): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }

  /** Marks node `id` down after a missed heartbeat. */
  private async expire(id: string): Promise<void> {
    if (!this.running) return;
    const nowMs = this.o.now();
    try {
      await this.o.state.txn((tx) => {
        const node = tx.get<StoredNode>(T.nodes, id);
        if (!node || node.Status === 'down') return;
        tx.put<StoredNode>(T.nodes, id, {
          ...node,
          Status: 'down',
          StatusDescription: '',
          StatusUpdatedAt: Math.floor(nowMs / 1000),
          Events: appendEvents(node.Events, nodeEvent({ index: tx.index, nowMs }, NODE_EVENT.heartbeatMissed, 'Cluster')),
        });
      }, LABEL.nodeEvent);
      this.o.log.warn({ node: id }, 'node missed its heartbeat: marked down');
    } catch (err) {
      this.o.log.warn({ err, node: id }, 'marking a node down after a missed heartbeat failed');
    }
  }
}
