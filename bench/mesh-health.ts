/**
 * Discovery-service health benchmarks (issue 16 "Tests and measurements"), against agents
 * with ACLs on (default deny) and their management token:
 * - `mesh-health-10k` (a scenario of the rounds): `GET /v1/health/service/bench-web` on a
 *   catalog holding 10,000 instances of that one service (100 nodes × 100 instances, each
 *   with a passing service check), registered through `PUT /v1/catalog/register` in setup;
 * - `mesh-blocking-wake` (one-off, its own agent): 1,000 blocking
 *   `GET /v1/health/service/bench-wake?index=N&wait=60s` held open on one service, then its
 *   TTL check set failing through the agent API (`PUT /v1/agent/check/fail/…`): the time from
 *   that call's acknowledgement to each reply, and the server's CPU meanwhile.
 */
import { cpuSeconds } from './cpu.js';
import { parallel, type RequestTemplate, type Scenario } from './harness.js';
import { meshApi } from './mesh.js';
import { rawGet } from './raw-get.js';
import { startServer, type BenchServer } from './servers.js';

// ---------------------------------------------------------------------------------------
// mesh-health-10k

const SERVICE = 'bench-web';
/** Instances of {@link SERVICE} in the catalog. */
const HEALTH_INSTANCES = 10_000;
/** Nodes they are spread over (the instances of one node share its checks' scan). */
const HEALTH_NODES = 100;

/** The catalog registration of instance `i`: its node, the instance and its passing check. */
function registration(i: number): object {
  const n = i % HEALTH_NODES;
  return {
    Node: `bench-node-${n}`,
    Address: `10.0.${n >> 8}.${n & 255}`,
    NodeMeta: { rack: `r${n % 4}` },
    Service: { ID: `${SERVICE}-${i}`, Service: SERVICE, Port: 20_000 + (i % 40_000), Tags: ['v1'], Meta: { i: String(i) } },
    Check: { CheckID: `service:${SERVICE}-${i}`, Name: 'bench check', ServiceID: `${SERVICE}-${i}`, Status: 'passing', Output: 'ok' },
  };
}

interface HealthEntry {
  Node: { Node: string };
  Service: { ID: string; Service: string };
  Checks: { CheckID: string; Status: string }[];
}

export const meshHealth10k: Scenario = {
  name: 'mesh-health-10k',
  description: `discovery GET /v1/health/service/${SERVICE}: ${HEALTH_INSTANCES.toLocaleString('en-US')} instances on ${HEALTH_NODES} nodes, a passing check each, management token, 4 connections`,
  server: 'mesh',
  // Each reply is ~6.9 MB: with 32 connections a request would wait seconds behind the others.
  connections: 4,
  async setup(ctx) {
    await parallel(HEALTH_INSTANCES, 16, async (i) => {
      await meshApi(ctx.servers.mesh, 'PUT', '/v1/catalog/register', { body: registration(i) });
    });
  },
  async check(ctx) {
    const r = await meshApi(ctx.servers.mesh, 'GET', `/v1/health/service/${SERVICE}?passing`);
    const entries = r.json as HealthEntry[];
    const ids = new Set(entries.map((e) => e.Service.ID));
    const last = entries.find((e) => e.Service.ID === `${SERVICE}-${HEALTH_INSTANCES - 1}`);
    const ok =
      entries.length === HEALTH_INSTANCES &&
      ids.size === HEALTH_INSTANCES &&
      r.index > 0 &&
      last?.Node.Node === `bench-node-${(HEALTH_INSTANCES - 1) % HEALTH_NODES}` &&
      last.Checks.length === 1 &&
      last.Checks[0].CheckID === `service:${SERVICE}-${HEALTH_INSTANCES - 1}` &&
      last.Checks[0].Status === 'passing';
    if (!ok)
      throw new Error(`mesh-health-10k check: ${entries.length} entries, ${ids.size} distinct, index ${r.index}; last ${JSON.stringify(last)?.slice(0, 300)}`);
    // ACLs are enforced: the anonymous token (default deny) sees no instance.
    const anonymous = await meshApi(ctx.servers.mesh, 'GET', `/v1/health/service/${SERVICE}`, { token: null });
    if ((anonymous.json as unknown[]).length !== 0) throw new Error('mesh-health-10k check: the anonymous token sees instances');
  },
  requests(ctx): RequestTemplate[] {
    const token = ctx.servers.mesh.token;
    if (!token) throw new Error('mesh server reported no management token');
    return [{ method: 'GET', path: `/v1/health/service/${SERVICE}`, headers: { 'X-Mesh-Token': token } }];
  },
};

// ---------------------------------------------------------------------------------------
// mesh-blocking-wake

const WAKE_SERVICE = 'bench-wake';
const WAKE_CHECK = `service:${WAKE_SERVICE}`;

/** One round of {@link measureBlockingWake}. */
export interface WakeRound {
  /** Milliseconds from the failing call's acknowledgement to each blocked reply, ascending. */
  readonly wakeMs: readonly number[];
  /** Server CPU (user + system) from just before the change to the last reply, in ms; NaN without /proc. */
  readonly cpuMs: number;
}

/** The status of the wake service's TTL check in a `health/service` reply, with the reply's index. */
async function wakeState(server: BenchServer, query = ''): Promise<{ status: string | undefined; index: number }> {
  const r = await meshApi(server, 'GET', `/v1/health/service/${WAKE_SERVICE}${query}`);
  const [e] = r.json as HealthEntry[];
  return { status: e?.Checks.find((c) => c.CheckID === WAKE_CHECK)?.Status, index: r.index };
}

/** Polls `ok` every `everyMs` until it holds (`ms` at most). @throws naming `what` when it does not. */
async function until(what: string, ms: number, ok: () => Promise<boolean>, everyMs = 5): Promise<void> {
  const end = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`mesh-blocking-wake: ${what} not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The server's open blocking queries (`cairn_http_blocking_queries` of `GET /v1/agent/metrics?format=prometheus`). */
async function openBlocking(server: BenchServer): Promise<number> {
  const text = (await meshApi(server, 'GET', '/v1/agent/metrics?format=prometheus')).text;
  return Number(/^cairn_http_blocking_queries (\d+)$/m.exec(text)?.[1] ?? NaN);
}

/**
 * Starts a discovery agent in its own process and registers `bench-wake` through its
 * agent API with a TTL check (1 h). Then `rounds` times: sets the check passing and waits
 * until the catalog shows it and its index holds for 500 ms; opens `queries` blocking `health/service` reads (each its own
 * connection) at the catalog's index and waits until the server counts every one open;
 * sets the check failing (`PUT /v1/agent/check/fail/service:bench-wake`) and times each
 * reply from that call's acknowledgement. Every reply must show the check critical at a
 * higher index. The agent syncs a status change to its catalog at once (anti-entropy), so
 * the time includes that write.
 */
export async function measureBlockingWake(rounds: number, queries = 1000): Promise<WakeRound[]> {
  const server = await startServer('mesh', { maxConnections: queries + 100 });
  const out: WakeRound[] = [];
  try {
    await meshApi(server, 'PUT', '/v1/agent/service/register', {
      body: { Name: WAKE_SERVICE, ID: WAKE_SERVICE, Port: 9000, Check: { TTL: '1h', Status: 'passing' } },
    });
    for (let round = 1; round <= rounds; round++) {
      await meshApi(server, 'PUT', `/v1/agent/check/pass/${WAKE_CHECK}`);
      await until('the check passing in the catalog', 10_000, async () => (await wakeState(server)).status === 'passing');
      // The agent's own syncs (its node, a deferred output) may still move the index: start
      // from an index that held for 500 ms, so that only the failing check wakes the queries.
      let index = (await wakeState(server)).index;
      await until('a settled catalog index', 30_000, async () => {
        await new Promise((r) => setTimeout(r, 500));
        const now = (await wakeState(server)).index;
        if (now === index) return true;
        index = now;
        return false;
      });
      const headers = { 'X-Mesh-Token': server.token! };
      // Raw sockets (raw-get.ts): the client's own work per reply stays out of the times.
      const replies = Array.from({ length: queries }, () => rawGet(server.url, `/v1/health/service/${WAKE_SERVICE}?index=${index}&wait=60s`, headers));
      // Polled every 100 ms: a scrape is not cheap, and the server should be idle at the change.
      await until(`${queries} blocking queries open`, 30_000, async () => (await openBlocking(server)) >= queries, 100);
      const cpu0 = cpuSeconds(server.pid);
      await meshApi(server, 'PUT', `/v1/agent/check/fail/${WAKE_CHECK}`);
      const ack = performance.now();
      const got = await Promise.all(replies);
      const cpu1 = cpuSeconds(server.pid);
      for (const res of got) {
        const next = Number(res.headers['x-mesh-index']);
        const status = (JSON.parse(res.body) as HealthEntry[])[0]?.Checks.find((c) => c.CheckID === WAKE_CHECK)?.Status;
        if (res.status !== 200 || next <= index || status !== 'critical')
          throw new Error(`mesh-blocking-wake: reply ${res.status} at index ${next} (was ${index}) with the check ${status}`);
      }
      const wakeMs = got.map((r) => r.at - ack).sort((a, b) => a - b);
      out.push({ wakeMs, cpuMs: cpu0 === undefined || cpu1 === undefined ? NaN : (cpu1 - cpu0) * 1000 });
    }
  } finally {
    await server.close();
  }
  return out;
}
