/**
 * Several discovery agents of one datacenter sharing one state on PostgreSQL (issue 8
 * scope 3), as real `cairn mesh agent` processes on a throwaway cluster: one leader (the
 * advisory lock), followers that forward writes to it and serve reads after a read
 * barrier (read-after-write on any agent), blocking queries that wake on a follower for a
 * write made elsewhere, `kill -9` of the leader under a write load (a follower leads
 * within 5 s; every acknowledged write is there), ACL replication that moves with the
 * leader of a secondary datacenter, and a clear startup error for a foreign key file.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { until, type ServerProcess } from '../processes.js';
import { killLeaderUnderLoad, startSharedAgent, untilLeader } from '../shared-agents.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-mesh-ha-'));
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

/** Starts agent `name` of `datacenter` (default dc1) on `table`, with `keyFrom`'s key file when given. */
async function startMesh(name: string, table: string, o: { datacenter?: string; extra?: string; keyFrom?: string } = {}): Promise<ServerProcess> {
  const extra = `datacenter = "${o.datacenter ?? 'dc1'}"\n${o.extra ?? ''}`;
  const p = await startSharedAgent({ service: 'mesh', dir, name, pgUrl: pgServer.url, table, keyFrom: o.keyFrom, extra });
  running.push(p);
  return p;
}

describe('discovery agents sharing PostgreSQL', () => {
  const table = `cairn_mesh_${randomBytes(4).toString('hex')}`;
  const root = randomUUID();
  const acl = `acl {
  enabled = true
  default_policy = "deny"
  tokens { initial_management = "${root}" }
}`;
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;

  it('one leader; followers know it, forward writes to it, and read their writes back at once', { timeout: 60_000 }, async () => {
    a = await startMesh('a', table, { extra: acl });
    await untilLeader('agent a leads', 10_000, a, a);
    b = await startMesh('b', table, { extra: acl, keyFrom: 'a' });
    c = await startMesh('c', table, { extra: acl, keyFrom: 'a' });
    for (const p of [b, c]) await untilLeader('the follower names the leader', 5000, p, a);

    const read = await call(c.url, 'GET', '/v1/acl/policies', { token: root });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('x-mesh-knownleader'), 'true');
    assert.match(read.headers.get('x-mesh-lastcontact') ?? '', /^\d+$/);
    assert.ok(
      (read.json as { Name: string }[]).some((p) => p.Name === 'global-management'),
      'the leader bootstrapped the built-in policy; followers have it',
    );

    for (let i = 0; i < 10; i++) {
      const made = await call(b.url, 'PUT', '/v1/acl/policy', { token: root, body: { Name: `p${i}`, Rules: 'key_prefix "" { policy = "read" }' } });
      assert.equal(made.status, 200, made.text);
      const id = (made.json as { ID: string }).ID;
      // Read-after-write on another follower, with no wait.
      const back = await call(c.url, 'GET', `/v1/acl/policy/${id}`, { token: root });
      assert.equal(back.status, 200, `policy p${i} is readable on agent c at once: ${back.text}`);
      assert.equal((back.json as { Name: string }).Name, `p${i}`);
    }
  });

  it('a blocking query on one follower wakes for a write made through another agent', { timeout: 30_000 }, async () => {
    const first = await call(c.url, 'GET', '/v1/acl/policies', { token: root });
    const index = first.headers.get('x-mesh-index');
    const started = Date.now();
    const blocked = call(c.url, 'GET', `/v1/acl/policies?index=${index}&wait=20s`, { token: root });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await call(a.url, 'PUT', '/v1/acl/policy', { token: root, body: { Name: 'wake', Rules: '' } })).status, 200);
    const woke = await blocked;
    assert.equal(woke.status, 200);
    assert.ok(Number(woke.headers.get('x-mesh-index')) > Number(index));
    assert.ok((woke.json as { Name: string }[]).some((p) => p.Name === 'wake'));
    assert.ok(Date.now() - started < 10_000, 'woken by the write, not by the end of the wait');
  });

  it('kill -9 of the leader under a write load: a follower leads within 5 s and every acknowledged write is there', { timeout: 60_000 }, async (t) => {
    // The helper fails unless a follower leads within 5 s of the kill.
    const { acknowledged, answers } = await killLeaderUnderLoad({
      leader: a,
      followers: [b, c],
      write: (p, name) => call(p.url, 'PUT', '/v1/acl/policy', { token: root, body: { Name: name, Rules: '' } }),
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

  it('an agent whose key file differs from the one the shared state was written with fails at start, clearly', { timeout: 30_000 }, async () => {
    await assert.rejects(
      startMesh('stranger', table, { extra: acl }),
      /is encrypted with the state key of fingerprint hmac-sha256:[0-9a-f]{32}, and this agent has none .*copy mesh-state\.key from the data directory of the agent that made it/s,
    );
    assert.ok(!existsSync(join(dir, 'stranger', 'mesh-state.key')), 'the refused agent made no key file');
  });
});

describe('an unreachable or wrong connection_url', () => {
  it('stops the agent at start with an error naming user, host and database (never the password), and leaves no state behind', async () => {
    const data = join(dir, 'unreachable');
    const url = new URL(pgServer.url);
    for (const [connectionUrl, why] of [
      ['postgres://cairn:s3cret@127.0.0.1:1/cairn', /cairn@127\.0\.0\.1:1\/cairn: cannot connect/],
      [`postgres://${url.username}:wrong-s3cret@${url.host}/postgres`, /password authentication failed/],
    ] as const) {
      await assert.rejects(
        startAgent({}, { dataDir: data, storage: { connectionUrl, table: 'cairn_mesh_never', maxParallel: 1 } }),
        (err: Error) => why.test(err.message) && !err.message.includes('s3cret'),
      );
      assert.ok(!existsSync(join(data, 'mesh-state.key')), 'no key file was made');
      assert.deepEqual(existsSync(data) ? readdirSync(data) : [], []);
    }
  });
});

describe('ACL replication follows the leader of a secondary datacenter', () => {
  const table = `cairn_mesh_dc2_${randomBytes(4).toString('hex')}`;
  let primary: TestAgent;
  const root = randomUUID();

  after(async () => primary?.stop());

  it('the leader of dc2 replicates; when it dies, the new leader resumes replication', { timeout: 60_000 }, async () => {
    primary = await startAgent({ initialManagement: root });
    const dc1 = new URL(primary.url).host;
    const extra = `primary_datacenter = "dc1"
wan_addresses { dc1 = "${dc1}" }
acl {
  enabled = true
  default_policy = "deny"
  enable_token_replication = true
  tokens { replication = "${root}" }
}`;
    const x = await startMesh('x', table, { datacenter: 'dc2', extra });
    await untilLeader('x leads', 10_000, x, x);
    const y = await startMesh('y', table, { datacenter: 'dc2', extra, keyFrom: 'x' });
    const make = async (name: string) =>
      assert.equal((await call(primary.url, 'PUT', '/v1/acl/policy', { token: root, body: { Name: name, Rules: '' } })).status, 200);
    const replicated = (p: ServerProcess, name: string) =>
      until(`${name} replicated to ${p.url}`, 15_000, async () => {
        const r = await call(p.url, 'GET', '/v1/acl/policies', { token: root });
        return r.status === 200 && (r.json as { Name: string }[]).some((q) => q.Name === name) ? true : undefined;
      });
    await make('before-failover');
    await replicated(y, 'before-failover');
    const status = await call(y.url, 'GET', '/v1/acl/replication', { token: root });
    assert.equal((status.json as { Running: boolean }).Running, true, "a follower reports the leader's replication");

    await x.kill();
    await untilLeader('y leads', 5000, y, y);
    await make('after-failover');
    await replicated(y, 'after-failover');
    const after = await call(y.url, 'GET', '/v1/acl/replication', { token: root });
    assert.equal((after.json as { Running: boolean; SourceDatacenter: string }).Running, true);
  });
});
