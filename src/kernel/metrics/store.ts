/**
 * Storage metrics every service has (issue 14 item 7): group commits (latency, size,
 * failures) of its backend, its PostgreSQL connection pool, and, for the services on a
 * {@link StateStore}, the blocking queries waiting on it and whether this server leads the
 * ones sharing it.
 *
 * @module
 */
import { Counter, Histogram } from 'prom-client';
import { GroupCommitBackend, PostgresBackend, type Backend, type Leadership, type StateStore } from '../store/index.js';
import type { ServiceMetrics } from './service-metrics.js';

/** Upper bounds of the commit latency buckets, in seconds: 0.5 ms to 5 s. */
const COMMIT_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Upper bounds of the group size buckets, in write calls. */
const GROUP_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/**
 * Registers the metrics of `backend` on `metrics`: `cairn_store_commit_duration_seconds`,
 * `cairn_store_commit_group_writes` (histograms) and `cairn_store_commit_failures_total`
 * when it group-commits (SQLite, PostgreSQL); `cairn_store_pg_pool_connections{state}` and
 * `cairn_store_pg_pool_max` on PostgreSQL. Returns the function that stops observing.
 */
export function observeBackend(metrics: ServiceMetrics, backend: Backend): () => void {
  if (backend instanceof PostgresBackend) {
    const pg = backend;
    metrics.gauge({
      name: 'cairn_store_pg_pool_connections',
      help: 'PostgreSQL connections of the storage pool: open and in use (busy), open and idle (idle), and callers waiting for one (waiting).',
      labelNames: ['state'],
      read: () => {
        const p = pg.poolStats;
        return [
          [{ state: 'busy' }, p.total - p.idle],
          [{ state: 'idle' }, p.idle],
          [{ state: 'waiting' }, p.waiting],
        ];
      },
    });
    metrics.gauge({
      name: 'cairn_store_pg_pool_max',
      help: 'Most PostgreSQL connections the storage pool opens (max_parallel).',
      read: () => pg.poolStats.max,
    });
  }
  if (!(backend instanceof GroupCommitBackend)) return () => {};
  const latency = new Histogram({
    name: 'cairn_store_commit_duration_seconds',
    help: 'Time to commit one group of writes (one transaction) to storage, in seconds.',
    buckets: COMMIT_BUCKETS_S,
    registers: [metrics.registry],
  });
  const size = new Histogram({
    name: 'cairn_store_commit_group_writes',
    help: 'Write calls committed together in one group (one transaction, one fsync).',
    buckets: GROUP_SIZE_BUCKETS,
    registers: [metrics.registry],
  });
  const failures = new Counter({
    name: 'cairn_store_commit_failures_total',
    help: 'Groups whose transaction failed as a whole (every write in it was rejected).',
    registers: [metrics.registry],
  });
  return backend.observeCommits((c) => {
    latency.observe(c.seconds);
    size.observe(c.writes);
    if (c.failed) failures.inc();
  });
}

/**
 * Registers the metrics of a service's {@link StateStore}: `cairn_http_blocking_queries`
 * (blocking queries waiting now) and `cairn_server_leader` (1 when this server leads the
 * servers sharing the state, or runs alone; 0 for a follower).
 */
export function observeState(metrics: ServiceMetrics, state: StateStore, leadership: () => Leadership | undefined): void {
  metrics.gauge({ name: 'cairn_http_blocking_queries', help: 'Blocking queries (?index=) waiting for a change now.', read: () => state.openWatches });
  metrics.gauge({
    name: 'cairn_server_leader',
    help: '1 when this server leads the servers sharing its state (or runs alone), 0 for a follower.',
    read: () => (leadership()?.isLeader === false ? 0 : 1),
  });
}
