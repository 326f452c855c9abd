/**
 * End to end with real processes (issue 19 "Tests and measurements"): one server and two
 * client-only agents (`client { servers = [...] }`, no server block), each a `cairn sched
 * agent` process. A service job of 3 raw_exec tasks spreads over both clients; a task killed
 * from outside is restarted by its policy; its log is followed through the server (`cairn
 * sched alloc logs -f`, forwarded to the node that runs it), and `ls` and a restart go the same
 * way; a batch job runs to `complete`;
 * a drain moves the allocations of one client to the other; `kill -9` of a client makes its
 * node `down` after the heartbeat TTL (`server.min_heartbeat_ttl`), its allocations `lost` and
 * replaced on the other client. Every wait is on a condition, never a fixed sleep.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killTasksUnder, spawnCairn, startCairnProcess, until, type ServerProcess } from '../processes.js';
import { shTask } from './client-helpers.js';
import { call } from './helpers.js';

/** A task printing a counter every 0.2 s, writing its PID first, ending when its agent is gone (no orphan outlives a `kill -9`ed client). */
const TICKER = 'echo $$ > "$CAIRN_TASK_DIR/pid"; i=0; while kill -0 $PPID 2>/dev/null; do echo "tick $i"; i=$((i+1)); sleep 0.2; done';

describe('scheduler end to end: a server and two client-only agents', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-e2e-'));
  const procs: ServerProcess[] = [];
  after(async () => {
    for (const p of procs) await p.kill();
    killTasksUnder(root); // tasks of agents killed with SIGKILL
    rmSync(root, { recursive: true, force: true });
  });

  /** Writes `name.hcl` under the test directory and starts `cairn sched agent` on it. */
  async function agent(name: string, hcl: string, ready: string): Promise<ServerProcess> {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent.hcl'), `data_dir = "${dir}/data"\nname = "${name}"\nports { http = 0 }\n${hcl}`);
    const p = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, ready);
    procs.push(p);
    return p;
  }

  it('places, restarts, streams logs, completes batch work, drains and replaces what a dead client ran', { timeout: 150_000 }, async () => {
    const server = await agent(
      'server',
      'acl { enabled = true }\nserver {\n  min_heartbeat_ttl = "2s"\n  heartbeat_grace = "2s"\n}',
      'scheduler service listening',
    );
    const base = server.url;
    const boot = await call(base, 'POST', '/v1/acl/bootstrap');
    assert.equal(boot.status, 200, boot.text);
    const token = boot.json.SecretID as string;
    const serverAddr = new URL(base).host;
    const clientHcl = (servers: string[]) =>
      `client {\n  enabled = true\n  servers = ${JSON.stringify(servers)}\n  token = "${token}"\n  cpu_total_compute = 4000\n  memory_total_mb = 4096\n}\nplugin "raw_exec" {\n  config { enabled = true }\n}`;
    // Client a lists an address nobody answers first: it fails over to the next server.
    const [ca, cb] = await Promise.all([
      agent('a', clientHcl(['127.0.0.1:1', serverAddr]), 'scheduler client-only agent listening'),
      agent('b', clientHcl([serverAddr]), 'scheduler client-only agent listening'),
    ]);
    const nodes = await until('two ready nodes', 30_000, async () => {
      const r = await call(base, 'GET', '/v1/nodes', { token });
      const ready = (r.json as { Status: string; Name: string; ID: string }[]).filter((n) => n.Status === 'ready');
      return ready.length === 2 ? Object.fromEntries(ready.map((n) => [n.Name, n.ID])) : undefined;
    });
    // A client-only agent serves only the client endpoints, and those only to the servers (its node secret).
    assert.equal((await call(ca.url, 'GET', '/v1/jobs', { token })).status, 404);

    // A service job of 3 tasks, spread over both clients by job anti-affinity.
    const small = { Resources: { CPU: 20, MemoryMB: 16 } };
    const web = {
      ID: 'web',
      Type: 'service',
      TaskGroups: [{ Name: 'g', Count: 3, RestartPolicy: { Attempts: 3, Interval: 600e9, Delay: 0.2e9, Mode: 'fail' }, Tasks: [shTask('t', TICKER, small)] }],
    };
    assert.equal((await call(base, 'POST', '/v1/jobs', { token, body: { Job: web } })).status, 200);
    type Alloc = {
      ID: string;
      NodeID: string;
      ClientStatus: string;
      DesiredStatus: string;
      TaskStates: Record<string, { State: string; Restarts: number }> | null;
    };
    const live = async (): Promise<Alloc[]> =>
      ((await call(base, 'GET', '/v1/job/web/allocations', { token })).json as Alloc[]).filter(
        (a) => a.DesiredStatus === 'run' && a.ClientStatus === 'running',
      );
    const running = await until('3 web allocations running', 30_000, async () => {
      const l = await live();
      return l.length === 3 ? l : undefined;
    });
    assert.deepEqual(new Set(running.map((a) => a.NodeID)), new Set([nodes.a, nodes.b]));

    // Logs followed through the server (forwarded to the node running it) while the task prints.
    const onB = running.find((a) => a.NodeID === nodes.b)!;
    const env = { SCHED_ADDR: base, SCHED_TOKEN: token };
    const follow = spawnCairn(['sched', 'alloc', 'logs', '-f', onB.ID, 't'], env);
    try {
      const first = await until('a first tick', 20_000, () => (/tick \d+/.test(follow.out.stdout) ? follow.out.stdout : undefined));
      await until('more ticks printed later', 20_000, () => (follow.out.stdout.length > first.length + 6 ? true : undefined));
    } finally {
      follow.child.kill('SIGTERM');
      await follow.exited;
    }
    // The node's own endpoint refuses a user's token: only a server (with the node's secret) is let in.
    assert.equal((await call(cb.url, 'GET', `/v1/client/fs/logs/${onB.ID}?task=t&plain=true`, { token })).status, 403);

    // Kill a task from outside: its restart policy starts it again.
    const pidText = await call(base, 'GET', `/v1/client/fs/cat/${onB.ID}?path=t/local/pid`, { token });
    assert.equal(pidText.status, 200, pidText.text);
    process.kill(Number(pidText.text.trim()), 'SIGKILL');
    await until('the killed task restarted', 20_000, async () => {
      const a = (await call(base, 'GET', `/v1/allocation/${onB.ID}`, { token })).json as Alloc;
      return a.TaskStates?.t?.Restarts === 1 && a.TaskStates.t.State === 'running' && a.ClientStatus === 'running' ? true : undefined;
    });

    // The other client endpoints through the server: ls, and a restart of the task.
    const ls = await call(base, 'GET', `/v1/client/fs/ls/${onB.ID}?path=t`, { token });
    assert.equal(ls.status, 200, ls.text);
    assert.ok((ls.json as { Name: string }[]).some((e) => e.Name === 'local'));
    const restart = await call(base, 'POST', `/v1/client/allocation/${onB.ID}/restart`, { token, body: { TaskName: 't' } });
    assert.equal(restart.status, 200, restart.text);
    await until('the task restarted on request', 20_000, async () => {
      const a = (await call(base, 'GET', `/v1/allocation/${onB.ID}`, { token })).json as Alloc;
      return a.TaskStates?.t?.Restarts === 2 && a.TaskStates.t.State === 'running' ? true : undefined;
    });

    // A batch job runs to complete.
    const batch = { ID: 'once', Type: 'batch', TaskGroups: [{ Name: 'g', Count: 1, Tasks: [shTask('t', 'echo done', small)] }] };
    assert.equal((await call(base, 'POST', '/v1/jobs', { token, body: { Job: batch } })).status, 200);
    await until('the batch job dead with a complete allocation', 30_000, async () => {
      const j = (await call(base, 'GET', '/v1/job/once', { token })).json as { Status: string };
      const allocs = (await call(base, 'GET', '/v1/job/once/allocations', { token })).json as Alloc[];
      return j.Status === 'dead' && allocs.length === 1 && allocs[0]!.ClientStatus === 'complete' ? true : undefined;
    });

    // Drain b: its allocations move to a; then b is eligible again.
    const drain = await call(base, 'POST', `/v1/node/${nodes.b}/drain`, { token, body: { DrainSpec: { Deadline: 60e9 }, Meta: null } });
    assert.equal(drain.status, 200, drain.text);
    await until('every web allocation on a', 40_000, async () => {
      const l = await live();
      return l.length === 3 && l.every((a) => a.NodeID === nodes.a) ? true : undefined;
    });
    assert.equal((await call(base, 'POST', `/v1/node/${nodes.b}/drain`, { token, body: { DrainSpec: null, MarkEligible: true } })).status, 200);
    await until('b eligible', 10_000, async () =>
      (await call(base, 'GET', `/v1/node/${nodes.b}`, { token })).json.SchedulingEligibility === 'eligible' ? true : undefined,
    );

    // kill -9 client a: its node goes down after the TTL, its allocations are lost and replaced on b.
    await ca.kill();
    await until('node a down', 30_000, async () => ((await call(base, 'GET', `/v1/node/${nodes.a}`, { token })).json.Status === 'down' ? true : undefined));
    await until("a's allocations lost and 3 replacements running on b", 40_000, async () => {
      const all = (await call(base, 'GET', '/v1/job/web/allocations', { token })).json as Alloc[];
      const lost = all.filter((a) => a.NodeID === nodes.a && a.ClientStatus === 'lost');
      const l = await live();
      return lost.length === 3 && l.length === 3 && l.every((a) => a.NodeID === nodes.b) ? true : undefined;
    });
  });

  it("sends many allocations' status reports without exceeding the servers' connections per client", { timeout: 120_000 }, async () => {
    // 30 connections per address (the test's own calls share it): the client's watch, heartbeat and reports (8 at most) fit; one request per allocation at once does not.
    const server = await agent('capped', 'limits { http_max_conns_per_client = 30 }', 'scheduler service listening');
    const base = server.url;
    const c = await agent(
      'capped-client',
      `client {\n  enabled = true\n  servers = ["${new URL(base).host}"]\n}\nplugin "raw_exec" {\n  config { enabled = true }\n}`,
      'scheduler client-only agent listening',
    );
    await until(
      'the node ready',
      30_000,
      async () => ((await call(base, 'GET', '/v1/nodes')).json as { Status: string }[]).some((n) => n.Status === 'ready') || undefined,
    );
    const batch = {
      ID: 'many',
      Type: 'batch',
      TaskGroups: [{ Name: 'g', Count: 50, Tasks: [shTask('t', 'echo done', { Resources: { CPU: 20, MemoryMB: 16 } })] }],
    };
    assert.equal((await call(base, 'POST', '/v1/jobs', { body: { Job: batch } })).status, 200);
    await until('50 complete allocations', 60_000, async () => {
      const allocs = (await call(base, 'GET', '/v1/job/many/allocations')).json as { ClientStatus: string }[];
      return allocs.length === 50 && allocs.every((x) => x.ClientStatus === 'complete') ? true : undefined;
    });
    assert.deepEqual(
      c.log.filter((l) => l.includes('allocation update failed')),
      [],
      'no status report refused',
    );
  });
});
