/**
 * Several scheduler servers of one region sharing one state on PostgreSQL (issue 8 scope 3),
 * as real `cairn sched agent` processes on a throwaway cluster: one leader (the advisory
 * lock) that the followers name, writes sent to a follower (forwarded to the leader) and
 * readable at once on another follower, a blocking query and an event stream on a
 * follower that wake for a write made through another server, `kill -9` of the leader under
 * a write load (a follower leads within 5 s; every acknowledged write is there), a periodic
 * job launching once per cron tick across a second `kill -9` of the leader, and a
 * clear startup error for a foreign key file. In-process: a reload of a follower's state
 * ends its open event streams with a resubscribe line; ACL replication and the CSI plugin
 * registry run on the leader of a region only, and move to the next one when it stops.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHostpathPlugin, type HostpathPlugin } from '../../src/kernel/csi/index.js';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import type { SchedAgentConfig } from '../../src/services/sched/config.js';
import { until, type ServerProcess } from '../processes.js';
import { hostOf, killLeaderUnderLoad, leaderOf, startSharedAgent, untilLeader } from '../shared-agents.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { Stream } from './stream.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-sched-ha-'));
let pgServer: PgTestServer;
const running: ServerProcess[] = [];
before(async () => {
  pgServer = await startPgTestServer();
});
after(async () => {
  for (const p of running) await p.kill();
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts server `name` of region `global` on `table` (ACLs on), with `keyFrom`'s key file when given. */
async function startSched(name: string, table: string, o: { keyFrom?: string } = {}): Promise<ServerProcess> {
  const p = await startSharedAgent({ service: 'sched', dir, name, pgUrl: pgServer.url, table, keyFrom: o.keyFrom, extra: 'acl { enabled = true }\n' });
  running.push(p);
  return p;
}

const policy = (name: string) => ({ Name: name, Rules: 'namespace "default" { policy = "read" }' });

describe('scheduler servers sharing PostgreSQL', () => {
  const table = `cairn_sched_${randomBytes(4).toString('hex')}`;
  const root = randomUUID();
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;

  it('one leader that the followers name; writes sent to a follower are readable at once on another', { timeout: 60_000 }, async () => {
    a = await startSched('a', table);
    await untilLeader('server a leads', 10_000, a, a);
    b = await startSched('b', table, { keyFrom: 'a' });
    c = await startSched('c', table, { keyFrom: 'a' });
    for (const p of [b, c]) await untilLeader('the follower names the leader', 5000, p, a);
    const peers = await call(b.url, 'GET', '/v1/status/peers');
    assert.deepEqual(peers.json, [hostOf(a), hostOf(b)].sort(), 'a follower knows the leader and itself');

    const boot = await call(b.url, 'POST', '/v1/acl/bootstrap', { body: { BootstrapSecret: root } });
    assert.equal(boot.status, 200, `bootstrap through a follower: ${boot.text}`);
    assert.equal((await call(c.url, 'GET', '/v1/namespace/default', { token: root })).status, 200, 'the leader made the default namespace');

    for (let i = 0; i < 10; i++) {
      const made = await call(b.url, 'PUT', `/v1/acl/policy/p${i}`, { token: root, body: policy(`p${i}`) });
      assert.equal(made.status, 200, made.text);
      // Read-after-write on another follower, with no wait.
      const back = await call(c.url, 'GET', `/v1/acl/policy/p${i}`, { token: root });
      assert.equal(back.status, 200, `policy p${i} is readable on server c at once: ${back.text}`);
      assert.equal(back.headers.get('x-sched-knownleader'), 'true');
      assert.match(back.headers.get('x-sched-lastcontact') ?? '', /^\d+$/);
    }
    const token = await call(c.url, 'POST', '/v1/acl/token', { token: root, body: { Name: 't', Type: 'client', Policies: ['p0'] } });
    assert.equal(token.status, 200, token.text);
    const self = await call(b.url, 'GET', '/v1/acl/token/self', { token: token.json.SecretID });
    assert.equal(self.status, 200, `a token made through one follower works on another at once: ${self.text}`);
  });

  it('a blocking query and an event stream on a follower wake for a write made through another server', { timeout: 30_000 }, async () => {
    const first = await call(c.url, 'GET', '/v1/acl/policies', { token: root });
    const index = first.headers.get('x-sched-index');
    const stream = await Stream.open(c.url, `topic=ACLPolicy&index=${Number(index) + 1}`, root);
    try {
      assert.equal(stream.res.status, 200);
      const started = Date.now();
      const blocked = call(c.url, 'GET', `/v1/acl/policies?index=${index}&wait=20s`, { token: root });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await call(a.url, 'PUT', '/v1/acl/policy/wake', { token: root, body: policy('wake') })).status, 200);
      const woke = await blocked;
      assert.equal(woke.status, 200);
      assert.ok(Number(woke.headers.get('x-sched-index')) > Number(index));
      assert.ok((woke.json as { Name: string }[]).some((p) => p.Name === 'wake'));
      const frame = await stream.frame(10_000);
      assert.deepEqual(
        frame?.Events?.map((e) => [e.Topic, e.Type, e.Key]),
        [['ACLPolicy', 'ACLPolicyUpserted', 'wake']],
      );
      assert.ok(Date.now() - started < 10_000, 'woken by the write, not by the end of the wait');
    } finally {
      stream.close();
    }
  });

  it('kill -9 of the leader under a write load: a follower leads within 5 s and every acknowledged write is there', { timeout: 60_000 }, async (t) => {
    // The helper fails unless a follower leads within 5 s of the kill.
    const { acknowledged, answers } = await killLeaderUnderLoad({
      leader: a,
      followers: [b, c],
      write: (p, name) => call(p.url, 'PUT', `/v1/acl/policy/${name}`, { token: root, body: policy(name) }),
      failover: [{ status: 500, text: /^No cluster leader$/ }],
    });
    t.diagnostic(`write answers: ${JSON.stringify(answers)}`);
    for (const p of [b, c]) {
      const list = await call(p.url, 'GET', '/v1/acl/policies', { token: root });
      const names = new Set((list.json as { Name: string }[]).map((x) => x.Name));
      assert.deepEqual(
        acknowledged.filter((n) => !names.has(n)),
        [],
        `every acknowledged write is on ${p.url}`,
      );
    }
  });

  it('a periodic job launches once per tick across a kill -9 of the leader', { timeout: 60_000 }, async () => {
    // After the kill above, b or c leads; the job is registered through the other.
    const leader = (await leaderOf(b)) === hostOf(b) ? b : c;
    const follower = leader === b ? c : b;
    const job = {
      ID: 'tick',
      Type: 'batch',
      Datacenters: ['dc1'],
      Periodic: { Specs: ['*/2 * * * * *'] },
      TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/true' } }] }],
    };
    assert.equal((await call(follower.url, 'POST', '/v1/jobs', { token: root, body: { Job: job } })).status, 200);
    const launches = async () =>
      ((await call(follower.url, 'GET', '/v1/jobs?prefix=tick/periodic-', { token: root })).json as { ID: string }[]).map((j) => Number(j.ID.split('-').pop()));
    await until('two launches by the first leader', 20_000, async () => ((await launches()).length >= 2 ? true : undefined));
    await leader.kill();
    await untilLeader('the follower leads', 10_000, follower, follower);
    const before = (await launches()).length;
    const all = await until('two more launches by the new leader', 20_000, async () => {
      const l = await launches();
      return l.length >= before + 2 ? l : undefined;
    });
    // Children are named by their launch second: every one is a tick of the cron (even seconds), none twice.
    assert.deepEqual(
      all.filter((t) => t % 2 !== 0),
      [],
      `launch times ${all.join(', ')}`,
    );
    assert.equal(new Set(all).size, all.length);
    const sorted = [...all].sort((x, y) => x - y);
    assert.ok(sorted.every((t, i) => i === 0 || t > sorted[i - 1]!));
  });

  it('a server whose key file differs from the one the shared state was written with fails at start, clearly', { timeout: 30_000 }, async () => {
    await assert.rejects(
      startSched('stranger', table),
      /is encrypted with the state key of fingerprint hmac-sha256:[0-9a-f]{32}, and this agent has none .*copy sched-state\.key from the data directory of the agent that made it/s,
    );
    assert.ok(!existsSync(join(dir, 'stranger', 'sched-state.key')), 'the refused agent made no key file');
  });
});

describe('event streams on a server whose state is reloaded', () => {
  const table = `cairn_sched_reload_${randomBytes(4).toString('hex')}`;
  let agent: TestAgent | undefined;
  after(async () => agent?.stop());

  it('end with a resubscribe line naming the next index; a stream opened again is told of the gap', { timeout: 30_000 }, async () => {
    agent = await startAgent({ storage: { connectionUrl: pgServer.url, table, maxParallel: 2 } }, { root: null });
    const leading = agent;
    await until('the agent leads', 10_000, () => (leading.leadership?.isLeader ? true : undefined));
    const root = randomUUID();
    assert.equal((await call(agent.url, 'POST', '/v1/acl/bootstrap', { body: { BootstrapSecret: root } })).status, 200);
    const stream = await Stream.open(agent.url, 'topic=ACLPolicy', root);
    try {
      const made = await call(agent.url, 'PUT', '/v1/acl/policy/before', { token: root, body: policy('before') });
      assert.equal(made.status, 200, made.text);
      const seen = await stream.frame();
      assert.equal(seen?.Events?.[0]?.Key, 'before');
      await agent.state.reload();
      const end = await stream.end();
      assert.equal(
        end?.Error,
        `subscription closed by server, client should resubscribe: the server reloaded its state; resubscribe with index=${seen!.Index! + 1}`,
      );
    } finally {
      stream.close();
    }
    const again = await Stream.open(agent.url, `topic=ACLPolicy&index=1`, root);
    try {
      assert.equal(again.res.status, 200);
      assert.ok(again.res.headers.get('x-sched-event-gap') !== null, 'the batches before the reload are gone: the reply says so');
      assert.equal((await call(agent.url, 'PUT', '/v1/acl/policy/after', { token: root, body: policy('after') })).status, 200);
      assert.equal((await again.frame())?.Events?.[0]?.Key, 'after', 'events after the reload stream as before');
    } finally {
      again.close();
    }
  });
});

describe('the leader-only work of a region moves with the leader', () => {
  const table = `cairn_sched_europe_${randomBytes(4).toString('hex')}`;
  const work = join(dir, 'europe');
  let global: TestAgent | undefined;
  let plugin: HostpathPlugin | undefined;
  const agents: TestAgent[] = [];
  after(async () => {
    for (const x of agents) await x.stop().catch(() => undefined);
    await global?.stop();
    await plugin?.close();
  });

  it('only the leader replicates ACLs and drives the CSI plugins; followers ask it; both move when it stops', { timeout: 60_000 }, async () => {
    mkdirSync(work, { recursive: true });
    global = await startAgent();
    const socket = join(work, 'hp.sock');
    plugin = await startHostpathPlugin({ socket, root: join(work, 'hp-root'), nodeId: 'hp-node' });
    const europe = (dataDir: string): Partial<SchedAgentConfig> => ({
      dataDir,
      region: 'europe',
      authoritativeRegion: 'global',
      regionAddresses: { global: new URL(global!.url).host },
      acl: { enabled: true, replicationToken: ROOT },
      storage: { connectionUrl: pgServer.url, table, maxParallel: 2 },
      plugins: [{ id: 'hp', socket, type: 'monolith', nodeId: 'n1' }],
      pluginProbeIntervalMs: 200,
    });
    const opts = { root: null, replicationWaitMs: 2000, replicationBackoffMs: 50 };
    mkdirSync(join(work, 'x'));
    const x = await startAgent(europe(join(work, 'x')), opts);
    agents.push(x);
    await until('x leads', 10_000, () => (x.leadership?.isLeader ? true : undefined));
    mkdirSync(join(work, 'y'));
    copyFileSync(join(work, 'x', 'sched-state.key'), join(work, 'y', 'sched-state.key'));
    const y = await startAgent(europe(join(work, 'y')), opts);
    agents.push(y);
    // A server learns who leads at its first look at the lock, just after it starts.
    await until('y names the leader', 5000, () => (y.leadership?.leaderAddress === new URL(x.url).host ? true : undefined));

    // The leader replicated the authoritative region's root token into the shared state.
    await until('the root token reaches y', 10_000, async () =>
      (await call(y.url, 'GET', '/v1/acl/token/self', { token: ROOT })).status === 200 ? true : undefined,
    );
    const status = await call(y.url, 'GET', '/v1/acl/replication', { token: ROOT });
    assert.equal(
      (status.json as { Running: boolean } | undefined)?.Running,
      true,
      `a follower reports the leader's replication: ${status.status} ${status.text}`,
    );
    assert.equal(y.replicator?.status().Running, false, 'the follower itself does not replicate');

    const healthy = async (a: TestAgent) => (await call(a.url, 'GET', '/v1/plugin/csi/hp', { token: ROOT })).json as { ControllersHealthy: number } | undefined;
    await until('the leader fingerprinted the plugin', 10_000, async () => ((await healthy(y))?.ControllersHealthy === 1 ? true : undefined));
    assert.ok(x.plugins.controller('hp'), 'the leader drives the plugin');
    assert.equal(y.plugins.controller('hp'), undefined, 'a follower does not');
    const listed = await call(y.url, 'GET', '/v1/volumes/external?plugin_id=hp&per_page=10', { token: ROOT });
    assert.equal(listed.status, 200, `a plugin read on a follower is answered by the leader: ${listed.text}`);

    await x.stop();
    agents.shift();
    await until('y leads', 5000, () => (y.leadership?.isLeader ? true : undefined));
    await until('the new leader drives the plugin', 5000, () => (y.plugins.controller('hp') ? true : undefined));
    const made = await call(global.url, 'PUT', '/v1/acl/policy/after-failover', { token: ROOT, body: policy('after-failover') });
    assert.equal(made.status, 200, made.text);
    await until('replication resumed on the new leader', 10_000, async () =>
      (await call(y.url, 'GET', '/v1/acl/policy/after-failover', { token: ROOT })).status === 200 ? true : undefined,
    );
    assert.equal(y.replicator?.status().Running, true);
  });
});
