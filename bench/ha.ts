/**
 * Issue 8's two timings across servers sharing one PostgreSQL (a throwaway cluster with
 * `fsync` on, src/kernel/store/testdata/pg-cluster.ts), every server its own process:
 *
 * - **failover**: two secrets servers with `ha_enabled` (production defaults: a standby
 *   waits in the lock; its leader-row reads and reconnections run every 1 s); `kill -9` of
 *   the active one at a random moment of that 1 s cycle, then the time until the other
 *   answers `sys/health` 200 (active), polled every 5 ms. The killed one is started and
 *   unsealed again as the next standby; repeated `n` times.
 * - **cross-server wake-up**: two discovery agents on one table; a blocking query
 *   (`GET /v1/acl/policies?index=N`) waits on the follower while a policy is written
 *   through the leader. Measured from sending the write to the blocking query's reply
 *   (the write's own latency is reported beside it).
 * - **cross-server event stream**: two scheduler agents on one table; one event stream
 *   (`GET /v1/event/stream?topic=ACLPolicy`) open on the follower while policies are
 *   written through the leader, one at a time. Measured from sending the write to the
 *   follower's stream delivering its `ACLPolicyUpserted` event.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPgTestServer } from '../src/kernel/store/testdata/pg-cluster.js';
import { startCairnProcess, until, type ServerProcess } from '../test/processes.js';
import { startSharedAgent, untilLeader } from '../test/shared-agents.js';

/** The secrets servers' `connection_url` names it (`env://…`), so no password lands in a file. */
const URL_VAR = 'CAIRN_BENCH_HA_PG_URL';

/** PUTs `body` as JSON to `url + path`, with `auth.token` in header `auth.header` when given. */
async function put(url: string, path: string, body: unknown, auth?: { token: string; header: string }): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url + path, { method: 'PUT', headers: auth ? { [auth.header]: auth.token } : {}, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** One failover: ms from `kill -9` of the active server to the standby answering health 200. */
export interface FailoverSample {
  readonly ms: number;
}

/** See the module doc. @throws when a server does not start, unseal or take over within 30 s. */
export async function measureSecretsFailover(n: number, env: NodeJS.ProcessEnv): Promise<FailoverSample[]> {
  const pgServer = await startPgTestServer(env, { durable: true });
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-failover-'));
  const servers: ServerProcess[] = [];
  try {
    const config = join(dir, 'secrets.hcl');
    writeFileSync(
      config,
      `storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "bench_failover_${randomBytes(3).toString('hex')}"
  ha_enabled     = "true"
}
listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}
`,
    );
    const start = async () => {
      const s = await startCairnProcess(['secrets', 'server', `-config=${config}`], { [URL_VAR]: pgServer.url }, 'secrets service listening');
      servers.push(s);
      return s;
    };
    const health = async (s: ServerProcess) => (await fetch(`${s.url}/v1/sys/health`).catch(() => undefined))?.status;
    let active = await start();
    const init = await put(active.url, '/v1/sys/init', { secret_shares: 1, secret_threshold: 1 });
    const key = (init.json as { keys: string[] }).keys[0];
    const unseal = async (s: ServerProcess) => {
      const r = await put(s.url, '/v1/sys/unseal', { key });
      if (r.status !== 200) throw new Error(`unseal of ${s.url} answered ${r.status}`);
    };
    await unseal(active);
    await until('the first server is active', 30_000, async () => ((await health(active)) === 200 ? true : undefined));
    let standby = await start();
    await unseal(standby);
    const samples: FailoverSample[] = [];
    for (let i = 0; i < n; i++) {
      await until('a standby', 30_000, async () => ((await health(standby)) === 429 || (await health(standby)) === 473 ? true : undefined));
      // A crash comes at any point of the standby's 1 s cycle (leader reads, heartbeats): sample the phase.
      await new Promise((r) => setTimeout(r, Math.random() * 1000));
      const killedAt = performance.now();
      await active.kill();
      const survivor = standby;
      await until('the standby takes over', 30_000, async () => ((await health(survivor)) === 200 ? true : undefined));
      samples.push({ ms: performance.now() - killedAt });
      active = survivor;
      standby = await start();
      await unseal(standby);
    }
    return samples;
  } finally {
    for (const s of servers) await s.kill();
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One wake-up: ms from sending the write (on the leader) to the follower seeing it, and the write's own latency. */
export interface WakeupSample {
  readonly wakeMs: number;
  readonly writeMs: number;
}

/**
 * Runs `fn` with two agents of `service` sharing one table of a durable throwaway cluster:
 * the first leads, the second (with its key) follows. Everything is stopped and removed after.
 */
async function withAgentPair<T>(
  env: NodeJS.ProcessEnv,
  service: 'mesh' | 'sched',
  extra: string,
  fn: (leader: ServerProcess, follower: ServerProcess) => Promise<T>,
): Promise<T> {
  const pgServer = await startPgTestServer(env, { durable: true });
  const dir = mkdtempSync(join(tmpdir(), `cairn-bench-${service}-pair-`));
  const agents: ServerProcess[] = [];
  const table = `bench_${service}_${randomBytes(3).toString('hex')}`;
  const start = async (name: string, keyFrom?: string) => {
    const a = await startSharedAgent({ service, dir, name, pgUrl: pgServer.url, table, keyFrom, extra });
    agents.push(a);
    return a;
  };
  try {
    const leader = await start('a');
    await untilLeader('a leads', 30_000, leader, leader);
    const follower = await start('b', 'a');
    await untilLeader('b follows', 30_000, follower, leader);
    return await fn(leader, follower);
  } finally {
    for (const a of agents) await a.kill();
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** See the module doc. @throws when an agent does not start or a blocking query does not wake within its 10 s wait. */
export async function measureCrossServerWakeup(n: number, env: NodeJS.ProcessEnv): Promise<WakeupSample[]> {
  const root = randomUUID();
  const acl = `acl {
  enabled = true
  default_policy = "deny"
  tokens { initial_management = "${root}" }
}
`;
  return withAgentPair(env, 'mesh', acl, async (leader, follower) => {
    const headers = { 'X-Mesh-Token': root };
    const samples: WakeupSample[] = [];
    for (let i = 0; i < n; i++) {
      const first = await fetch(`${follower.url}/v1/acl/policies`, { headers });
      await first.arrayBuffer();
      const index = first.headers.get('x-mesh-index');
      const blocked = fetch(`${follower.url}/v1/acl/policies?index=${index}&wait=10s`, { headers }).then(async (r) => {
        await r.arrayBuffer();
        return { at: performance.now(), index: Number(r.headers.get('x-mesh-index')) };
      });
      await new Promise((r) => setTimeout(r, 20)); // the query is waiting on the follower
      const sent = performance.now();
      const w = await put(leader.url, '/v1/acl/policy', { Name: `wake-${i}`, Rules: '' }, { token: root, header: 'X-Mesh-Token' });
      const acked = performance.now();
      if (w.status !== 200) throw new Error(`policy write answered ${w.status}`);
      const woke = await blocked;
      if (!(woke.index > Number(index))) throw new Error('the blocking query returned without the write (its wait ended)');
      samples.push({ wakeMs: woke.at - sent, writeMs: acked - sent });
    }
    return samples;
  });
}

/** See the module doc. @throws when an agent does not start or an event does not arrive within 10 s. */
export async function measureCrossServerEventStream(n: number, env: NodeJS.ProcessEnv): Promise<WakeupSample[]> {
  const root = randomUUID();
  return withAgentPair(env, 'sched', 'acl { enabled = true }\n', async (leader, follower) => {
    const boot = await fetch(`${leader.url}/v1/acl/bootstrap`, { method: 'POST', body: JSON.stringify({ BootstrapSecret: root }) });
    if (boot.status !== 200) throw new Error(`bootstrap answered ${boot.status}`);
    const headers = { 'X-Sched-Token': root };
    const abort = new AbortController();
    try {
      // One stream on the follower; each ACLPolicyUpserted event settles the waiter of its policy.
      const waiting = new Map<string, (at: number) => void>();
      const res = await fetch(`${follower.url}/v1/event/stream?topic=ACLPolicy`, { headers, signal: abort.signal });
      if (res.status !== 200 || !res.body) throw new Error(`event stream answered ${res.status}`);
      const reader = (async () => {
        let buffered = '';
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          const at = performance.now();
          buffered += decoder.decode(chunk, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            const frame = line ? (JSON.parse(line) as { Events?: { Key?: string }[] }) : {};
            for (const e of frame.Events ?? []) waiting.get(e.Key ?? '')?.(at);
          }
        }
      })().catch(() => undefined);

      const samples: WakeupSample[] = [];
      for (let i = 0; i < n; i++) {
        const name = `wake-${i}`;
        const delivered = new Promise<number>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`no event for ${name} within 10 s`)), 10_000);
          waiting.set(name, (at) => {
            clearTimeout(t);
            resolve(at);
          });
        });
        const sent = performance.now();
        const w = await put(leader.url, `/v1/acl/policy/${name}`, { Name: name, Rules: '' }, { token: root, header: 'X-Sched-Token' });
        const acked = performance.now();
        if (w.status !== 200) throw new Error(`policy write answered ${w.status}`);
        samples.push({ wakeMs: (await delivered) - sent, writeMs: acked - sent });
        waiting.delete(name);
      }
      abort.abort();
      await reader;
      return samples;
    } finally {
      abort.abort();
    }
  });
}
