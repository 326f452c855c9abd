/**
 * Two discovery agents sharing one state on PostgreSQL (issue 16 scope 3: "on PostgreSQL
 * every agent syncs into the shared state"): each registers its own node; a service
 * registered with the follower's agent API stays on the follower (the agent endpoints are
 * not forwarded to the leader) and reaches the shared catalog through the leader, with the
 * agent token; its deregistration goes the same way.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { until } from '../processes.js';
import { call, type TestAgent } from './helpers.js';
import { startPgAgents, type PgAgents } from './pg-agents.js';

describe('discovery agents on PostgreSQL sync their own nodes', () => {
  const root = randomUUID();
  let pg: PgTestServer;
  let agents: PgAgents | undefined;

  before(async () => {
    pg = await startPgTestServer();
  });
  after(async () => {
    await agents?.stop();
    await pg?.stop();
  });

  it('the follower registers its node and its services through the leader', { timeout: 60_000 }, async () => {
    agents = await startPgAgents(pg, {
      nodes: ['node-a', 'node-b'],
      acl: { initialManagement: root, agentToken: root },
      agentOptions: { syncIntervalMs: 500 },
    });
    const [a, b] = agents.agents as [TestAgent, TestAgent];

    const nodes = async () => (await call(a.url, 'GET', '/v1/catalog/nodes', { token: root })).json.map((n: { Node: string }) => n.Node);
    await until('both nodes are in the catalog', 15_000, async () => ((await nodes()).join() === 'node-a,node-b' ? true : undefined));

    const reg = await call(b.url, 'PUT', '/v1/agent/service/register', {
      token: root,
      body: { Name: 'pay', Port: 7000, Check: { TTL: '1h', Status: 'passing' } },
    });
    assert.equal(reg.status, 200, reg.text);
    assert.deepEqual(Object.keys((await call(b.url, 'GET', '/v1/agent/services', { token: root })).json), ['pay'], 'held by the follower');
    assert.deepEqual((await call(a.url, 'GET', '/v1/agent/services', { token: root })).json, {}, 'not by the leader');
    const instances = await until('the service reaches the shared catalog', 15_000, async () => {
      const r = (await call(a.url, 'GET', '/v1/health/service/pay?passing', { token: root })).json;
      return r.length === 1 ? r : undefined;
    });
    assert.deepEqual([instances[0].Node.Node, instances[0].Service.Port], ['node-b', 7000]);
    assert.deepEqual(
      instances[0].Checks.map((c: { CheckID: string }) => c.CheckID),
      ['serfHealth', 'service:pay'],
    );

    assert.equal((await call(b.url, 'PUT', '/v1/agent/service/deregister/pay', { token: root })).status, 200);
    await until('the deregistration reaches the shared catalog', 15_000, async () =>
      (await call(b.url, 'GET', '/v1/catalog/service/pay', { token: root })).json.length === 0 ? true : undefined,
    );
  });
});
