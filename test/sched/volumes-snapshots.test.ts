/**
 * External volumes and snapshots passed through to a real hostpath plugin (spec 002
 * "Endpoints", reference/sched.md §4.2, §4.10), and the `X-Sched-CSI-Secrets` header: its
 * pairs laid over the stored secrets on delete, passed as given to snapshot delete and list,
 * and no secret in any reply. Required parameters, missing capabilities and unknown plugins
 * are 400 naming them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allocWith, createVolume, report, startCsi, type CsiFixture } from './csi.js';
import { assertDenied, clientToken } from './helpers.js';

describe('scheduler CSI external volumes and snapshots', () => {
  let f: CsiFixture;

  before(async () => {
    f = await startCsi([{ id: 'hostpath' }, { id: 'bare', capabilities: ['CREATE_DELETE_VOLUME'] }]);
    for (const id of ['ext-a', 'ext-b', 'ext-c']) await createVolume(f, id, 'hostpath', { over: { Secrets: { stored: 'sv', shared: 'stored' } } });
  });
  after(async () => {
    await f?.stop();
  });

  it("lists the plugin's volumes page by page with its tokens", async () => {
    const claim = await allocWith(f, { v: { Source: 'ext-a' } });
    const first = await f.req('GET', '/v1/volumes/external?plugin_id=hostpath&per_page=2');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.Volumes.length, 2);
    assert.notEqual(first.json.NextToken, '');
    assert.equal(first.headers.get('x-sched-nexttoken'), null, "the plugin's token is in the body");
    assert.deepEqual(Object.keys(first.json.Volumes[0]), [
      'ExternalID',
      'CapacityBytes',
      'VolumeContext',
      'CloneID',
      'SnapshotID',
      'PublishedExternalNodeIDs',
      'IsAbnormal',
      'Status',
    ]);
    const second = await f.req('GET', `/v1/volumes/external?plugin_id=hostpath&per_page=2&next_token=${encodeURIComponent(first.json.NextToken)}`);
    assert.deepEqual([second.json.Volumes.length, second.json.NextToken], [1, '']);
    const all = [...first.json.Volumes, ...second.json.Volumes];
    const a = (await f.req('GET', '/v1/volume/csi/ext-a')).json.ExternalID;
    assert.deepEqual(all.find((v: { ExternalID: string }) => v.ExternalID === a).PublishedExternalNodeIDs, [f.csiNode('hostpath')]);
    await report(f, claim.ID, 'complete');

    const prefix = await f.req('GET', '/v1/volumes/external?plugin_id=host&per_page=10');
    assert.equal(prefix.json.Volumes.length, 3, 'a plugin ID prefix names the plugin');
    const cases: [string, string][] = [
      ['per_page=2', 'missing plugin_id: this endpoint needs the plugin ID'],
      ['plugin_id=hostpath', 'missing per_page: this endpoint needs a page size'],
      ['plugin_id=hostpath&per_page=0', 'missing per_page: this endpoint needs a page size'],
      ['plugin_id=abc&per_page=2', 'invalid plugin_id "abc": a prefix of hex characters must have an even length'],
      ['plugin_id=nope&per_page=2', 'no such plugin "nope"'],
      ['plugin_id=bare&per_page=2', 'plugin "bare" does not support LIST_VOLUMES'],
    ];
    for (const [q, text] of cases) {
      const r = await f.req('GET', `/v1/volumes/external?${q}`);
      assert.deepEqual([r.status, r.text], [400, text], q);
    }
  });

  it('creates, lists and deletes snapshots', async () => {
    const made = await f.req('POST', '/v1/volumes/snapshot', {
      body: { Snapshots: [{ SourceVolumeID: 'ext-b', Name: 'nightly', Secrets: { req: 'rv' }, Parameters: { keep: '7' } }] },
    });
    assert.equal(made.status, 200, made.text);
    const s = made.json.Snapshots[0];
    assert.deepEqual([s.SourceVolumeID, s.PluginID, s.Name, s.IsReady, s.Parameters], ['ext-b', 'hostpath', 'nightly', false, { keep: '7' }]);
    assert.match(s.ID, /./);
    assert.equal(s.ExternalSourceVolumeID, (await f.req('GET', '/v1/volume/csi/ext-b')).json.ExternalID);
    assert.ok(Number.isInteger(s.CreateTime) && s.CreateTime > 1.6e9, 'Unix seconds');
    assert.deepEqual(f.sent.at(-1), { method: 'createSnapshot', secrets: { stored: 'sv', shared: 'stored', req: 'rv' } }, "volume secrets under the request's");
    assert.ok(!made.text.includes('rv') && !made.text.includes('sv'));

    const list = await f.req('GET', '/v1/volumes/snapshot?plugin_id=hostpath&per_page=10', { headers: { 'X-Sched-CSI-Secrets': 'token=abc,odd,x=y=z' } });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(Object.keys(list.json), ['Snapshots', 'NextToken']);
    assert.deepEqual(
      list.json.Snapshots.map((x: { ID: string; IsReady: boolean; PluginID: string }) => [x.ID, x.IsReady, x.PluginID]),
      [[s.ID, true, 'hostpath']],
    );
    assert.deepEqual(Object.keys(list.json.Snapshots[0]), ['ID', 'ExternalSourceVolumeID', 'SizeBytes', 'CreateTime', 'IsReady', 'PluginID', 'Parameters']);
    assert.deepEqual(f.sent.at(-1), { method: 'listSnapshots', secrets: { token: 'abc', x: 'y=z' } }, 'pairs split on the first =, pieces without = ignored');

    const restored = await createVolume(f, 'restored', 'hostpath', { over: { SnapshotID: s.ID } });
    assert.equal(restored.json.Volumes[0].SnapshotID, s.ID);

    const del = await f.req('DELETE', `/v1/volumes/snapshot?plugin_id=hostpath&snapshot_id=${encodeURIComponent(s.ID)}`, {
      headers: { 'X-Sched-CSI-Secrets': 'k=v' },
    });
    assert.deepEqual([del.status, del.text], [200, '']);
    assert.deepEqual(f.sent.at(-1), { method: 'deleteSnapshot', secrets: { k: 'v' } });
    assert.deepEqual((await f.req('GET', '/v1/volumes/snapshot?plugin_id=hostpath&per_page=10')).json.Snapshots, []);
  });

  it('refuses bad snapshot requests with 400 naming the problem', async () => {
    await createVolume(f, 'bare-vol', 'bare');
    const create: [unknown, string][] = [
      [{}, 'missing snapshot definition'],
      [{ Snapshots: [] }, 'missing snapshot definition'],
      [{ Snapshots: [{ Name: 'n' }] }, 'snapshot 0: missing SourceVolumeID'],
      [{ Snapshots: [{ SourceVolumeID: 'ext-b' }] }, 'snapshot 0: missing Name'],
      [{ Snapshots: [{ SourceVolumeID: 'nope', Name: 'n' }] }, 'no such volume "nope"'],
      [{ Snapshots: [{ SourceVolumeID: 'ext-b', Name: 'n', PluginID: 'nope' }] }, 'no CSI plugin named "nope" could be found'],
      [{ Snapshots: [{ SourceVolumeID: 'bare-vol', Name: 'n' }] }, 'plugin "bare" does not support CREATE_DELETE_SNAPSHOT'],
      [
        { Snapshots: [{ SourceVolumeID: 'ext-b', Name: 'n', Secrets: { a: 1 } }] },
        'json: cannot unmarshal number into Go struct field structs.CSISnapshot.Secrets.a of type string',
      ],
    ];
    for (const [body, text] of create) {
      const r = await f.req('POST', '/v1/volumes/snapshot', { body });
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    }
    assert.deepEqual((await f.req('GET', '/v1/volumes/snapshot?plugin_id=hostpath&per_page=10')).json.Snapshots, [], 'nothing was made');
    const other: [string, string, string][] = [
      ['DELETE', '/v1/volumes/snapshot?snapshot_id=x', 'missing plugin_id: this endpoint needs the plugin ID'],
      ['DELETE', '/v1/volumes/snapshot?plugin_id=hostpath', 'missing snapshot_id: this endpoint needs the snapshot ID'],
      ['DELETE', '/v1/volumes/snapshot?plugin_id=bare&snapshot_id=x', 'plugin "bare" does not support CREATE_DELETE_SNAPSHOT'],
      ['GET', '/v1/volumes/snapshot?plugin_id=hostpath', 'missing per_page: this endpoint needs a page size'],
      ['GET', '/v1/volumes/snapshot?per_page=1', 'missing plugin_id: this endpoint needs the plugin ID'],
      ['GET', '/v1/volumes/snapshot?plugin_id=bare&per_page=1', 'plugin "bare" does not support LIST_SNAPSHOTS'],
      ['GET', '/v1/volumes/snapshot?plugin_id=a&per_page=1', 'invalid plugin_id "a": a prefix of hex characters must have an even length'],
    ];
    for (const [method, path, text] of other) {
      const r = await f.req(method, path);
      assert.deepEqual([r.status, r.text], [400, text], `${method} ${path}`);
    }
    const unknown = await f.req('DELETE', '/v1/volumes/snapshot?plugin_id=hostpath&snapshot_id=no-such-snapshot');
    assert.equal(unknown.status < 500, true, unknown.text);
  });

  it('lays the header secrets over the stored ones on delete', async () => {
    const r = await f.req('DELETE', '/v1/volume/csi/ext-c/delete', { headers: { 'X-Sched-CSI-Secrets': 'shared=header,extra=e' } });
    assert.deepEqual([r.status, r.text], [200, '']);
    assert.deepEqual(f.sent.at(-1), { method: 'deleteVolume', secrets: { stored: 'sv', shared: 'header', extra: 'e' } });
  });

  it('needs csi-list-volume to list and csi-write-volume to snapshot', async () => {
    const lister = await clientToken(f.url, 'snap-list', 'namespace "default" { capabilities = ["csi-list-volume"] }');
    const writer = await clientToken(f.url, 'snap-write', 'namespace "default" { capabilities = ["csi-write-volume"] }');
    assert.equal((await f.req('GET', '/v1/volumes/external?plugin_id=hostpath&per_page=1', { token: lister.secret })).status, 200);
    assert.equal((await f.req('GET', '/v1/volumes/snapshot?plugin_id=hostpath&per_page=1', { token: lister.secret })).status, 200);
    assertDenied(await f.req('GET', '/v1/volumes/external?plugin_id=hostpath&per_page=1', { token: writer.secret }), 'external without list');
    assertDenied(
      await f.req('POST', '/v1/volumes/snapshot', { token: lister.secret, body: { Snapshots: [{ SourceVolumeID: 'ext-b', Name: 'n' }] } }),
      'create without write',
    );
    assertDenied(await f.req('DELETE', '/v1/volumes/snapshot?plugin_id=hostpath&snapshot_id=x', { token: lister.secret }), 'delete without write');
    const made = await f.req('POST', '/v1/volumes/snapshot', { token: writer.secret, body: { Snapshots: [{ SourceVolumeID: 'ext-b', Name: 'by-writer' }] } });
    assert.equal(made.status, 200, made.text);
  });
});
