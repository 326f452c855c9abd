/**
 * Client CPU per watched template at rest (issue 27 "Measure": "client CPU per watched template
 * at rest"), one-off `template-idle-cpu`, on the processes of bench/template-cluster.ts. Three
 * cases, one after the other on the same client, each a job of `allocations` allocations:
 *
 * - `none`: the tasks without a template (the baseline: task supervision, heartbeats, …);
 * - `shared`: each renders `{{ key "bench/idle/shared" }}` (one key, `allocations` templates);
 * - `distinct`: allocation i renders `{{ key "bench/idle/k<i>" }}` (one group per key);
 * - `none` again last: the baseline is the mean of both, so a drift of the machine over the
 *   run (or work left from the client's start) shows as their difference instead of in a case.
 *
 * Per case: the job runs and (with templates) every file is rendered, 5 s settle, then the
 * client agent's CPU (user + system, /proc/<pid>/stat, 10 ms ticks) over `seconds` with nothing
 * changing. Reported: CPU ms per minute of each case, and per template per minute of `shared`
 * and `distinct` minus the mean of the two `none`. The job is purged before the next case. The discovery agent's
 * blocking queries are held for `block_query_wait` (5 m by default), so a window under 5 m sees
 * few of them re-issued: at rest the cost is the held connections and the client's timers.
 */
import { readRendered, startTemplateCluster, type TemplateGroup } from './template-cluster.js';
import { until } from '../test/processes.js';

/** One case's figures. */
interface IdleCase {
  readonly name: 'none' | 'shared' | 'distinct';
  /** Client CPU ms per minute over the window. */
  readonly cpuMsPerMin: number;
}

/** What {@link measureTemplateIdle} reports. */
export interface IdleResult {
  readonly allocations: number;
  readonly seconds: number;
  readonly cases: readonly IdleCase[];
}

const SETTLE_MS = 5000;

/** See the module doc. @throws when a process does not start or a job does not run or render. */
export async function measureTemplateIdle(o: {
  clientNodeOptions?: string;
  meshMaxConnsPerClient?: number;
  allocations: number;
  seconds: number;
}): Promise<IdleResult> {
  const cluster = await startTemplateCluster(o);
  const n = o.allocations;
  const plans: { name: IdleCase['name']; groups: TemplateGroup[] }[] = [
    { name: 'none', groups: [{ count: n }] },
    { name: 'shared', groups: [{ count: n, key: 'bench/idle/shared' }] },
    { name: 'distinct', groups: Array.from({ length: n }, (_, i) => ({ count: 1, key: `bench/idle/k${i}` })) },
    { name: 'none', groups: [{ count: n }] },
  ];
  try {
    await cluster.putKey('bench/idle/shared', 'shared');
    for (let i = 0; i < n; i++) await cluster.putKey(`bench/idle/k${i}`, `k${i}`);
    const cases: IdleCase[] = [];
    for (const [k, plan] of plans.entries()) {
      const id = `bench-idle-${k}-${plan.name}`;
      const { files } = await cluster.runJob(id, plan.groups);
      await until(`${id}: ${files.length} files rendered`, 60_000, () => (files.every((f) => readRendered(f) !== undefined) ? true : undefined));
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const before = cluster.clientCpu();
      await new Promise((r) => setTimeout(r, o.seconds * 1000));
      const cpuMs = (cluster.clientCpu() - before) * 1000;
      cases.push({ name: plan.name, cpuMsPerMin: (cpuMs * 60) / o.seconds });
      await cluster.purgeJob(id);
    }
    return { allocations: n, seconds: o.seconds, cases };
  } finally {
    await cluster.close();
  }
}
