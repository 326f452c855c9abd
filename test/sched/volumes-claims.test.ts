/**
 * CSI volume claims (reference/sched.md §4.4) against real hostpath plugins: allocations
 * claim the volumes they request (read or write), the limits of each access mode, publish to
 * the plugin's node on claim and unpublish on release, release when the allocation becomes
 * terminal and claim again when it is live again, in-use refusals of deregister, delete and
 * detach, force deregister with running and with terminal allocations, refused claims
 * changing nothing, and the CSIVolumeClaim events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { T } from '../../src/services/sched/state.js';
import { allocWith, createVolume, startCsi, type CsiFixture } from './csi.js';
import { Stream } from './stream.js';

const caps = (...modes: string[]) => ({ RequestedCapabilities: modes.map((AccessMode) => ({ AccessMode, AttachmentMode: 'file-system' })) });

describe('scheduler CSI volume claims', () => {
  let f: CsiFixture;
  /** Node IDs the plugin reports `id`'s external volume published to. */
  const publishedTo = async (plugin: string, externalId: string) =>
    (await f.client(plugin).listVolumes({ maxEntries: 1000 })).entries.find((e) => e.volume.volumeId === externalId)?.publishedNodeIds ?? [];
  const volume = async (id: string) => (await f.req('GET', `/v1/volume/csi/${id}`)).json;
  const stub = async (id: string) => (await f.req('GET', '/v1/volumes?type=csi')).json.find((v: { ID: string }) => v.ID === id);
  const setStatus = (alloc: string, body: Record<string, string>) =>
    f.req('POST', `/v1/allocation/${alloc}/${'ClientStatus' in body ? 'client-status' : 'desired-status'}`, { body });
  const allocCount = async () => (await f.req('GET', '/v1/allocations')).json.length;

  before(async () => {
    f = await startCsi([
      { id: 'hostpath' },
      { id: 'nopub', capabilities: ['CREATE_DELETE_VOLUME', 'LIST_VOLUMES'] },
      { id: 'noro', capabilities: ['CREATE_DELETE_VOLUME', 'PUBLISH_UNPUBLISH_VOLUME', 'LIST_VOLUMES', 'LIST_VOLUMES_PUBLISHED_NODES'] },
    ]);
  });
  after(async () => {
    await f?.stop();
  });

  it('claims, publishes, refuses a second writer, releases and unpublishes', async () => {
    const ext = (await createVolume(f, 'db', 'hostpath')).json.Volumes[0].ExternalID;
    const stream = await Stream.open(f.url, `topic=CSIVolume:db&index=${f.agent.state.index + 1}`);
    try {
      const a = await allocWith(f, { data: { Source: 'db' } });
      assert.equal(a.status, 200, a.text);
      const id = a.json.ID;
      const v = await volume('db');
      assert.deepEqual([v.WriteAllocs, v.ReadAllocs, v.AccessMode, v.AttachmentMode], [{ [id]: null }, {}, 'single-node-writer', 'file-system']);
      assert.deepEqual(v.Allocations.map((x: { ID: string; ClientStatus: string }) => [x.ID, x.ClientStatus]), [[id, 'pending']]);
      assert.deepEqual([(await stub('db')).CurrentWriters, (await stub('db')).CurrentReaders], [1, 0]);
      assert.deepEqual(await publishedTo('hostpath', ext), [f.csiNode('hostpath')]);
      const claimEvent = (await stream.events(1))[0]!;
      assert.deepEqual([claimEvent.Type, claimEvent.Key, Object.keys(claimEvent.Payload.Volume.WriteAllocs)], ['CSIVolumeClaim', 'db', [id]]);

      const count = await allocCount();
      const second = await allocWith(f, { data: { Source: 'db' } });
      assert.equal(second.status, 409);
      assert.match(second.text, /^alloc "[0-9a-f-]{36}" failed to claim volume "db": volume max claims reached$/);
      const reader = await allocWith(f, { data: { Source: 'db', ReadOnly: true } });
      assert.equal(reader.status, 409, 'single-node-writer takes one claim of either kind');
      assert.equal(await allocCount(), count, 'a refused claim creates no allocation');

      for (const [method, path, text] of [
        ['DELETE', '/v1/volume/csi/db', 'volume in use: db'],
        ['DELETE', '/v1/volume/csi/db/delete', 'volume in use: db'],
        ['DELETE', `/v1/volume/csi/db/detach?node=${f.nodeId}`, `volume in use: db: claimed by an allocation on node "${f.nodeId}"`],
        ['DELETE', '/v1/volume/csi/db?force=true', `volume in use: db: allocation "${id}" is not terminal`],
      ] as const) {
        const r = await f.req(method, path);
        assert.deepEqual([r.status, r.text], [409, text], path);
      }
      assert.ok(await volume('db'), 'still registered');

      assert.equal((await setStatus(id, { ClientStatus: 'running' })).status, 200);
      assert.equal((await volume('db')).WriteAllocs[id], null, 'running keeps the claim');
      assert.equal((await setStatus(id, { ClientStatus: 'complete' })).status, 200);
      const freed = await volume('db');
      assert.deepEqual([freed.WriteAllocs, freed.Allocations, freed.AccessMode, freed.AttachmentMode], [{}, [], '', '']);
      assert.deepEqual([(await stub('db')).CurrentWriters], [0]);
      assert.deepEqual(await publishedTo('hostpath', ext), [], 'unpublished on release');
      const stored = f.agent.state.get<{ PastClaims: object }>(T.csiVolumes, 'default.db')!;
      assert.deepEqual(stored.PastClaims, {}, 'the finished unpublish leaves no past claim');
      const release = (await stream.events(1))[0]!;
      assert.deepEqual([release.Type, release.Payload.Volume.WriteAllocs], ['CSIVolumeClaim', {}], 'a release in an allocation write is a claim event');

      const next = await allocWith(f, { data: { Source: 'db' } });
      assert.equal(next.status, 200, 'the writer slot is free again');
      assert.equal((await setStatus(next.json.ID, { DesiredStatus: 'stop' })).status, 200);
      assert.deepEqual((await volume('db')).WriteAllocs, {}, 'desired stop releases');
      assert.equal((await setStatus(next.json.ID, { DesiredStatus: 'run' })).status, 200);
      assert.deepEqual((await volume('db')).WriteAllocs, { [next.json.ID]: null }, 'live again: claimed again');
      assert.equal((await setStatus(next.json.ID, { ClientStatus: 'failed' })).status, 200);
      const dereg = await f.req('DELETE', '/v1/volume/csi/db');
      assert.equal(dereg.status, 200, dereg.text);
    } finally {
      stream.close();
    }
  });

  it('keeps each access mode\'s limits', async () => {
    await createVolume(f, 'shared', 'hostpath', caps('multi-node-reader-only', 'multi-node-single-writer'));
    const r1 = await allocWith(f, { v: { Source: 'shared', ReadOnly: true, AccessMode: 'multi-node-reader-only' } });
    const r2 = await allocWith(f, { v: { Source: 'shared', ReadOnly: true, AccessMode: 'multi-node-reader-only' } });
    assert.deepEqual([r1.status, r2.status], [200, 200]);
    assert.equal((await stub('shared')).CurrentReaders, 2);
    const writer = await allocWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer' } });
    assert.equal(writer.status, 409);
    assert.match(writer.text, /failed to claim volume "shared": cannot change access mode of claimed volume$/);
    for (const r of [r1, r2]) await setStatus(r.json.ID, { ClientStatus: 'complete' });

    const w1 = await allocWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer' } });
    assert.equal(w1.status, 200, w1.text);
    const rd = await allocWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer', ReadOnly: true } });
    assert.equal(rd.status, 200, rd.text);
    const w2 = await allocWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer' } });
    assert.equal(w2.status, 409);
    assert.match(w2.text, /volume max claims reached$/);
    assert.deepEqual([(await stub('shared')).CurrentReaders, (await stub('shared')).CurrentWriters], [1, 1]);

    await createVolume(f, 'solo', 'hostpath', caps('single-node-reader-only'));
    const s1 = await allocWith(f, { v: { Source: 'solo', ReadOnly: true, AccessMode: 'single-node-reader-only' } });
    const s2 = await allocWith(f, { v: { Source: 'solo', ReadOnly: true, AccessMode: 'single-node-reader-only' } });
    assert.deepEqual([s1.status, s2.status], [200, 409]);

    const unsupported = await allocWith(f, { v: { Source: 'solo', AccessMode: 'multi-node-multi-writer' } });
    assert.equal(unsupported.status, 400);
    assert.match(unsupported.text, /failed to claim volume "solo": volume does not support access mode "multi-node-multi-writer" with attachment mode "file-system"$/);
    const missing = await allocWith(f, { v: { Source: 'nowhere' } });
    assert.equal(missing.status, 400);
    assert.match(missing.text, /failed to claim volume "nowhere": volume not found$/);
  });

  it('claims per-allocation volumes by index and several volumes at once, all or nothing', async () => {
    await createVolume(f, 'shard[2]', 'hostpath');
    await createVolume(f, 'logs', 'hostpath');
    const a = await allocWith(f, { shard: { Source: 'shard', PerAlloc: true }, logs: { Source: 'logs' } }, { Name: 'job.group[2]' });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(Object.keys((await volume('shard[2]')).WriteAllocs), [a.json.ID]);
    const both = await allocWith(f, { fresh: { Source: 'shard', PerAlloc: true }, logs: { Source: 'logs' } }, { Name: 'job.group[2]' });
    assert.equal(both.status, 409);
    assert.deepEqual(Object.keys((await volume('logs')).WriteAllocs), [a.json.ID]);
    await setStatus(a.json.ID, { ClientStatus: 'lost' });
    assert.deepEqual([(await volume('logs')).WriteAllocs, (await volume('shard[2]')).WriteAllocs], [{}, {}]);
  });

  it('claims without publishing on a plugin without PUBLISH_UNPUBLISH_VOLUME; a refused publish changes nothing', async () => {
    await createVolume(f, 'plain', 'nopub');
    const a = await allocWith(f, { v: { Source: 'plain' } });
    assert.equal(a.status, 200, a.text);
    const detach = await f.req('DELETE', '/v1/volume/csi/plain/detach?node=x');
    assert.deepEqual([detach.status, detach.text], [400, 'plugin "nopub" does not support PUBLISH_UNPUBLISH_VOLUME']);
    await setStatus(a.json.ID, { ClientStatus: 'complete' });

    const ext = (await createVolume(f, 'ro', 'noro', caps('multi-node-reader-only'))).json.Volumes[0].ExternalID;
    const before = await allocCount();
    const r = await allocWith(f, { v: { Source: 'ro', ReadOnly: true, AccessMode: 'multi-node-reader-only' } });
    assert.equal(r.status, 400);
    assert.match(r.text, /^alloc "[0-9a-f-]{36}" failed to claim volume "ro": plugin "noro" could not publish it to node "[0-9a-f-]{36}": rpc error: code = InvalidArgument desc = readonly: /);
    assert.equal(await allocCount(), before);
    assert.deepEqual([(await volume('ro')).ReadAllocs, await publishedTo('noro', ext)], [{}, []]);
  });

  it('refuses claims while the node\'s plugin is unhealthy', async () => {
    await createVolume(f, 'fragile', 'hostpath');
    await f.plugins.get('hostpath')!.close();
    await f.agent.plugins.probeNow();
    try {
      const r = await allocWith(f, { v: { Source: 'fragile' } });
      assert.equal(r.status, 409);
      assert.match(r.text, new RegExp(`failed to claim volume "fragile": CSI plugin "hostpath" is unhealthy on node "${f.nodeId}"$`));
    } finally {
      await f.restart({ id: 'hostpath' });
      await f.agent.plugins.probeNow();
    }
    assert.equal((await allocWith(f, { v: { Source: 'fragile' } })).status, 200);
  });

  it('force-deregisters a volume whose claims belong to terminal allocations only', async () => {
    await createVolume(f, 'stale', 'hostpath');
    const a = await allocWith(f, { v: { Source: 'stale' } });
    assert.equal(a.status, 200);
    // The allocation ends without its release being recorded (a crash between the two): the claim stays.
    await f.agent.state.txn((tx) => {
      const doc = tx.get<Record<string, unknown>>(T.allocs, a.json.ID)!;
      tx.put(T.allocs, a.json.ID, { ...doc, ClientStatus: 'complete' });
    });
    assert.deepEqual(Object.keys((await volume('stale')).WriteAllocs), [a.json.ID]);
    const plain = await f.req('DELETE', '/v1/volume/csi/stale');
    assert.deepEqual([plain.status, plain.text], [409, 'volume in use: stale']);
    const forced = await f.req('DELETE', '/v1/volume/csi/stale?force=true');
    assert.deepEqual([forced.status, forced.text], [200, '']);
    assert.equal((await f.req('GET', '/v1/volume/csi/stale')).status, 404);
  });
});
