/**
 * The gateway's Prometheus metrics, served on every ops listener at `/metrics`
 * (reference/gateway.md §2), with `prom-client`: Node's process metrics plus gauges read
 * at scrape time from the controller and worker running here. One registry per gateway,
 * so several gateways in one process (tests, `cairn dev`) do not collide.
 *
 * @module
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ClusterServer } from './cluster.js';
import type { SessionRegistry, SessionStatus } from './sessions.js';
import type { UpstreamConnectionState, Worker, WorkerState } from './worker.js';

const UPSTREAM_STATES: readonly UpstreamConnectionState[] = ['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'SHUTDOWN'];
const WORKER_STATES: readonly WorkerState[] = ['unknown', 'active', 'shutdown'];
const SESSION_STATUSES: readonly SessionStatus[] = ['pending', 'active', 'canceling', 'terminated'];

/** What the metrics read; absent parts export no gauges. */
export interface MetricsSources {
  readonly controller?: {
    readonly cluster: ClusterServer;
    readonly sessions: SessionRegistry;
    readonly shuttingDown: () => boolean;
    readonly now: () => number;
  };
  readonly worker?: Worker;
}

/** A scrape: the body and its `Content-Type`. */
export interface MetricsScrape {
  readonly contentType: string;
  readonly body: string;
}

/** Builds the registry for `sources`; returns a function that renders one scrape. */
export function gatewayMetrics(sources: MetricsSources): () => Promise<MetricsScrape> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { controller, worker } = sources;
  if (controller) {
    new Gauge({
      name: 'cairn_gateway_controller_workers',
      help: 'Workers known to this controller, by the state of their last status report.',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const counts = Object.fromEntries(WORKER_STATES.map((s) => [s, 0]));
        for (const w of controller.cluster.workers.values()) counts[w.state in counts ? w.state : 'unknown']++;
        for (const s of WORKER_STATES) this.set({ state: s }, counts[s]);
      },
    });
    new Gauge({
      name: 'cairn_gateway_controller_sessions',
      help: 'Sessions held by this controller, by status.',
      labelNames: ['status'],
      registers: [registry],
      collect() {
        const counts = controller.sessions.countByStatus(controller.now());
        for (const s of SESSION_STATUSES) this.set({ status: s }, counts[s]);
      },
    });
    new Gauge({
      name: 'cairn_gateway_controller_shutting_down',
      help: '1 once the controller began shutting down (/health answers 503), else 0.',
      registers: [registry],
      collect() {
        this.set(controller.shuttingDown() ? 1 : 0);
      },
    });
  }
  if (worker) {
    new Gauge({
      name: 'cairn_gateway_worker_active_sessions',
      help: 'Sessions with at least one open proxied connection on this worker.',
      registers: [registry],
      collect() {
        this.set(worker.healthInfo().active_session_count);
      },
    });
    new Gauge({
      name: 'cairn_gateway_worker_proxy_connections',
      help: 'Open proxied connections on this worker.',
      registers: [registry],
      collect() {
        this.set(worker.connectionCount);
      },
    });
    new Gauge({
      name: 'cairn_gateway_worker_upstream_connection_state',
      help: "1 for the current connectivity state of the worker's gRPC channel to its upstream, 0 for the others.",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const now = worker.upstreamConnectionState();
        for (const s of UPSTREAM_STATES) this.set({ state: s }, s === now ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cairn_gateway_worker_state',
      help: '1 for the worker’s current operational state, 0 for the others.',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        for (const s of WORKER_STATES) this.set({ state: s }, s === worker.state ? 1 : 0);
      },
    });
  }
  return async () => ({ contentType: registry.contentType, body: await registry.metrics() });
}
