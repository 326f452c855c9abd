/**
 * CSI plugins (reference/sched.md §4.11, §4.12) against real hostpath plugins on unix
 * sockets: the `plugin` config blocks, fingerprints turned into `csi-plugins` rows and node
 * CSI maps, list and read with their ACLs, health following the plugin (stop, restart),
 * writes only on change, CSIPlugin events, and rows of unconfigured plugins removed at start.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { HOSTPATH_PLUGIN_NAME, HOSTPATH_VENDOR_VERSION } from '../../src/kernel/csi/index.js';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';
import { T } from '../../src/services/sched/state.js';
import { startCsi, volumeBody, type CsiFixture } from './csi.js';
import { assertDenied, clientToken, ROOT, startAgent } from './helpers.js';
import { Stream, until } from './stream.js';

describe('scheduler CSI plugin config', () => {
  it('reads repeated plugin blocks and names the line of a bad one', () => {
    const cfg = parseSchedAgentConfig(
      `data_dir = "/tmp/x"
plugin "hostpath" {
  socket  = "/run/csi/hp.sock"
  type    = "monolith"
  node_id = "n1"
}
plugin "ebs" {
  socket = "/run/csi/ebs-controller.sock"
  type   = "controller"
}
plugin "ebs" {
  socket  = "/run/csi/ebs-node.sock"
  type    = "node"
  node_id = "n1"
}`,
      'sched.hcl',
    );
    assert.deepEqual(cfg.plugins, [
      { id: 'hostpath', socket: '/run/csi/hp.sock', type: 'monolith', nodeId: 'n1' },
      { id: 'ebs', socket: '/run/csi/ebs-controller.sock', type: 'controller' },
      { id: 'ebs', socket: '/run/csi/ebs-node.sock', type: 'node', nodeId: 'n1' },
    ]);
    assert.deepEqual(parseSchedAgentConfig('data_dir = "/tmp/x"', 'a.hcl').plugins, []);
    const bad: [string, string][] = [
      ['plugin "p" {\n  type = "node"\n}', 'b.hcl:2: missing required key "socket" in plugin "p"'],
      ['plugin "p" {\n  socket = "/s"\n  type = "driver"\n}', 'b.hcl:4: "type" must be one of controller, node, monolith (got "driver")'],
      ['plugin "p" {\n  socket = "/s"\n  type = "node"\n  sockets = 1\n}', 'b.hcl:5: unknown key "sockets" in plugin "p"'],
      [
        'plugin "p" {\n  socket = "/a"\n  type = "monolith"\n}\nplugin "p" {\n  socket = "/b"\n  type = "controller"\n}',
        'b.hcl:6: plugin "p" already has a controller endpoint',
      ],
      ['plugin "" {\n  socket = "/a"\n  type = "monolith"\n}', 'b.hcl:2: a plugin block needs a plugin ID as its label'],
    ];
    for (const [text, want] of bad) assert.throws(() => parseSchedAgentConfig(`data_dir = "/tmp/x"\n${text}`, 'b.hcl'), { message: want });
  });
});

describe('scheduler CSI plugins', () => {
  let f: CsiFixture;

  before(async () => {
    f = await startCsi([{ id: 'hostpath' }, { id: 'lister', capabilities: ['LIST_VOLUMES'] }]);
  });
  after(async () => {
    await f?.stop();
  });

  it('lists plugin stubs with type=csi only', async () => {
    const none = await f.req('GET', '/v1/plugins');
    assert.deepEqual([none.status, none.json], [200, []]);
    const host = await f.req('GET', '/v1/plugins?type=host');
    assert.deepEqual([host.status, host.text], [400, 'unsupported plugin type "host": only "csi" is supported']);
    const list = await f.req('GET', '/v1/plugins?type=csi');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.json.map((p: { ID: string }) => p.ID),
      ['hostpath', 'lister'],
    );
    const stub = list.json[0];
    assert.deepEqual(Object.keys(stub), [
      'ID',
      'Provider',
      'ControllerRequired',
      'ControllersHealthy',
      'ControllersExpected',
      'NodesHealthy',
      'NodesExpected',
      'CreateIndex',
      'ModifyIndex',
    ]);
    assert.deepEqual(
      [stub.Provider, stub.ControllerRequired, stub.ControllersHealthy, stub.ControllersExpected, stub.NodesHealthy, stub.NodesExpected],
      [HOSTPATH_PLUGIN_NAME, true, 1, 1, 1, 1],
    );
    assert.ok(Number(list.headers.get('x-sched-index')) >= stub.ModifyIndex);
    const prefixed = await f.req('GET', '/v1/plugins?type=csi&prefix=lis');
    assert.deepEqual(
      prefixed.json.map((p: { ID: string }) => p.ID),
      ['lister'],
    );
  });

  it('reads a plugin with its controller and node fingerprints', async () => {
    const r = await f.req('GET', '/v1/plugin/csi/hostpath');
    assert.equal(r.status, 200, r.text);
    const p = r.json;
    assert.deepEqual([p.ID, p.Provider, p.Version, p.ControllerRequired, p.Allocations], ['hostpath', HOSTPATH_PLUGIN_NAME, HOSTPATH_VENDOR_VERSION, true, []]);
    assert.deepEqual(Object.keys(p.Controllers), [f.nodeId]);
    assert.deepEqual(Object.keys(p.Nodes), [f.nodeId]);
    const c = p.Controllers[f.nodeId];
    assert.deepEqual(
      [c.PluginID, c.Healthy, c.HealthDescription, c.Provider, c.RequiresControllerPlugin, c.RequiresTopologies, c.NodeInfo],
      ['hostpath', true, 'healthy', HOSTPATH_PLUGIN_NAME, true, true, null],
    );
    assert.match(c.UpdateTime, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(c.ControllerInfo, {
      SupportsCreateDelete: true,
      SupportsAttachDetach: true,
      SupportsListVolumes: true,
      SupportsGetCapacity: true,
      SupportsCreateDeleteSnapshot: true,
      SupportsListSnapshots: true,
      SupportsClone: true,
      SupportsReadOnlyAttach: true,
      SupportsExpand: true,
      SupportsListVolumesAttachedNodes: true,
      SupportsCondition: false,
      SupportsGet: false,
    });
    const n = p.Nodes[f.nodeId];
    assert.equal(n.ControllerInfo, null);
    assert.equal(n.NodeInfo.ID, f.csiNode('hostpath'));
    assert.equal(n.NodeInfo.MaxVolumes, 0);
    assert.deepEqual(Object.keys(n.NodeInfo.AccessibleTopology), ['Segments']);
    assert.equal(r.headers.get('x-sched-index'), String(p.ModifyIndex));

    const lister = (await f.req('GET', '/v1/plugin/csi/lister')).json.Controllers[f.nodeId].ControllerInfo;
    assert.deepEqual([lister.SupportsListVolumes, lister.SupportsCreateDelete, lister.SupportsAttachDetach], [true, false, false]);

    const missing = await f.req('GET', '/v1/plugin/csi/nope');
    assert.deepEqual([missing.status, missing.text], [404, 'plugin not found']);
  });

  it('puts the plugins on the node they serve', async () => {
    const node = (await f.req('GET', `/v1/node/${f.nodeId}`)).json;
    assert.deepEqual(Object.keys(node.CSIControllerPlugins).sort(), ['hostpath', 'lister']);
    assert.deepEqual(Object.keys(node.CSINodePlugins).sort(), ['hostpath', 'lister']);
    assert.equal(node.CSINodePlugins.hostpath.NodeInfo.ID, f.csiNode('hostpath'));
  });

  it('writes nothing while nothing changes', async () => {
    const before = f.agent.state.tableIndex(T.csiPlugins, T.nodes);
    await f.agent.plugins.probeNow();
    await f.agent.plugins.probeNow();
    assert.equal(f.agent.state.tableIndex(T.csiPlugins, T.nodes), before);
  });

  it('follows the plugin health: stopped, then back; volumes follow it', async () => {
    const reg = await f.req('PUT', '/v1/volume/csi/health', { body: volumeBody('health', 'hostpath', { ExternalID: 'ext-health' }) });
    assert.equal(reg.status, 404, 'the volume does not exist in the plugin');
    const created = await f.req('PUT', '/v1/volume/csi/health/create', { body: volumeBody('health', 'hostpath') });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.Volumes[0].Schedulable, true);

    const stream = await Stream.open(f.url, `topic=CSIPlugin:hostpath&index=${f.agent.state.index + 1}`);
    try {
      await f.plugins.get('hostpath')!.close();
      await f.agent.plugins.probeNow();
      const down = (await f.req('GET', '/v1/plugin/csi/hostpath')).json;
      assert.deepEqual([down.ControllersHealthy, down.NodesHealthy, down.ControllersExpected], [0, 0, 1]);
      assert.equal(down.Controllers[f.nodeId].Healthy, false);
      assert.match(down.Controllers[f.nodeId].HealthDescription, /^plugin unreachable: /);
      assert.equal(down.Controllers[f.nodeId].ControllerInfo.SupportsCreateDelete, true, 'the last fingerprint is kept');
      const vol = (await f.req('GET', '/v1/volume/csi/health')).json;
      assert.deepEqual([vol.Schedulable, vol.ControllersHealthy, vol.NodesHealthy], [false, 0, 0]);
      const del = await f.req('DELETE', '/v1/volume/csi/health/delete');
      assert.deepEqual([del.status, del.text], [503, 'no healthy controllers for CSI plugin "hostpath"']);

      const frame = await stream.frame();
      const ev = frame!.Events!.find((e) => e.Topic === 'CSIPlugin')!;
      assert.deepEqual([ev.Type, ev.Key, ev.FilterKeys, ev.Namespace], ['NodeRegistration', 'hostpath', ['hostpath'], '']);
      assert.equal(ev.Payload.Plugin.ControllersHealthy, 0);

      await f.restart({ id: 'hostpath' });
      await f.agent.plugins.probeNow();
      const up = (await f.req('GET', '/v1/plugin/csi/hostpath')).json;
      assert.deepEqual([up.ControllersHealthy, up.NodesHealthy, up.Controllers[f.nodeId].HealthDescription], [1, 1, 'healthy']);
      assert.equal((await f.req('GET', '/v1/volume/csi/health')).json.Schedulable, true);
      const back = await stream.frame();
      assert.equal(back!.Events!.find((e) => e.Topic === 'CSIPlugin')!.Payload.Plugin.ControllersHealthy, 1);
    } finally {
      stream.close();
    }
  });

  it('probes on its own every interval', async () => {
    await f.plugins.get('lister')!.close();
    await until(
      () => f.agent.state.get<{ ControllersHealthy: number }>(T.csiPlugins, 'lister')?.ControllersHealthy === 0,
      5000,
      'the probe to see the plugin gone',
    );
    await f.restart({ id: 'lister', capabilities: ['LIST_VOLUMES'] });
    await until(() => f.agent.state.get<{ ControllersHealthy: number }>(T.csiPlugins, 'lister')?.ControllersHealthy === 1, 5000, 'the probe to see it back');
  });

  it('needs plugin:list to list and plugin:read to read', async () => {
    const none = await clientToken(f.url, 'no-plugin', 'node { policy = "read" }');
    const lister = await clientToken(f.url, 'plugin-list', 'plugin { policy = "list" }');
    const reader = await clientToken(f.url, 'plugin-read', 'plugin { policy = "read" }');
    assertDenied(await f.req('GET', '/v1/plugins?type=csi', { token: none.secret }), 'list without plugin');
    assertDenied(await f.req('GET', '/v1/plugin/csi/hostpath', { token: none.secret }), 'read without plugin');
    assertDenied(await f.req('GET', '/v1/plugins?type=csi', { token: null }), 'anonymous');
    assert.equal((await f.req('GET', '/v1/plugins?type=csi', { token: lister.secret })).status, 200);
    assertDenied(await f.req('GET', '/v1/plugin/csi/hostpath', { token: lister.secret }), 'read with plugin:list');
    assert.equal((await f.req('GET', '/v1/plugins?type=csi', { token: reader.secret })).status, 200);
    assert.equal((await f.req('GET', '/v1/plugin/csi/hostpath', { token: reader.secret })).status, 200);
  });
});

describe('scheduler CSI plugin rows across restarts', () => {
  it('removes the rows of plugins no longer configured', async () => {
    const f = await startCsi([{ id: 'gone' }]);
    const dataDir = f.agent.dataDir;
    assert.ok(f.agent.state.get(T.csiPlugins, 'gone'));
    await f.agent.close();
    const again = await startAgent({ dataDir }, { root: ROOT });
    try {
      assert.equal(again.state.get(T.csiPlugins, 'gone'), undefined);
    } finally {
      await again.close();
      for (const p of f.plugins.values()) await p.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(f.dir, { recursive: true, force: true });
    }
  });
});
