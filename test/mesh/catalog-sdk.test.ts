/**
 * `MeshClient.agent`, `.catalog` and `.health` against a real discovery agent on loopback:
 * a service registered through the agent reaches the catalog, `health.service` with
 * `passing` follows its TTL check, a blocking `health.service` returns after the check
 * changes with a higher index, tag / node-meta filters go out as the reference's query
 * parameters, agent health answers 503 as a status rather than an error, and refusals reject.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MeshApiError, type MeshClient } from '../../src/sdk/index.js';
import { until } from '../processes.js';
import { startSdkAgent, type SdkAgent } from './helpers.js';

const ROOT = '2b7e2a51-43c4-4f0e-8a39-6f1d0c9e7a11';

describe('MeshClient.agent / catalog / health', () => {
  let s: SdkAgent;
  let mesh: MeshClient;

  before(async () => {
    s = await startSdkAgent({ initialManagement: ROOT }, {}, { syncIntervalMs: 200 });
    mesh = s.client(ROOT);
  });
  after(() => s?.stop());

  it('register via the agent: agent.services, catalog.services / service / node, datacenters, self and members', async () => {
    await mesh.agent.registerService({
      Name: 'web',
      ID: 'web-1',
      Port: 8080,
      Address: '10.1.0.5',
      Tags: ['v1', 'primary'],
      Meta: { team: 'a' },
      Check: { TTL: '60s' },
    });
    const local = await mesh.agent.services();
    assert.deepEqual([local['web-1'].Service, local['web-1'].Port, local['web-1'].Tags, local['web-1'].Meta], ['web', 8080, ['v1', 'primary'], { team: 'a' }]);
    assert.equal((await mesh.agent.service('web-1')).Address, '10.1.0.5');
    assert.equal((await mesh.agent.checks())['service:web-1'].Status, 'critical');

    const listed = await until('web reaches the catalog', 5000, async () => {
      const r = await mesh.catalog.services();
      return r.value.web ? r : undefined;
    });
    assert.deepEqual(listed.value.web, ['primary', 'v1']);
    assert.ok(listed.index > 0);
    const instances = await mesh.catalog.service('web', { tag: 'v1' });
    assert.deepEqual(
      instances.items.map((s) => [s.Node, s.ServiceID, s.ServicePort, s.ServiceAddress]),
      [['test', 'web-1', 8080, '10.1.0.5']],
    );
    assert.equal((await mesh.catalog.service('web', { tag: ['v1', 'v2'] })).items.length, 0, 'every tag must match');
    assert.equal((await mesh.catalog.service('web', { filter: 'ServicePort == 8080' })).items.length, 1);

    const nodes = await mesh.catalog.nodes();
    assert.deepEqual(
      nodes.items.map((n) => n.Node),
      ['test'],
    );
    assert.equal((await mesh.catalog.nodes({ nodeMeta: { rack: 'none' } })).items.length, 0);
    const node = await mesh.catalog.node('test');
    assert.equal(node.value?.Services['web-1'].Service, 'web');
    assert.equal((await mesh.catalog.node('nowhere')).value, null);
    assert.equal(
      (await mesh.catalog.nodeServices('test')).value.Services.some((s) => s.ID === 'web-1'),
      true,
    );
    await assert.rejects(mesh.catalog.nodeServices('nowhere'), (e: unknown) => e instanceof MeshApiError && e.status === 404);
    assert.deepEqual(await mesh.catalog.datacenters(), ['dc1']);
    assert.equal((await mesh.agent.self()).Config.NodeName, 'test');
    assert.deepEqual(
      (await mesh.agent.members()).map((m) => [m.Name, m.Status]),
      [['test', 1]],
    );
  });

  it('health.service with passing follows the TTL check; a blocking call returns after the change', async () => {
    assert.equal((await mesh.health.service('web', { passing: true })).items.length, 0, 'the TTL check starts critical');
    const all = await mesh.health.service('web');
    assert.equal(all.items.length, 1);
    assert.ok(all.items[0].Checks.some((c) => c.CheckID === 'service:web-1' && c.Status === 'critical'));
    const agentHealth = await mesh.agent.serviceHealth('web');
    assert.deepEqual([agentHealth.status, agentHealth.items.length], ['critical', 1], 'a 503 answer is a status, not an error');
    assert.deepEqual(await mesh.agent.serviceHealth('none'), { status: undefined, items: [] });

    const blocked = mesh.health.service('web', { passing: true, index: all.index, wait: '20s' });
    await mesh.agent.passTtl('service:web-1', 'all good');
    const woke = await blocked;
    assert.ok(woke.index > all.index, `index ${woke.index} > ${all.index}`);
    const passing = await until('the pass reaches the catalog', 5000, async () => {
      const r = await mesh.health.service('web', { passing: true });
      return r.items.length === 1 ? r : undefined;
    });
    assert.equal(passing.items[0].Checks.find((c) => c.CheckID === 'service:web-1')?.Output, 'all good');
    assert.ok((await mesh.health.checks('web')).items.some((c) => c.CheckID === 'service:web-1'));
    assert.ok((await mesh.health.state('passing')).items.some((c) => c.CheckID === 'service:web-1'));
    assert.ok((await mesh.health.node('test')).items.some((c) => c.CheckID === 'serfHealth'));
    assert.equal((await mesh.agent.serviceHealth('web')).status, 'passing');
  });

  it('catalog register / deregister; agent deregister; refusals reject with the service text', async () => {
    await mesh.catalog.register({ Node: 'ext', Address: '192.0.2.1', Service: { ID: 'db-1', Service: 'db', Port: 5432 } });
    assert.deepEqual(
      (await mesh.catalog.service('db')).items.map((s) => s.Node),
      ['ext'],
    );
    await mesh.catalog.deregister({ Node: 'ext' });
    assert.equal((await mesh.catalog.service('db')).items.length, 0);

    const anonymous = s.client();
    await assert.rejects(
      anonymous.agent.registerService({ Name: 'web' }),
      (e: unknown) => e instanceof MeshApiError && e.status === 403 && /service:write/.test(e.message),
    );
    await assert.rejects(
      mesh.agent.registerService({ Name: '' }),
      (e: unknown) => e instanceof MeshApiError && e.status === 400 && /Missing service name/.test(e.message),
    );
    assert.equal((await anonymous.catalog.nodes()).items.length, 0, 'the anonymous token reads no node');

    await mesh.agent.deregisterService('web-1');
    assert.deepEqual(await mesh.agent.services(), {});
    await assert.rejects(mesh.agent.deregisterService('web-1'), (e: unknown) => e instanceof MeshApiError && e.status === 404);
  });
});
