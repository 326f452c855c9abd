/**
 * The metrics every agent on a {@link StateStore} has (issue 14 item 7): the discovery
 * agent and the scheduler share them, each adding its own gauges on the registry returned.
 *
 * @module
 */
import type { ReplicationLoops } from '../replicate/index.js';
import type { Backend, Leadership, StateStore } from '../store/index.js';
import { observeReplication } from './replication.js';
import { ServiceMetrics } from './service-metrics.js';
import { observeBackend, observeState } from './store.js';

/** What {@link agentMetrics} reads. */
export interface AgentMetricsSources {
  readonly backend: Backend;
  readonly state: StateStore;
  /** Who leads the agents sharing the state; absent: this agent alone. */
  readonly leadership: () => Leadership | undefined;
  /** The replication loops of a secondary datacenter / non-authoritative region with ACLs on; absent elsewhere. */
  readonly replication?: ReplicationLoops<string>;
  /** The gauge of the ACL tokens stored: its name, help text and the state table that holds them. */
  readonly tokens: { readonly name: string; readonly help: string; readonly table: string };
}

/**
 * A registry with the storage ({@link observeBackend}), state ({@link observeState}),
 * replication ({@link observeReplication}, with `replication` only) metrics and the
 * token count gauge (rows of `tokens.table`, read at scrape time).
 */
export function agentMetrics(s: AgentMetricsSources): ServiceMetrics {
  const metrics = new ServiceMetrics();
  observeBackend(metrics, s.backend);
  observeState(metrics, s.state, s.leadership);
  if (s.replication) observeReplication(metrics, s.replication);
  metrics.gauge({ name: s.tokens.name, help: s.tokens.help, read: () => s.state.count(s.tokens.table) });
  return metrics;
}
