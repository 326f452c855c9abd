/**
 * The discovery service's metrics (issue 14 item 7), served by `GET /v1/agent/metrics`
 * (routes/metrics.ts): the kernel's request, storage, leadership and replication metrics,
 * plus the count of ACL tokens ({@link agentMetrics}).
 *
 * @module
 */
import { agentMetrics, type ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Backend, Leadership, StateStore } from '../../kernel/store/index.js';
import type { Replicator } from './replication.js';
import { T } from './state.js';

/** What the metrics read. */
export interface MeshMetricsSources {
  readonly backend: Backend;
  readonly state: StateStore;
  /** Who leads the agents sharing the state; absent: this agent alone. */
  readonly leadership: () => Leadership | undefined;
  /** Present in a secondary datacenter with ACLs on. */
  readonly replicator?: Replicator;
}

/** A registry with every metric of one discovery agent. */
export function meshMetrics(s: MeshMetricsSources): ServiceMetrics {
  return agentMetrics({
    ...s,
    replication: s.replicator?.loops,
    tokens: { name: 'cairn_mesh_acl_tokens', help: 'ACL tokens stored here (expired ones until they are deleted).', table: T.tokens },
  });
}
