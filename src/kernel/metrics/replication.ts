/**
 * Replication metrics of a secondary datacenter / non-authoritative region (issue 14
 * item 7), read from its {@link ReplicationLoops} at scrape time.
 *
 * Rounds are blocking queries on the source, so an idle source makes a successful round
 * last up to the blocking wait (5 minutes by default): the time since the last success is
 * not by itself a lag. Alert on `cairn_replication_failing_kinds > 0`, or on the last
 * success being older than the wait plus a margin (docs/deploy.md "Monitoring").
 *
 * @module
 */
import type { ReplicationLoops } from '../replicate/index.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * Registers on `metrics`: `cairn_replication_running`, `cairn_replication_index{kind}`,
 * `cairn_replication_failing_kinds`, `cairn_replication_last_success_timestamp_seconds`
 * and `cairn_replication_last_error_timestamp_seconds` (Unix seconds, 0 = never).
 */
export function observeReplication(metrics: ServiceMetrics, loops: ReplicationLoops<string>): void {
  metrics.gauge({
    name: 'cairn_replication_running',
    help: '1 while the replication loops run (on the leader, with a replication token), else 0.',
    read: () => (loops.isRunning ? 1 : 0),
  });
  metrics.gauge({
    name: 'cairn_replication_index',
    help: 'The source index each kind of object was last replicated up to (0: not yet, or resyncing after a failure).',
    labelNames: ['kind'],
    read: () => [...loops.indexes].map(([kind, index]) => [{ kind }, index] as const),
  });
  metrics.gauge({ name: 'cairn_replication_failing_kinds', help: 'Kinds of object whose latest replication round failed.', read: () => loops.failing.size });
  metrics.gauge({
    name: 'cairn_replication_last_success_timestamp_seconds',
    help: 'Unix time of the last successful replication round, in seconds; 0 when none.',
    read: () => loops.lastSuccessMs / 1000,
  });
  metrics.gauge({
    name: 'cairn_replication_last_error_timestamp_seconds',
    help: 'Unix time of the last failed replication round, in seconds; 0 when none.',
    read: () => loops.lastErrorMs / 1000,
  });
}
