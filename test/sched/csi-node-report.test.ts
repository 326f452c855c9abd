/**
 * CSI node plugins a node reports in its registration (issue 19 scope 4, csi/node-report.ts):
 * a node no plugin endpoint of the server serves (a client-only agent) puts its
 * `CSINodePlugins` into the plugin rows (`Nodes`, `NodesHealthy`), a re-registration without
 * the plugin takes it out again (the row goes with its last node), a purge of the node too,
 * a malformed report is 400 naming the field with nothing written, and the node-facing
 * volume read takes only the node's own secret.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

describe('CSI node plugins reported by nodes', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  const info = (healthy: boolean, maxVolumes = 0) => ({
    PluginID: 'rep',
    Healthy: healthy,
    HealthDescription: healthy ? 'healthy' : 'plugin unreachable',
    Provider: 'cairn.hostpath',
    ProviderVersion: '1.0.0',
    NodeInfo: { ID: 'plugin-node', MaxVolumes: maxVolumes, AccessibleTopology: { Segments: { zone: 'z1' } }, RequiresNodeStageVolume: true },
  });
  const register = (id: string, plugins: unknown) =>
    call(a.url, 'PUT', '/v1/node/register', {
      token: ROOT,
      body: {
        Node: {
          ID: id,
          SecretID: `s-${id}`,
          Datacenter: 'dc1',
          Name: id.slice(0, 8),
          Attributes: { 'os.name': 'linux' },
          Status: 'ready',
          ...(plugins !== undefined && { CSINodePlugins: plugins }),
        },
      },
    });
  const plugin = () => call(a.url, 'GET', '/v1/plugin/csi/rep', { token: ROOT });

  it('keeps the plugin rows in step with what nodes report', async () => {
    const [n1, n2] = [randomUUID(), randomUUID()];
    assert.equal((await register(n1, { rep: info(true, 3) })).status, 200);
    assert.equal((await register(n2, { rep: info(false) })).status, 200);
    let p = (await plugin()).json;
    assert.deepEqual([p.NodesHealthy, p.NodesExpected, p.Provider], [1, 2, 'cairn.hostpath']);
    assert.deepEqual(p.Nodes[n1].NodeInfo, {
      ID: 'plugin-node',
      MaxVolumes: 3,
      AccessibleTopology: { Segments: { zone: 'z1' } },
      RequiresNodeStageVolume: true,
      SupportsStats: false,
      SupportsExpand: false,
      SupportsCondition: false,
    });
    assert.equal(p.Nodes[n1].Healthy, true);

    // Malformed: 400 naming the field; the stored plugin is unchanged.
    const bad = await register(n1, { rep: { ...info(true), NodeInfo: { ID: 'x', MaxVolumes: -1 } } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /CSINodePlugins\["rep"\]\.NodeInfo\.MaxVolumes: must not be negative/);
    const wrongId = await register(n1, { rep: { ...info(true), PluginID: 'other' } });
    assert.equal(wrongId.status, 400);
    assert.match(wrongId.text, /CSINodePlugins\["rep"\]\.PluginID: "other" is not its key/);
    assert.equal((await plugin()).json.Nodes[n1].NodeInfo.MaxVolumes, 3);

    // n2 no longer reports it; n1 is purged: the row goes with its last node.
    assert.equal((await register(n2, undefined)).status, 200);
    p = (await plugin()).json;
    assert.deepEqual(Object.keys(p.Nodes), [n1]);
    assert.equal((await call(a.url, 'POST', `/v1/node/${n1}/purge`, { token: ROOT })).status, 200);
    assert.equal((await plugin()).status, 404);
  });

  it("serves the node-facing volume read only to the node's own secret", async () => {
    const n = randomUUID();
    assert.equal((await register(n, undefined)).status, 200);
    assert.equal((await call(a.url, 'GET', `/v1/node/${n}/volume/csi/none`, { token: ROOT })).status, 403);
    const own = await call(a.url, 'GET', `/v1/node/${n}/volume/csi/none`, { token: `s-${n}` });
    assert.equal(own.status, 404, own.text);
  });
});
