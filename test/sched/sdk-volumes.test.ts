/**
 * The SDK's CSI methods (src/sdk/sched-volumes.ts) against a real scheduler agent and real
 * hostpath CSI plugins on unix sockets (test/sched/csi.ts): create, register, read, list with
 * paging (`X-Sched-NextToken`), filter, plugin and prefix narrowing and a blocking wait;
 * external volumes and snapshots paged by the plugin's tokens; deregister (force), delete,
 * detach; plugins; errors as `SchedApiError`; the `X-Sched-CSI-Secrets` header as sent.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HOSTPATH_PLUGIN_NAME } from '../../src/kernel/csi/index.js';
import { encodeCsiSecrets, SchedApiError, SchedClient, type SchedVolumeSpec } from '../../src/sdk/index.js';
import { allocWith, startCsi, type CsiFixture } from './csi.js';
import { ROOT } from './helpers.js';

const RW = [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }] as const;

/** A create spec of volume `id` on plugin `plugin` with `over`. */
const spec = (id: string, plugin = 'hostpath', over: Partial<SchedVolumeSpec> = {}): SchedVolumeSpec => ({
  ID: id,
  Name: id,
  PluginID: plugin,
  RequestedCapabilities: RW,
  ...over,
});

/** `fn` rejects with a SchedApiError of `status` whose message matches `text`. */
async function rejectsWith(fn: () => Promise<unknown>, status: number, text: RegExp | string): Promise<void> {
  await assert.rejects(fn, (err: unknown) => {
    assert.ok(err instanceof SchedApiError, String(err));
    assert.equal(err.status, status, err.message);
    if (typeof text === 'string') assert.equal(err.message, text);
    else assert.match(err.message, text);
    return true;
  });
}

describe('SDK: scheduler CSI volumes, snapshots and plugins', () => {
  let f: CsiFixture;
  let sched: SchedClient;

  before(async () => {
    f = await startCsi([{ id: 'hostpath' }, { id: 'lister', capabilities: ['LIST_VOLUMES', 'CREATE_DELETE_VOLUME'] }]);
    sched = new SchedClient({ address: f.url, token: ROOT });
    await sched.call('PUT', '/namespace/prod', { body: { Name: 'prod' } });
  });
  after(async () => {
    await sched?.close();
    await f?.stop();
  });

  it('creates a volume in its plugin, reads it without secrets, and a repeat reconciles', async () => {
    const made = await sched.csi.createVolume(
      spec('db', 'hostpath', {
        Secrets: { password: 'hunter2' },
        Parameters: { tier: 'gold' },
        MountOptions: { FsType: 'ext4', MountFlags: ['noatime'] },
        RequestedCapacityMin: 1 << 20,
      }),
    );
    assert.equal(made.Warnings, '');
    const v = made.Volumes[0];
    assert.deepEqual([v.ID, v.Namespace, v.PluginID, v.Provider, v.Schedulable, v.Secrets], ['db', 'default', 'hostpath', HOSTPATH_PLUGIN_NAME, true, null]);
    assert.match(v.ExternalID, /./);
    assert.ok(v.Capacity >= 1 << 20, `capacity ${v.Capacity}`);
    const { data: read, index } = await sched.csi.readVolume('db');
    assert.ok(index >= made.Index, 'the read carries X-Sched-Index');
    assert.deepEqual(
      [read.ExternalID, read.Parameters, read.MountOptions, read.RequestedCapabilities],
      [v.ExternalID, { tier: 'gold' }, { FsType: 'ext4', MountFlags: ['[REDACTED]'] }, RW],
    );
    assert.deepEqual([read.ReadAllocs, read.WriteAllocs, read.Allocations, read.Secrets], [{}, {}, [], null]);
    const again = await sched.csi.createVolume(
      spec('db', 'hostpath', {
        Secrets: { password: 'hunter2' },
        Parameters: { tier: 'gold' },
        MountOptions: { FsType: 'ext4', MountFlags: ['noatime'] },
        RequestedCapacityMin: 1 << 20,
      }),
    );
    assert.equal(again.Volumes[0].ExternalID, v.ExternalID);
    await rejectsWith(() => sched.csi.readVolume('nope'), 404, 'volume not found');
    await rejectsWith(
      () => sched.csi.createVolume(spec('bad', 'hostpath', { RequestedCapabilities: [] })),
      400,
      /^validation: must include at least one capability block/,
    );
  });

  it('registers a volume that exists in the plugin, in another namespace', async () => {
    const outside = await f
      .client('hostpath')
      .createVolume({ name: 'outside', volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER', accessType: { mount: { fsType: '', mountFlags: [] } } }] });
    const r = await sched.csi.registerVolume(spec('outside', 'hostpath', { ExternalID: outside.volumeId }), { namespace: 'prod' });
    assert.deepEqual([r.Volumes[0].ID, r.Volumes[0].Namespace, r.Volumes[0].ExternalID], ['outside', 'prod', outside.volumeId]);
    await rejectsWith(() => sched.csi.readVolume('outside'), 404, 'volume not found');
    assert.equal((await sched.csi.readVolume('outside', { namespace: 'prod' })).data.ExternalID, outside.volumeId);
    const prodClient = new SchedClient({ address: f.url, token: ROOT, namespace: 'prod' });
    try {
      assert.equal((await prodClient.csi.readVolume('outside')).data.Namespace, 'prod', 'the client namespace is the default');
      assert.deepEqual(
        (await prodClient.csi.listVolumes()).data.map((s) => s.ID),
        ['outside'],
      );
    } finally {
      await prodClient.close();
    }
    await rejectsWith(
      () => sched.csi.registerVolume(spec('ghost', 'hostpath', { ExternalID: 'no-such-volume' })),
      404,
      /could not validate volume "no-such-volume"/,
    );
  });

  it('lists stubs page by page with X-Sched-NextToken, filtered and narrowed', async () => {
    for (const [i, tier] of ['gold', 'silver', 'gold', 'silver', 'gold'].entries())
      await sched.csi.createVolume(spec(`page-${i}`, 'hostpath', { Parameters: { tier } }));
    const all = await sched.csi.listVolumes({ prefix: 'page-' });
    assert.deepEqual(
      all.data.map((v) => v.ID),
      ['page-0', 'page-1', 'page-2', 'page-3', 'page-4'],
    );
    assert.equal(all.nextToken, undefined, 'no paging without perPage');
    assert.ok(all.index > 0);
    const stub = all.data[0];
    assert.deepEqual([stub.CurrentReaders, stub.CurrentWriters, stub.Schedulable, stub.ResourceExhausted], [0, 0, true, 0]);
    assert.ok(!('Parameters' in stub), 'a stub, not the volume');

    const seen: string[] = [];
    const tokens: (string | undefined)[] = [];
    let next: string | undefined;
    do {
      const page = await sched.csi.listVolumes({ prefix: 'page-', perPage: 2, nextToken: next });
      assert.ok(page.data.length <= 2);
      seen.push(...page.data.map((v) => v.ID));
      next = page.nextToken;
      tokens.push(next);
    } while (next !== undefined);
    assert.deepEqual(seen, ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    assert.deepEqual(tokens, ['default.page-2', 'default.page-4', undefined], 'the <namespace>.<id> tokens of the reference');

    const gold = await sched.csi.listVolumes({ filter: 'Parameters.tier == "gold"', perPage: 2 });
    assert.deepEqual(
      gold.data.map((v) => v.ID),
      ['db', 'page-0'],
    );
    const rest = await sched.csi.listVolumes({ filter: 'Parameters.tier == "gold"', perPage: 2, nextToken: gold.nextToken });
    assert.deepEqual([rest.data.map((v) => v.ID), rest.nextToken], [['page-2', 'page-4'], undefined]);
    assert.deepEqual((await sched.csi.listVolumes({ pluginId: 'lister' })).data, []);
    const everywhere = await sched.csi.listVolumes({ namespace: '*', prefix: 'outside' });
    assert.deepEqual(
      everywhere.data.map((v) => `${v.Namespace}/${v.ID}`),
      ['prod/outside'],
    );
    await rejectsWith(() => sched.csi.listVolumes({ filter: 'Parameters.tier ==' }), 400, /filter/);
  });

  it('waits for a change with a blocking list', async () => {
    const { index } = await sched.csi.listVolumes({ prefix: 'late' });
    const waiting = sched.csi.listVolumes({ prefix: 'late', index, wait: '10s' });
    await new Promise((r) => setTimeout(r, 100));
    await sched.csi.createVolume(spec('late'));
    const woke = await waiting;
    assert.ok(woke.index > index);
    assert.deepEqual(
      woke.data.map((v) => v.ID),
      ['late'],
    );
  });

  it("pages the plugin's own volumes and snapshots by its tokens", async () => {
    const ext: string[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const page = await sched.csi.listExternalVolumes({ pluginId: 'hostpath', perPage: 3, nextToken: next });
      assert.ok(page.data.length <= 3);
      ext.push(...page.data.map((v) => v.ExternalID));
      next = page.nextToken;
      pages++;
    } while (next !== undefined);
    const registered = (await sched.csi.listVolumes({ namespace: '*' })).data.filter((v) => v.PluginID === 'hostpath');
    assert.ok(pages >= 3, `${pages} pages`);
    for (const v of registered) assert.ok(ext.includes(v.ExternalID), `${v.ID} is in the plugin`);
    const one = (await sched.csi.listExternalVolumes({ pluginId: 'hostpath', perPage: 100 })).data.find((v) => v.ExternalID === registered[0].ExternalID)!;
    assert.deepEqual([typeof one.CapacityBytes, one.IsAbnormal, one.Status], ['number', false, '']);

    const made = await sched.csi.createSnapshot([
      { SourceVolumeID: 'db', Name: 'db-snap-1', Parameters: { why: 'test' } },
      { SourceVolumeID: 'db', Name: 'db-snap-2', Secrets: { password: 'hunter2' } },
    ]);
    assert.equal(made.length, 2);
    assert.deepEqual(
      made.map((s) => [s.SourceVolumeID, s.IsReady, s.PluginID]),
      [
        ['db', false, 'hostpath'],
        ['db', false, 'hostpath'],
      ],
    );
    assert.ok(made.every((s) => s.ID !== '' && typeof s.CreateTime === 'number' && s.SizeBytes >= 0));
    const listed: string[] = [];
    let token: string | undefined;
    do {
      const page = await sched.csi.listSnapshots({ pluginId: 'hostpath', perPage: 1, nextToken: token, secrets: { password: 'hunter2' } });
      assert.ok(page.data.length <= 1);
      for (const s of page.data) assert.deepEqual([s.PluginID, s.ExternalSourceVolumeID], ['hostpath', (await sched.csi.readVolume('db')).data.ExternalID]);
      listed.push(...page.data.map((s) => s.ID));
      token = page.nextToken;
    } while (token !== undefined);
    assert.deepEqual(new Set(listed), new Set(made.map((s) => s.ID)));
    await sched.csi.deleteSnapshot({ pluginId: 'hostpath', snapshotId: made[0].ID, secrets: { password: 'hunter2' } });
    assert.deepEqual(
      (await sched.csi.listSnapshots({ pluginId: 'hostpath', perPage: 10 })).data.map((s) => s.ID),
      [made[1].ID],
    );
    await sched.csi.deleteSnapshot({ pluginId: 'hostpath', snapshotId: made[1].ID });
    await rejectsWith(() => sched.csi.createSnapshot({ SourceVolumeID: 'nope', Name: 'x' }), 400, 'no such volume "nope"');
    await rejectsWith(() => sched.csi.listSnapshots({ pluginId: 'lister', perPage: 5 }), 400, /LIST_SNAPSHOTS/);
  });

  it("detaches, deregisters (force) and deletes, with the server's refusals as SchedApiError", async () => {
    await sched.csi.createVolume(spec('claimed'));
    await sched.csi.detachVolume('claimed', f.nodeId);
    await rejectsWith(() => sched.csi.detachVolume('nope', f.nodeId), 404, 'volume not found: nope');
    await allocWith(f, { data: { Source: 'claimed' } });
    assert.equal((await sched.csi.readVolume('claimed')).data.Allocations.length, 1);
    await rejectsWith(() => sched.csi.deregisterVolume('claimed'), 409, 'volume in use: claimed');
    await rejectsWith(() => sched.csi.deregisterVolume('claimed', { force: true }), 409, /^volume in use: claimed: allocation ".+" is not terminal$/);
    await rejectsWith(() => sched.csi.deleteVolume('claimed'), 409, 'volume in use: claimed');
    await rejectsWith(() => sched.csi.detachVolume('claimed', f.nodeId), 409, /claimed by an allocation on node/);

    const { data: db } = await sched.csi.readVolume('db');
    await sched.csi.deregisterVolume('page-0', { force: true });
    await rejectsWith(() => sched.csi.readVolume('page-0'), 404, 'volume not found');
    await rejectsWith(() => sched.csi.deregisterVolume('page-0'), 404, 'volume not found: page-0');

    await sched.csi.deleteVolume('db', { secrets: { password: 'hunter2', extra: 'a=b' } });
    await rejectsWith(() => sched.csi.readVolume('db'), 404, 'volume not found');
    const left = (await sched.csi.listExternalVolumes({ pluginId: 'hostpath', perPage: 100 })).data.map((v) => v.ExternalID);
    assert.ok(!left.includes(db.ExternalID), 'deleted in the plugin too');
    await assert.rejects(() => sched.csi.deleteVolume('page-1', { secrets: { bad: 'a,b' } }), /invalid CSI secret "bad"/);
    assert.ok((await sched.csi.readVolume('page-1')).data, 'nothing was sent');
  });

  it('lists and reads plugins with their endpoints', async () => {
    const { data: plugins } = await sched.csi.listPlugins();
    assert.deepEqual(
      plugins.map((p) => [p.ID, p.Provider, p.ControllerRequired, p.ControllersHealthy, p.NodesHealthy]),
      [
        ['hostpath', HOSTPATH_PLUGIN_NAME, true, 1, 1],
        ['lister', HOSTPATH_PLUGIN_NAME, true, 1, 1],
      ],
    );
    assert.deepEqual(
      (await sched.csi.listPlugins({ prefix: 'lis' })).data.map((p) => p.ID),
      ['lister'],
    );
    const { data: p, index } = await sched.csi.readPlugin('hostpath');
    assert.ok(index > 0);
    const c = p.Controllers[f.nodeId];
    assert.deepEqual([c.Healthy, c.ControllerInfo?.SupportsCreateDelete, c.ControllerInfo?.SupportsListSnapshots], [true, true, true]);
    assert.equal(p.Nodes[f.nodeId].NodeInfo?.ID, f.csiNode('hostpath'));
    assert.equal((await sched.csi.readPlugin('lister')).data.Controllers[f.nodeId].ControllerInfo?.SupportsCreateDeleteSnapshot, false);
    await rejectsWith(() => sched.csi.readPlugin('nope'), 404, 'plugin not found');
  });

  it('sends the secrets header and reads the paging header as the spec names them', async () => {
    const seen: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];
    const server = createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers });
      req.resume();
      if (req.url?.startsWith('/v1/volumes?')) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-sched-index': '7', 'x-sched-nexttoken': 'default.b' });
        res.end('[]');
      } else res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = new SchedClient({ address: `127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't', namespace: 'team' });
    try {
      await c.csi.deleteVolume('a b', { secrets: { user: 'u', token: 'x=y' } });
      await c.csi.listSnapshots({ pluginId: 'hp', perPage: 5, secrets: { k: 'v' } }).catch(() => undefined);
      await c.csi.deleteSnapshot({ pluginId: 'hp', snapshotId: 'snap-1' });
      assert.deepEqual(await c.csi.listVolumes({ perPage: 1, nodeId: 'ab', filter: 'ID == "a"' }), { data: [], index: 7, nextToken: 'default.b' });
      await c.csi.detachVolume('v', 'node-1', { namespace: 'other' });
      await c.csi.deregisterVolume('v', { force: true });
    } finally {
      await c.close();
      server.close();
    }
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.headers['x-sched-csi-secrets'], s.headers['x-sched-token']]),
      [
        ['DELETE', '/v1/volume/csi/a%20b/delete?namespace=team', 'user=u,token=x=y', 't'],
        ['GET', '/v1/volumes/snapshot?namespace=team&plugin_id=hp&per_page=5', 'k=v', 't'],
        ['DELETE', '/v1/volumes/snapshot?namespace=team&plugin_id=hp&snapshot_id=snap-1', undefined, 't'],
        ['GET', `/v1/volumes?namespace=team&type=csi&node_id=ab&per_page=1&filter=${encodeURIComponent('ID == "a"').replace(/%20/g, '+')}`, undefined, 't'],
        ['DELETE', '/v1/volume/csi/v/detach?namespace=other&node=node-1', undefined, 't'],
        ['DELETE', '/v1/volume/csi/v?namespace=team&force=true', undefined, 't'],
      ],
    );
    assert.equal(encodeCsiSecrets({}), undefined);
    assert.throws(() => encodeCsiSecrets({ 'a=b': 'c' }), /invalid CSI secret "a=b"/);
  });
});
