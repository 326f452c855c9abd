/**
 * CSI volumes over HTTP against a real hostpath plugin (spec 002 "CSI volumes", reference/sched.md
 * §4.5–§4.9): create, register (the volume must exist in the plugin), update rules and
 * expansion, read shapes without secrets, deregister, delete, detach, every refusal with its
 * status and text (nothing changed after one), ACLs per namespace, and the CSIVolume events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HOSTPATH_DEFAULT_CAPACITY_BYTES, HOSTPATH_PLUGIN_NAME } from '../../src/kernel/csi/index.js';
import { T } from '../../src/services/sched/state.js';
import { createVolume, startCsi, volumeBody, type CsiFixture } from './csi.js';
import { assertDenied, clientToken } from './helpers.js';
import { Stream } from './stream.js';

describe('scheduler CSI volumes', () => {
  let f: CsiFixture;

  before(async () => {
    f = await startCsi([{ id: 'hostpath' }, { id: 'lister', capabilities: ['LIST_VOLUMES'] }, { id: 'viewer', capabilities: [], shareRoot: 'hostpath' }]);
    const ns = await f.req('PUT', '/v1/namespace/prod', { body: { Name: 'prod' } });
    assert.equal(ns.status, 200, ns.text);
  });
  after(async () => {
    await f?.stop();
  });

  it('creates a volume in the plugin and registers it', async () => {
    const r = await createVolume(f, 'web-data', 'hostpath', {
      over: {
        Secrets: { password: 'hunter2' },
        Parameters: { tier: 'gold' },
        MountOptions: { FsType: 'ext4', MountFlags: ['noatime'] },
      },
    });
    assert.deepEqual([r.json.Warnings, r.json.Index], ['', Number(r.headers.get('x-sched-index'))]);
    const v = r.json.Volumes[0];
    assert.equal(v.ID, 'web-data');
    assert.match(v.ExternalID, /./);
    assert.deepEqual(
      [v.Namespace, v.Name, v.PluginID, v.Provider, v.Capacity, v.Schedulable, v.ControllerRequired, v.ControllersHealthy, v.NodesHealthy, v.Secrets],
      ['default', 'web-data', 'hostpath', HOSTPATH_PLUGIN_NAME, HOSTPATH_DEFAULT_CAPACITY_BYTES, true, true, 1, 1, null],
    );
    assert.deepEqual(v.MountOptions, { FsType: 'ext4', MountFlags: ['[REDACTED]'] });
    assert.deepEqual(v.Parameters, { tier: 'gold' });
    assert.deepEqual(v.Topologies.length, 1);
    assert.ok(!r.text.includes('hunter2'), 'no secret in the reply');
    const listed = await f.client('hostpath').listVolumes({ maxEntries: 100 });
    assert.ok(
      listed.entries.some((e) => e.volume.volumeId === v.ExternalID),
      'the plugin has it',
    );

    const read = await f.req('GET', '/v1/volume/csi/web-data');
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(Object.keys(read.json), [
      'ID',
      'Name',
      'ExternalID',
      'Namespace',
      'Topologies',
      'RequestedTopologies',
      'AccessMode',
      'AttachmentMode',
      'MountOptions',
      'Secrets',
      'Parameters',
      'Context',
      'Capacity',
      'RequestedCapacityMin',
      'RequestedCapacityMax',
      'RequestedCapabilities',
      'CloneID',
      'SnapshotID',
      'ReadAllocs',
      'WriteAllocs',
      'Allocations',
      'Schedulable',
      'PluginID',
      'Provider',
      'ProviderVersion',
      'Version',
      'ControllerRequired',
      'ControllersHealthy',
      'ControllersExpected',
      'NodesHealthy',
      'NodesExpected',
      'ResourceExhausted',
      'CreateIndex',
      'ModifyIndex',
      'CreateTime',
      'ModifyTime',
    ]);
    assert.deepEqual([read.json.ReadAllocs, read.json.WriteAllocs, read.json.Allocations, read.json.ResourceExhausted], [{}, {}, [], 0]);
    assert.deepEqual(read.json.RequestedCapabilities, [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }]);
    assert.ok(!read.text.includes('hunter2') && !read.text.includes('noatime'));
    const stored = f.agent.state.get<{ Secrets: Record<string, string> }>(T.csiVolumes, 'default.web-data')!;
    assert.deepEqual(stored.Secrets, { password: 'hunter2' }, 'reads never erase the stored secrets');

    const again = await createVolume(f, 'web-data', 'hostpath', { over: { Secrets: { password: 'hunter2' } } });
    assert.equal(again.json.Volumes[0].ExternalID, v.ExternalID, 'a repeat reconciles, it makes no second volume');
    assert.equal(again.json.Volumes[0].CreateIndex, v.CreateIndex);
  });

  it('registers a volume that exists in the plugin, and only then', async () => {
    const made = await f
      .client('hostpath')
      .createVolume({ name: 'outside', volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER', accessType: { mount: { fsType: '', mountFlags: [] } } }] });
    const r = await f.req('PUT', '/v1/volume/csi/outside?namespace=prod', { body: volumeBody('', 'hostpath', { ExternalID: made.volumeId, Name: '' }) });
    assert.equal(r.status, 200, r.text);
    const v = r.json.Volumes[0];
    assert.deepEqual([v.ID, v.Name, v.Namespace, v.ExternalID, v.Capacity], ['outside', 'outside', 'prod', made.volumeId, 0]);
    assert.equal((await f.req('GET', '/v1/volume/csi/outside')).status, 404, 'namespace default has no such volume');
    assert.equal((await f.req('GET', '/v1/volume/csi/outside?namespace=prod')).json.ExternalID, made.volumeId);

    const unknown = await f.req('PUT', '/v1/volume/csi/ghost', { body: volumeBody('ghost', 'hostpath', { ExternalID: 'no-such-volume' }) });
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /^plugin "hostpath" could not validate volume "no-such-volume": rpc error: code = NotFound desc = /);
    const unconfirmed = await f.req('PUT', '/v1/volume/csi/odd', {
      body: volumeBody('odd', 'hostpath', { ExternalID: made.volumeId, Parameters: { tier: 'other' } }),
    });
    assert.equal(unconfirmed.status, 400);
    assert.match(unconfirmed.text, /^plugin "hostpath" did not confirm the capabilities of volume ".+": parameters do not match/);
    const block = await f.req('PUT', '/v1/volume/csi/blk', {
      body: volumeBody('blk', 'hostpath', {
        ExternalID: made.volumeId,
        RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'block-device' }],
      }),
    });
    assert.equal(block.status, 400);
    assert.match(block.text, /block access is not supported/);
    for (const id of ['ghost', 'odd', 'blk']) assert.equal(f.agent.state.get(T.csiVolumes, `default.${id}`), undefined, `${id} was not stored`);

    const viaCollection = await f.req('PUT', '/v1/volumes?namespace=prod', {
      body: volumeBody('outside', 'hostpath', { ExternalID: made.volumeId, Secrets: { k: 'v' } }),
    });
    assert.equal(viaCollection.status, 200, viaCollection.text);
  });

  it("updates a registered volume by the reference's rules and expands it", async () => {
    const base = (await f.req('GET', '/v1/volume/csi/web-data')).json;
    const cases: [Record<string, unknown>, string][] = [
      [{ Name: 'other' }, 'volume name cannot be updated'],
      [{ ExternalID: 'elsewhere' }, 'volume external ID cannot be updated'],
      [{ PluginID: 'lister' }, 'volume plugin ID cannot be updated'],
      [{ SnapshotID: 'snap' }, 'volume snapshot ID cannot be updated'],
      [{ Parameters: { tier: 'silver' } }, 'volume parameters cannot be updated'],
      [{ Name: 'other', Parameters: { tier: 'silver' } }, 'volume name cannot be updated, volume parameters cannot be updated'],
    ];
    for (const [over, why] of cases) {
      const r = await f.req('PUT', '/v1/volume/csi/web-data', { body: volumeBody('web-data', 'hostpath', { Parameters: { tier: 'gold' }, ...over }) });
      assert.deepEqual([r.status, r.text], [400, `unable to update volume: ${why}`], JSON.stringify(over));
    }
    assert.equal((await f.req('GET', '/v1/volume/csi/web-data')).json.ModifyIndex, base.ModifyIndex, 'nothing changed');

    const bigger = HOSTPATH_DEFAULT_CAPACITY_BYTES * 2;
    const grown = await f.req('PUT', '/v1/volume/csi/web-data', {
      body: volumeBody('web-data', 'hostpath', { RequestedCapacityMin: bigger, Parameters: { tier: 'gold' }, Secrets: { password: 'hunter2' } }),
    });
    assert.equal(grown.status, 200, grown.text);
    assert.deepEqual([grown.json.Volumes[0].Capacity, grown.json.Volumes[0].RequestedCapacityMin], [bigger, bigger]);
    const shrink = await f.req('PUT', '/v1/volume/csi/web-data', {
      body: volumeBody('web-data', 'hostpath', { RequestedCapacityMax: 1024, Parameters: { tier: 'gold' } }),
    });
    assert.deepEqual(
      [shrink.status, shrink.text],
      [400, `unable to update volume: max requested capacity (1024) is less than the current capacity (${bigger})`],
    );
  });

  it('refuses malformed definitions with 400 naming the problem, changing nothing', async () => {
    const before = f.agent.state.tableIndex(T.csiVolumes);
    const caps = (AccessMode: string, AttachmentMode = 'file-system') => ({ RequestedCapabilities: [{ AccessMode, AttachmentMode }] });
    const cases: [unknown, string][] = [
      [{}, 'missing volume definition'],
      [{ Volumes: [] }, 'missing volume definition'],
      [{ Volumes: 'x' }, 'json: cannot unmarshal string into Go struct field structs.CSIVolumeRegisterRequest.Volumes of type []*structs.CSIVolume'],
      [
        { Volumes: [{ ID: 'bad', PluginID: 'hostpath', RequestedCapabilities: 'rw' }] },
        'json: cannot unmarshal string into Go struct field structs.CSIVolume.RequestedCapabilities of type []*structs.CSIVolumeCapability',
      ],
      [
        { Volumes: [{ ID: 'bad', PluginID: 'hostpath', Secrets: { a: 1 } }] },
        'json: cannot unmarshal number into Go struct field structs.CSIVolume.Secrets.a of type string',
      ],
      [
        { Volumes: [{ ID: 'bad', PluginID: 'hostpath', RequestedCapacityMin: 'big' }] },
        'json: cannot unmarshal string into Go struct field structs.CSIVolume.RequestedCapacityMin of type int64',
      ],
      [volumeBody('bad', '', { RequestedCapabilities: [] }), 'validation: missing plugin id, must include at least one capability block'],
      [
        volumeBody('bad', 'hostpath', caps('single-node-scribbler')),
        'validation: capability 0: invalid access mode "single-node-scribbler": must be one of single-node-reader-only, single-node-writer, single-node-single-writer, single-node-multi-writer, multi-node-reader-only, multi-node-single-writer, multi-node-multi-writer',
      ],
      [
        volumeBody('bad', 'hostpath', caps('single-node-writer', 'tape')),
        'validation: capability 0: invalid attachment mode "tape": must be one of file-system, block-device',
      ],
      [volumeBody('bad', 'hostpath', caps('', '')), 'validation: capability 0: missing access mode, capability 0: missing attachment mode'],
      [volumeBody('bad', 'hostpath', { SnapshotID: 's', CloneID: 'c' }), 'validation: only one of snapshot_id and clone_id is allowed'],
      [
        volumeBody('bad', 'hostpath', { RequestedCapacityMin: 10, RequestedCapacityMax: 5 }),
        'validation: max requested capacity (5) is less than min requested capacity (10)',
      ],
      [volumeBody('bad', 'hostpath', { RequestedTopologies: { Required: [{}] } }), 'validation: required topology is missing segments field'],
      [volumeBody('bad', 'hostpath', { Topologies: ['rack-1'] }), 'Topologies[0] must be a map of string to string'],
      [volumeBody('bad', 'hostpath', { MountOptions: { FsType: 'ext4', MountFlags: 'ro' } }), 'MountOptions.MountFlags must be a list of strings'],
      [volumeBody('other-id', 'hostpath'), 'volume ID "other-id" does not match the request path "bad"'],
      [volumeBody('bad', 'nope'), 'no CSI plugin named "nope" could be found'],
      [volumeBody('bad', 'hostpath', { Namespace: 'nowhere' }), 'volume bad is in nonexistent namespace nowhere'],
    ];
    for (const [body, text] of cases) {
      const r = await f.req('PUT', '/v1/volume/csi/bad', { body });
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
      const c = await f.req('PUT', '/v1/volume/csi/bad/create', { body });
      assert.deepEqual([c.status, c.text], [400, text], `create ${JSON.stringify(body)}`);
    }
    const empty = await f.req('PUT', '/v1/volume/csi/bad');
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
    assert.equal(f.agent.state.tableIndex(T.csiVolumes), before, 'nothing was written');
    const plugin = await f.client('hostpath').listVolumes({ maxEntries: 1000 });
    assert.equal(plugin.entries.length, 2, 'nothing was created in the plugin (web-data, outside and none else)');
  });

  it('names the missing capability', async () => {
    const create = await f.req('PUT', '/v1/volume/csi/l1/create', { body: volumeBody('l1', 'lister') });
    assert.deepEqual([create.status, create.text], [400, 'plugin "lister" does not support CREATE_DELETE_VOLUME']);
    const made = await f.client('lister').listVolumes({ maxEntries: 1 });
    assert.equal(made.entries.length, 0);

    // "viewer" serves no controller capability but shares hostpath's volumes, so one can be registered with it.
    const ext = (
      await f
        .client('hostpath')
        .createVolume({ name: 'shown', volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER', accessType: { mount: { fsType: '', mountFlags: [] } } }] })
    ).volumeId;
    const reg = await f.req('PUT', '/v1/volume/csi/shown', { body: volumeBody('shown', 'viewer', { ExternalID: ext }) });
    assert.equal(reg.status, 200, reg.text);
    const refusals: [string, string, unknown, string][] = [
      [
        'PUT',
        '/v1/volume/csi/shown',
        volumeBody('shown', 'viewer', { ExternalID: ext, RequestedCapacityMin: 2 * HOSTPATH_DEFAULT_CAPACITY_BYTES }),
        'EXPAND_VOLUME',
      ],
      ['DELETE', '/v1/volume/csi/shown/delete', undefined, 'CREATE_DELETE_VOLUME'],
      ['DELETE', `/v1/volume/csi/shown/detach?node=${f.nodeId}`, undefined, 'PUBLISH_UNPUBLISH_VOLUME'],
      ['GET', '/v1/volumes/external?plugin_id=viewer&per_page=5', undefined, 'LIST_VOLUMES'],
      ['POST', '/v1/volumes/snapshot', { Snapshots: [{ SourceVolumeID: 'shown', Name: 's' }] }, 'CREATE_DELETE_SNAPSHOT'],
      ['GET', '/v1/volumes/snapshot?plugin_id=viewer&per_page=5', undefined, 'LIST_SNAPSHOTS'],
    ];
    for (const [method, path, body, capability] of refusals) {
      const r = await f.req(method, path, { body });
      assert.deepEqual([r.status, r.text], [400, `plugin "viewer" does not support ${capability}`], `${method} ${path}`);
    }
    const stored = (await f.req('GET', '/v1/volume/csi/shown')).json;
    assert.deepEqual([stored.Capacity, stored.RequestedCapacityMin], [0, 0], 'a refused expansion stores nothing');
    assert.equal((await f.req('DELETE', '/v1/volume/csi/shown')).status, 200, 'deregister needs no capability');
  });

  it("deregisters, deletes and detaches with the reference's refusals", async () => {
    const scratch = (await createVolume(f, 'scratch', 'hostpath')).json.Volumes[0].ExternalID;
    const badForce = await f.req('DELETE', '/v1/volume/csi/scratch?force=maybe');
    assert.deepEqual([badForce.status, badForce.text], [400, 'invalid force value']);
    const dereg = await f.req('DELETE', '/v1/volume/csi/scratch');
    assert.deepEqual([dereg.status, dereg.text, dereg.headers.get('content-type')], [200, '', null]);
    assert.ok(Number(dereg.headers.get('x-sched-index')) > 0);
    const read = await f.req('GET', '/v1/volume/csi/scratch');
    assert.deepEqual([read.status, read.text], [404, 'volume not found']);
    const again = await f.req('DELETE', '/v1/volume/csi/scratch');
    assert.deepEqual([again.status, again.text], [404, 'volume not found: scratch']);
    const left = (await f.client('hostpath').listVolumes({ maxEntries: 1000 })).entries.some((e) => e.volume.volumeId === scratch);
    assert.ok(left, 'deregister leaves the volume in the plugin');

    const gone = await createVolume(f, 'gone', 'hostpath');
    const externalId = gone.json.Volumes[0].ExternalID;
    const del = await f.req('DELETE', '/v1/volume/csi/gone/delete');
    assert.deepEqual([del.status, del.text], [200, '']);
    assert.equal((await f.req('GET', '/v1/volume/csi/gone')).status, 404);
    assert.ok(!(await f.client('hostpath').listVolumes({ maxEntries: 1000 })).entries.some((e) => e.volume.volumeId === externalId), 'removed from the plugin');
    const delMissing = await f.req('DELETE', '/v1/volume/csi/gone/delete');
    assert.deepEqual([delMissing.status, delMissing.text], [404, 'volume not found: gone']);

    const noNode = await f.req('DELETE', '/v1/volume/csi/web-data/detach');
    assert.deepEqual([noNode.status, noNode.text], [400, 'missing node: detach requires node ID']);
    const detach = await f.req('DELETE', `/v1/volume/csi/web-data/detach?node=${f.nodeId}`);
    assert.deepEqual([detach.status, detach.text], [200, '']);
    const elsewhere = await f.req('DELETE', '/v1/volume/csi/web-data/detach?node=somewhere');
    assert.deepEqual([elsewhere.status, elsewhere.text], [400, 'no node plugin of "hostpath" is known on node "somewhere"']);
  });

  it("checks csi-read-volume, csi-list-volume and csi-write-volume in the volume's namespace", async () => {
    const reader = await clientToken(f.url, 'vol-read', 'namespace "prod" { capabilities = ["csi-read-volume"] }');
    const writer = await clientToken(f.url, 'vol-write', 'namespace "prod" { capabilities = ["csi-write-volume"] }');
    const lister = await clientToken(f.url, 'vol-list', 'namespace "prod" { capabilities = ["csi-list-volume"] }');
    assert.equal((await f.req('GET', '/v1/volume/csi/outside?namespace=prod', { token: reader.secret })).status, 200);
    assertDenied(await f.req('GET', '/v1/volume/csi/web-data', { token: reader.secret }), 'read in default');
    assertDenied(await f.req('GET', '/v1/volume/csi/outside?namespace=prod', { token: lister.secret }), 'read with list only');
    assert.equal((await f.req('GET', '/v1/volumes?type=csi&namespace=prod', { token: lister.secret })).status, 200);
    assertDenied(await f.req('GET', '/v1/volumes?type=csi', { token: lister.secret }), 'list in default');
    assertDenied(
      await f.req('PUT', '/v1/volume/csi/w/create?namespace=prod', { token: reader.secret, body: volumeBody('w', 'hostpath') }),
      'create without write',
    );
    assertDenied(await f.req('DELETE', '/v1/volume/csi/outside?namespace=prod', { token: reader.secret }), 'deregister without write');
    assertDenied(await f.req('PUT', '/v1/volume/csi/w/create', { token: writer.secret, body: volumeBody('w', 'hostpath') }), 'create in default');
    const created = await f.req('PUT', '/v1/volume/csi/w/create?namespace=prod', { token: writer.secret, body: volumeBody('w', 'hostpath') });
    assert.equal(created.status, 200, created.text);
    assert.equal((await f.req('DELETE', '/v1/volume/csi/w/delete?namespace=prod', { token: writer.secret })).status, 200);
    const wild = await f.req('GET', '/v1/volumes?type=csi&namespace=*', { token: lister.secret });
    assert.ok(wild.json.length > 0 && wild.json.every((v: { Namespace: string }) => v.Namespace === 'prod'), 'namespace=* lists only what the token may');
  });

  it('sends CSIVolume events without secrets', async () => {
    const stream = await Stream.open(f.url, `topic=CSIVolume&namespace=*&index=${f.agent.state.index + 1}`);
    try {
      await createVolume(f, 'evented', 'hostpath', {
        over: { Secrets: { token: 's3cr3t-value' }, MountOptions: { FsType: 'xfs', MountFlags: ['secret-flag'] } },
      });
      await f.req('DELETE', '/v1/volume/csi/evented');
      const events = await stream.events(2);
      assert.deepEqual(
        events.map((e) => [e.Topic, e.Type, e.Key, e.Namespace]),
        [
          ['CSIVolume', 'CSIVolumeRegistered', 'evented', 'default'],
          ['CSIVolume', 'CSIVolumeDeregistered', 'evented', 'default'],
        ],
      );
      assert.deepEqual(events[0]!.FilterKeys, ['evented', 'evented', 'hostpath']);
      assert.equal(events[0]!.Payload.Volume.Secrets, null);
      assert.equal(events[0]!.Payload.Volume.Schedulable, true);
      assert.ok(!stream.raw.includes('s3cr3t-value') && !stream.raw.includes('secret-flag'), 'no secret on the stream');
    } finally {
      stream.close();
    }
  });
});
