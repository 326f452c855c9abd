/**
 * The gateway's own Prometheus metrics, served on every ops listener at `/metrics`
 * (reference/gateway.md §2) with the kernel's (src/kernel/metrics: one registry per
 * gateway, process metrics, the api listener's request metrics): gauges read at scrape
 * time from the controller and worker running here.
 *
 * @module
 */
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import type { ClusterServer } from './cluster.js';
import type { SessionStatus, SessionStore } from './sessions.js';
import type { UpstreamConnectionState, Worker, WorkerState } from './worker.js';

const UPSTREAM_STATES: readonly UpstreamConnectionState[] = ['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'SHUTDOWN'];
const WORKER_STATES: readonly WorkerState[] = ['unknown', 'active', 'shutdown'];
const SESSION_STATUSES: readonly SessionStatus[] = ['pending', 'active', 'canceling', 'terminated'];

/** What the metrics read; absent parts export no gauges. */
export interface MetricsSources {
  readonly controller?: {
    readonly cluster: ClusterServer;
    readonly sessions: SessionStore;
    readonly shuttingDown: () => boolean;
    readonly now: () => number;
  };
  readonly worker?: Worker;
}

/** Registers the gauges of `sources` on `metrics`. */
export function observeGateway(metrics: ServiceMetrics, sources: MetricsSources): void {
  const { controller, worker } = sources;
  /** 1 for `now`, 0 for the other `states`. */
  const oneOf = <S extends string>(states: readonly S[], now: S) => states.map((state) => [{ state }, state === now ? 1 : 0] as const);
  if (controller) {
    metrics.gauge({
      name: 'cairn_gateway_controller_workers',
      help: 'Workers known to this controller, by the state of their last status report.',
      labelNames: ['state'],
      read: () => {
        const counts = Object.fromEntries(WORKER_STATES.map((s) => [s, 0]));
        for (const w of controller.cluster.workers.values()) counts[w.state in counts ? w.state : 'unknown']++;
        return WORKER_STATES.map((state) => [{ state }, counts[state]] as const);
      },
    });
    metrics.gauge({
      name: 'cairn_gateway_controller_sessions',
      help: 'Sessions held by this controller, by status.',
      labelNames: ['status'],
      read: () => {
        const counts = controller.sessions.countByStatus();
        return SESSION_STATUSES.map((status) => [{ status }, counts[status]] as const);
      },
    });
    metrics.gauge({
      name: 'cairn_gateway_controller_shutting_down',
      help: '1 once the controller began shutting down (/health answers 503), else 0.',
      read: () => (controller.shuttingDown() ? 1 : 0),
    });
  }
  if (worker) {
    metrics.gauge({
      name: 'cairn_gateway_worker_active_sessions',
      help: 'Sessions with at least one open proxied connection on this worker.',
      read: () => worker.healthInfo().active_session_count,
    });
    metrics.gauge({ name: 'cairn_gateway_worker_proxy_connections', help: 'Open proxied connections on this worker.', read: () => worker.connectionCount });
    metrics.gauge({
      name: 'cairn_gateway_worker_upstream_connection_state',
      help: "1 for the current connectivity state of the worker's gRPC channel to its upstream, 0 for the others.",
      labelNames: ['state'],
      read: () => oneOf(UPSTREAM_STATES, worker.upstreamConnectionState()),
    });
    metrics.gauge({
      name: 'cairn_gateway_worker_state',
      help: '1 for the worker’s current operational state, 0 for the others.',
      labelNames: ['state'],
      read: () => oneOf(WORKER_STATES, worker.state),
    });
  }
}
