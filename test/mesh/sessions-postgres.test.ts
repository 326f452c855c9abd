/**
 * Sessions on two discovery agents sharing one state on PostgreSQL (issue 16 scope 5): a
 * session created on the follower defaults to the follower's node (not the leader's) and
 * locks a key through it; its TTL runs out on the leader's reaper, which releases the key.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { until } from '../processes.js';
import { call, type TestAgent } from './helpers.js';
import { startPgAgents, type PgAgents } from './pg-agents.js';

describe('sessions on agents sharing PostgreSQL', () => {
  const root = randomUUID();
  // Both agents' clock: real time plus a shift the test moves forward.
  let shiftMs = 0;
  const now = () => Date.now() + shiftMs;
  let pg: PgTestServer;
  let agents: PgAgents | undefined;

  before(async () => {
    pg = await startPgTestServer();
  });
  after(async () => {
    await agents?.stop();
    await pg?.stop();
  });

  it("a follower's session is on its own node; its TTL expires on the leader", { timeout: 60_000 }, async () => {
    agents = await startPgAgents(pg, {
      nodes: ['node-a', 'node-b'],
      acl: { initialManagement: root, agentToken: root },
      agentOptions: { syncIntervalMs: 500, sessionReapIntervalMs: 100, now },
    });
    const [a, b] = agents.agents as [TestAgent, TestAgent];
    const health = async (node: string) => (await call(a.url, 'GET', `/v1/health/node/${node}`, { token: root })).json as Array<{ CheckID: string }>;
    await until('node-b is in the catalog', 15_000, async () => ((await health('node-b')).some((c) => c.CheckID === 'serfHealth') ? true : undefined));

    const created = await call(b.url, 'PUT', '/v1/session/create', { token: root, body: { Name: 'b-lock', TTL: '10s', LockDelay: '0s' } });
    assert.equal(created.status, 200, created.text);
    const id = created.json.ID as string;
    const [s] = (await call(a.url, 'GET', `/v1/session/info/${id}`, { token: root })).json;
    assert.equal(s.Node, 'node-b', "the follower's node, not the leader's");
    const acquired = await call(b.url, 'PUT', `/v1/kv/svc/leader?acquire=${id}`, { token: root, raw: 'b' });
    assert.equal(acquired.json, true, acquired.text);

    shiftMs += 21_000; // past 2 × TTL
    await until('the leader invalidates the session', 10_000, async () =>
      (await call(b.url, 'GET', `/v1/session/info/${id}`, { token: root })).json.length === 0 ? true : undefined,
    );
    const [e] = (await call(b.url, 'GET', '/v1/kv/svc/leader', { token: root })).json;
    assert.equal(e.Session, undefined);
    assert.equal(e.LockIndex, 1);
  });
});
