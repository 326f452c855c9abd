/**
 * KV change → re-rendered templates (issue 27 "Measure": "time from a KV change to 100 watching
 * tasks re-rendered (p50, p99)"), one-off `template-rerender`, on the processes of
 * bench/template-cluster.ts: a job of `allocations` allocations whose task each renders
 * `{{ key "bench/tpl/shared" }}` into `local/v.txt` (`change_mode = "noop"`, `splay = "0s"`,
 * `wait` 0/0, the client's `wait` 0/0 too).
 *
 * Per round: a new value is written with `PUT /v1/kv/bench/tpl/shared`; the clock starts at that
 * request's reply and, polling every 15 ms, each allocation's latency is when its file (read
 * under the client's data directory) first holds the new value. The per-allocation latencies of
 * every round are pooled for p50/p99; the time to all is per round. Resolution: the poll period
 * plus the time one pass of reads takes.
 */
import { percentile } from './harness.js';
import { readRendered, startTemplateCluster } from './template-cluster.js';

const KEY = 'bench/tpl/shared';
/** Poll period of the files, ms. */
const POLL_MS = 15;

/** What {@link measureTemplateRerender} reports, ms from the write's reply. */
export interface RerenderResult {
  readonly allocations: number;
  /** Every allocation's latency of every round. */
  readonly latenciesMs: readonly number[];
  /** Per round: when the last file held the value. */
  readonly allMs: readonly number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Waits until every file holds `value`; resolves with each file's first-seen ms since `t0`. @throws after 60 s. */
async function watchFiles(files: readonly string[], value: string, t0: number): Promise<number[]> {
  const seen = new Array<number>(files.length).fill(NaN);
  let left = files.length;
  for (;;) {
    for (let i = 0; i < files.length; i++) {
      if (!Number.isNaN(seen[i]!)) continue;
      if (readRendered(files[i]!) === value) {
        seen[i] = performance.now() - t0;
        left--;
      }
    }
    if (left === 0) return seen;
    if (performance.now() - t0 > 60_000) throw new Error(`template-rerender: ${left} of ${files.length} files without "${value}" after 60 s`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** See the module doc. @throws when a process does not start or a round does not finish. */
export async function measureTemplateRerender(o: {
  clientNodeOptions?: string;
  meshMaxConnsPerClient?: number;
  allocations: number;
  rounds: number;
}): Promise<RerenderResult> {
  const cluster = await startTemplateCluster(o);
  try {
    await cluster.putKey(KEY, 'v0');
    const { files } = await cluster.runJob('bench-tpl', [{ count: o.allocations, key: KEY }]);
    await watchFiles(files, 'v0', performance.now());
    const latenciesMs: number[] = [];
    const allMs: number[] = [];
    // One unmeasured change first: the first re-render after start-up warms the code paths.
    for (let round = 0; round <= o.rounds; round++) {
      const value = `v${round + 1}-${Date.now()}`;
      await cluster.putKey(KEY, value);
      const seen = await watchFiles(files, value, performance.now());
      if (round === 0) continue;
      latenciesMs.push(...seen);
      allMs.push(Math.max(...seen));
    }
    await cluster.purgeJob('bench-tpl');
    return { allocations: o.allocations, latenciesMs, allMs, p50Ms: percentile(latenciesMs, 50), p99Ms: percentile(latenciesMs, 99) };
  } finally {
    await cluster.close();
  }
}
