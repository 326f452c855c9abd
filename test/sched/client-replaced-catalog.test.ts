/**
 * What a client removes for a lost allocation it replaces (client/services/replaced-alloc.ts;
 * issue 26 scope 3) against a real discovery agent: the allocation's registrations in the
 * agent beside it and those the catalog holds on another node (as the agent of a dead
 * client's host synced them), and nothing else — not another allocation's, not a service
 * of another owner carrying the same `Meta` — with the token rights docs/deploy.md gives a
 * client (`service:write`, `agent:read`, `node:read`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeAllocInstances } from '../../src/services/sched/client/services/replaced-alloc.js';
import { call, startSdkAgent, type SdkAgent } from '../mesh/helpers.js';
import { until } from '../processes.js';

const ROOT = '5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d';
const LOST = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const LIVE = '1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9';

describe('scheduler client: the registrations of a replaced allocation', () => {
  let mesh: SdkAgent;
  /** A token with the rights docs/deploy.md gives a client's `consul` token. */
  let clientToken = '';
  before(async () => {
    mesh = await startSdkAgent({ initialManagement: ROOT });
    const rules = 'service_prefix "" { policy = "write" }\nagent_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }';
    const policy = await call(mesh.agent.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: 'sched-client', Rules: rules } });
    const token = await call(mesh.agent.url, 'PUT', '/v1/acl/token', { token: ROOT, body: { Policies: [{ ID: policy.json.ID }] } });
    assert.equal(token.status, 200, token.text);
    clientToken = token.json.SecretID;
  });
  after(async () => {
    await mesh.stop();
  });

  const put = async (path: string, body: unknown) => {
    const r = await call(mesh.agent.url, 'PUT', `/v1/${path}`, { token: ROOT, body });
    assert.equal(r.status, 200, r.text);
  };
  const meta = (alloc: string) => ({ 'external-source': 'cairn', 'cairn-alloc-id': alloc, 'cairn-node-id': 'n1' });
  /** A service on the catalog node `node` (another host's agent synced it). */
  const onNode = (node: string, id: string, name: string, alloc: string) =>
    put('catalog/register', { Node: node, Address: '10.0.0.9', Service: { ID: id, Service: name, Port: 8080, Meta: meta(alloc) } });
  /** `<node>/<service ID>` of every catalog instance but the agent's own `consul` service. */
  const serviceIds = async () => {
    const names = Object.keys((await mesh.client(ROOT).catalog.services()).value).filter((n) => n !== 'consul');
    const all = await Promise.all(names.map(async (n) => (await mesh.client(ROOT).catalog.service(n)).items.map((i) => `${i.Node}/${i.ServiceID}`)));
    return all.flat().sort();
  };

  it("removes the allocation's registrations from the agent and the catalog, and nothing else", async () => {
    await put('agent/service/register', { ID: `_cairn-task-${LOST}-t-web-http`, Name: 'web', Port: 20001, Meta: meta(LOST) });
    await put('agent/service/register', { ID: `_cairn-task-${LIVE}-t-web-http`, Name: 'web', Port: 20002, Meta: meta(LIVE) });
    await onNode('dead-host', `_cairn-task-${LOST}-group-g-api-http`, 'api', LOST);
    await onNode('dead-host', `_cairn-task-${LIVE}-group-g-api-http`, 'api', LIVE);
    // A user's own service that copies the Meta: not a registration of Cairn's.
    await onNode('dead-host', 'users-own', 'api', LOST);
    const agentNode = 'test'; // test/mesh/helpers.ts names the agent's node
    await until('the agent synced to the catalog', 5_000, async () =>
      (await serviceIds()).filter((id) => id.startsWith(`${agentNode}/`)).length === 2 ? true : undefined,
    );

    const removed = await removeAllocInstances(mesh.client(clientToken), LOST);
    assert.deepEqual(removed.sort(), [`_cairn-task-${LOST}-group-g-api-http`, `_cairn-task-${LOST}-t-web-http`]);
    assert.deepEqual(Object.keys(await mesh.client(ROOT).agent.services()), [`_cairn-task-${LIVE}-t-web-http`]);
    const left = [`dead-host/_cairn-task-${LIVE}-group-g-api-http`, 'dead-host/users-own', `${agentNode}/_cairn-task-${LIVE}-t-web-http`].sort();
    await until("the catalog holding only what is not the lost allocation's", 5_000, async () =>
      (await serviceIds()).join() === left.join() ? true : undefined,
    );
    // Again: nothing left to remove.
    assert.deepEqual(await removeAllocInstances(mesh.client(clientToken), LOST), []);
  });

  it('refuses an allocation ID that is not a UUID (it goes into a filter expression)', async () => {
    await assert.rejects(removeAllocInstances(mesh.client(ROOT), 'x" or "1" == "1'), /is not a UUID/);
  });
});
