/**
 * Scheduler placement benchmark (issue 19: "placements/s for a job of 1,000 allocations on
 * 50 simulated nodes … evaluation latency p50/p99"), one-off `sched-placement`, on a fresh
 * scheduler process (`sched` server kind, SQLite, ACLs on, the management token):
 *
 * - The client nodes are a light stand-in in the bench process: each is only a
 *   `PUT /v1/node/register` (status `ready`, `raw_exec` detected and healthy, 4,000 MHz and
 *   8,192 MiB) and then a `POST /v1/node/:id/status {"Status":"ready"}` heartbeat every 5 s
 *   (the servers' TTL is 10 s); they run nothing, so allocations stay `pending`.
 * - Jobs are registered with `POST /v1/jobs` from the bench process (documents from
 *   test/sched/workloads.ts `job`/`group`); the evaluation times are read in the server
 *   process (IPC `evalTimes`) so polling costs no HTTP requests.
 * - Placement: one service job of count 1,000 (100 MHz, 128 MiB each); placements/s = 1,000 /
 *   (the evaluation's `ModifyTime` − `CreateTime`): broker, reconcile, feasibility and scoring
 *   over 50 nodes, the plan's commit of 1,000 allocations and the evaluation's update. The
 *   allocations are then counted over HTTP.
 * - Evaluation latency: 200 jobs of count 1 stored 20 at a time; per evaluation, `ModifyTime`
 *   − `CreateTime` (waiting in the broker included), p50 and p99.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { SchedAgent } from '../src/services/sched/agent.js';
import { T } from '../src/services/sched/state.js';
import type { Evaluation, Job } from '../src/services/sched/jobs/types.js';
import { group, job } from '../test/sched/workloads.js';
import { percentile } from './harness.js';
import { startServer } from './servers.js';

/** Server side (bench/child.ts `evalTimes`): waits until evaluations `ids` are no longer pending; their create and modify times (ns) and status. */
export async function settledEvalTimes(
  agent: SchedAgent,
  ids: readonly string[],
  timeoutMs: number,
): Promise<{ create: number; modify: number; status: string; failed: boolean }[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const evals = ids.map((id) => agent.state.get<Evaluation>(T.evals, id));
    if (evals.every((e) => e && e.Status !== 'pending'))
      return evals.map((e) => ({ create: e!.CreateTime, modify: e!.ModifyTime, status: e!.Status, failed: e!.FailedTGAllocs !== null }));
    if (Date.now() > end) throw new Error('evaluations did not finish in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** What {@link measurePlacement} measured. */
export interface PlacementResult {
  readonly nodes: number;
  readonly allocations: number;
  readonly placeMs: number;
  readonly placementsPerSec: number;
  readonly evals: number;
  readonly evalP50Ms: number;
  readonly evalP99Ms: number;
}

/** Runs the measurement of the module doc. */
export async function measurePlacement(o: { nodes: number; allocations: number; evals: number; concurrency: number }): Promise<PlacementResult> {
  const server = await startServer('sched');
  const headers = { 'x-sched-token': server.token!, 'content-type': 'application/json' };
  const call = async (method: 'PUT' | 'POST' | 'GET', path: string, body?: unknown) => {
    const r = await request(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${method} ${path}: ${r.statusCode} ${text}`);
    return JSON.parse(text) as unknown;
  };
  const ids: string[] = [];
  let beat: NodeJS.Timeout | undefined;
  try {
    for (let i = 0; i < o.nodes; i++) {
      const id = randomUUID();
      ids.push(id);
      await call('PUT', '/v1/node/register', {
        Node: {
          ID: id,
          SecretID: randomUUID(),
          Datacenter: 'dc1',
          Name: `standin-${i}`,
          HTTPAddr: '127.0.0.1:1',
          Status: 'ready',
          Attributes: { 'kernel.name': 'linux', 'driver.raw_exec': '1' },
          NodeResources: { Cpu: { CpuShares: 4000 }, Memory: { MemoryMB: 8192 } },
          Drivers: { raw_exec: { Detected: true, Healthy: true, HealthDescription: 'Healthy', Attributes: null } },
        },
      });
    }
    const register = (jobs: readonly Job[]) => Promise.all(jobs.map(async (j) => ((await call('POST', '/v1/jobs', { Job: j })) as { EvalID: string }).EvalID));
    beat = setInterval(() => {
      for (const id of ids) void call('POST', `/v1/node/${id}/status`, { Status: 'ready' }).catch(() => undefined);
    }, 5000);
    const big = job('bench-big', [group('g', o.allocations, { cpu: 100, memory: 128 })]);
    const [bigEval] = await register([big]);
    const [t] = (await server.request({ type: 'evalTimes', ids: [bigEval], timeoutMs: 120_000 }, 130_000)) as {
      create: number;
      modify: number;
      failed: boolean;
    }[];
    const allocs = ((await call('GET', '/v1/allocations')) as { JobID: string; DesiredStatus: string }[]).filter(
      (a) => a.JobID === 'bench-big' && a.DesiredStatus === 'run',
    );
    if (allocs.length !== o.allocations || t!.failed) throw new Error(`placed ${allocs.length} of ${o.allocations} allocations`);
    const placeMs = (t!.modify - t!.create) / 1e6;

    const latencies: number[] = [];
    for (let done = 0; done < o.evals; done += o.concurrency) {
      const jobs = Array.from({ length: Math.min(o.concurrency, o.evals - done) }, (_, i) =>
        job(`bench-small-${done + i}`, [group('g', 1, { cpu: 100, memory: 128 })]),
      );
      const evalIds = await register(jobs);
      const times = (await server.request({ type: 'evalTimes', ids: evalIds, timeoutMs: 60_000 }, 70_000)) as { create: number; modify: number }[];
      for (const x of times) latencies.push((x.modify - x.create) / 1e6);
    }
    return {
      nodes: o.nodes,
      allocations: o.allocations,
      placeMs,
      placementsPerSec: o.allocations / (placeMs / 1000),
      evals: latencies.length,
      evalP50Ms: percentile(latencies, 50),
      evalP99Ms: percentile(latencies, 99),
    };
  } finally {
    if (beat) clearInterval(beat);
    await server.close();
  }
}
