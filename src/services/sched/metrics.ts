/**
 * The scheduler service's metrics (issue 14 item 7), served by `GET /v1/metrics`
 * (routes/metrics.ts): the kernel's request, storage, leadership and replication metrics,
 * plus the count of ACL tokens ({@link agentMetrics}) and the event stream's subscribers
 * and buffer.
 *
 * @module
 */
import { agentMetrics, type ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Backend, Leadership, StateStore } from '../../kernel/store/index.js';
import type { EventBroker } from './events/index.js';
import type { SchedReplicator } from './replication.js';
import { T } from './state.js';

/** What the metrics read. */
export interface SchedMetricsSources {
  readonly backend: Backend;
  readonly state: StateStore;
  /** Who leads the servers sharing the state; absent: this server alone. */
  readonly leadership: () => Leadership | undefined;
  /** Present in a non-authoritative region with ACLs on. */
  readonly replicator?: SchedReplicator;
  /** Absent with `enable_event_broker = false`. */
  readonly broker?: EventBroker;
}

/** A registry with every metric of one scheduler agent. */
export function schedMetrics(s: SchedMetricsSources): ServiceMetrics {
  const metrics = agentMetrics({
    ...s,
    replication: s.replicator?.loops,
    tokens: { name: 'cairn_sched_acl_tokens', help: 'ACL tokens stored here (expired ones until they are collected).', table: T.tokens },
  });
  const broker = s.broker;
  if (broker) {
    metrics.gauge({ name: 'cairn_sched_event_subscribers', help: 'Event streams (GET /v1/event/stream) open now.', read: () => broker.subscriptionCount });
    metrics.gauge({
      name: 'cairn_sched_event_buffered_batches',
      help: 'Event batches held for replay and slow readers (at most event_buffer_size).',
      read: () => broker.bufferedBatches,
    });
  }
  return metrics;
}
