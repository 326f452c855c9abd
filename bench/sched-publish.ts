/**
 * The scheduler bench's publisher, run inside the server process (bench/child.ts `sched`):
 * node updates written straight into the agent's state at a fixed rate, so the event
 * stream's fan-out is measured without an HTTP write path in front of it.
 */
import type { SchedAgent } from '../src/services/sched/agent.js';
import { LABEL, T, type NodeDoc } from '../src/services/sched/state.js';

/** What {@link publishNodeUpdates} did. */
export interface PublishResult {
  /** Events (node updates) committed. */
  readonly events: number;
  /** Committed batches (transactions). */
  readonly batches: number;
  /** Wall time from the first write to the last acknowledgement, in ms. */
  readonly elapsedMs: number;
}

/** Epoch ms with a fraction, comparable across processes of one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** A minimal registered node `id` whose `Meta.bench_ts` carries the write time. */
function nodeDoc(id: string, ts: number): NodeDoc {
  return {
    ID: id,
    SecretID: id,
    Datacenter: 'dc1',
    Name: id.slice(0, 8),
    HTTPAddr: '127.0.0.1:4646',
    TLSEnabled: false,
    Attributes: { 'kernel.name': 'linux' },
    NodeResources: null,
    ReservedResources: null,
    Resources: null,
    Reserved: null,
    Links: null,
    Meta: { bench_ts: String(ts) },
    NodeClass: '',
    NodePool: 'default',
    ComputedClass: '',
    DrainStrategy: null,
    SchedulingEligibility: 'eligible',
    Status: 'ready',
    StatusDescription: '',
    StatusUpdatedAt: Math.floor(ts / 1000),
    Events: [],
    Drivers: null,
    CSIControllerPlugins: null,
    CSINodePlugins: null,
    HostVolumes: null,
  };
}

/**
 * Writes `eventsPerSec` node updates per second for `seconds`, `batch` per transaction (a
 * node event each, label `NodeEvent`), issued every 10 ms without waiting for earlier
 * commits (group commit takes them together), on a schedule kept by elapsed time. Resolves when every write is acknowledged.
 */
export async function publishNodeUpdates(agent: SchedAgent, eventsPerSec: number, seconds: number, batch: number): Promise<PublishResult> {
  const ids = Array.from({ length: batch }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  const tickMs = 10;
  const start = performance.now();
  const pending: Promise<unknown>[] = [];
  let batches = 0;
  for (let elapsed = 0; elapsed < seconds * 1000; elapsed = performance.now() - start) {
    // Catch up to the schedule by time, so late timers do not lower the rate.
    const due = Math.floor(((elapsed / 1000) * eventsPerSec) / batch);
    for (; batches < due; batches++) {
      const ts = epochMs();
      pending.push(
        agent.state.txn((tx) => {
          for (const id of ids) tx.put(T.nodes, id, nodeDoc(id, ts));
        }, LABEL.nodeEvent),
      );
    }
    await new Promise((r) => setTimeout(r, tickMs));
  }
  await Promise.all(pending);
  return { events: batches * batch, batches, elapsedMs: performance.now() - start };
}
