/**
 * CSI volume claims (reference/sched.md §4.4) against real hostpath plugins, with
 * allocations the scheduler places from registered jobs (csi.ts `placeWith`): allocations
 * claim the volumes their group requests (read or write), the limits of each access mode,
 * publish to the plugin's node on claim and unpublish on release, release when the
 * allocation becomes terminal (its client reports `complete`/`failed`, the allocation or the
 * job is stopped) and a replacement claims again, in-use refusals of deregister, delete and
 * detach, force deregister with running and with terminal allocations, refused claims
 * (the evaluation's `FailedTGAllocs`) creating no allocation and changing no volume, and the
 * CSIVolumeClaim events.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { T } from '../../src/services/sched/state.js';
import { allocWith, createVolume, placeWith, refusedWith, report, startCsi, type CsiFixture } from './csi.js';
import { Stream } from './stream.js';
import { allocsOf, running, settled, until } from './workloads.js';

const caps = (...modes: string[]) => ({ RequestedCapabilities: modes.map((AccessMode) => ({ AccessMode, AttachmentMode: 'file-system' })) });

describe('scheduler CSI volume claims', () => {
  let f: CsiFixture;
  /** The agent's log lines (JSON), for the reasons only the log carries. */
  const lines: string[] = [];
  /** Node IDs the plugin reports `id`'s external volume published to. */
  const publishedTo = async (plugin: string, externalId: string) =>
    (await f.client(plugin).listVolumes({ maxEntries: 1000 })).entries.find((e) => e.volume.volumeId === externalId)?.publishedNodeIds ?? [];
  const volume = async (id: string) => (await f.req('GET', `/v1/volume/csi/${id}`)).json;
  const stub = async (id: string) => (await f.req('GET', '/v1/volumes?type=csi')).json.find((v: { ID: string }) => v.ID === id);
  const allocCount = async () => (await f.req('GET', '/v1/allocations')).json.length;
  /** The claims of volume `id`: [writers, readers], allocation IDs. */
  const claims = async (id: string) => {
    const v = await volume(id);
    return [Object.keys(v.WriteAllocs), Object.keys(v.ReadAllocs)];
  };

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    f = await startCsi(
      [
        { id: 'hostpath' },
        { id: 'nopub', capabilities: ['CREATE_DELETE_VOLUME', 'LIST_VOLUMES'] },
        { id: 'noro', capabilities: ['CREATE_DELETE_VOLUME', 'PUBLISH_UNPUBLISH_VOLUME', 'LIST_VOLUMES', 'LIST_VOLUMES_PUBLISHED_NODES'] },
      ],
      { log: pino({ level: 'warn' }, sink) },
    );
  });
  after(async () => {
    await f?.stop();
  });

  it('claims, publishes, refuses a second writer, releases and unpublishes', async () => {
    const ext = (await createVolume(f, 'db', 'hostpath')).json.Volumes[0].ExternalID;
    const stream = await Stream.open(f.url, `topic=CSIVolume:db&index=${f.agent.state.index + 1}`);
    try {
      const id = (await allocWith(f, { data: { Source: 'db' } })).ID;
      const v = await volume('db');
      assert.deepEqual([v.WriteAllocs, v.ReadAllocs, v.AccessMode, v.AttachmentMode], [{ [id]: null }, {}, 'single-node-writer', 'file-system']);
      assert.deepEqual(
        v.Allocations.map((x: { ID: string; ClientStatus: string }) => [x.ID, x.ClientStatus]),
        [[id, 'pending']],
      );
      assert.deepEqual([(await stub('db')).CurrentWriters, (await stub('db')).CurrentReaders], [1, 0]);
      assert.deepEqual(await publishedTo('hostpath', ext), [f.csiNode('hostpath')]);
      const claimEvent = (await stream.events(1))[0]!;
      assert.deepEqual([claimEvent.Type, claimEvent.Key, Object.keys(claimEvent.Payload.Volume.WriteAllocs)], ['CSIVolumeClaim', 'db', [id]]);

      const count = await allocCount();
      assert.deepEqual(await refusedWith(f, { data: { Source: 'db' } }), ['volume "db": volume max claims reached']);
      assert.deepEqual(
        await refusedWith(f, { data: { Source: 'db', ReadOnly: true } }),
        ['volume "db": volume max claims reached'],
        'single-node-writer takes one claim of either kind',
      );
      assert.equal(await allocCount(), count, 'a refused claim creates no allocation');
      assert.deepEqual(await claims('db'), [[id], []], 'and changes no claim');

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

      await report(f, id, 'running');
      assert.equal((await volume('db')).WriteAllocs[id], null, 'running keeps the claim');
      await report(f, id, 'complete');
      const freed = await volume('db');
      assert.deepEqual([freed.WriteAllocs, freed.Allocations, freed.AccessMode, freed.AttachmentMode], [{}, [], '', '']);
      assert.deepEqual([(await stub('db')).CurrentWriters], [0]);
      assert.deepEqual(await publishedTo('hostpath', ext), [], 'unpublished on release');
      const stored = f.agent.state.get<{ PastClaims: object }>(T.csiVolumes, 'default.db')!;
      assert.deepEqual(stored.PastClaims, {}, 'the finished unpublish leaves no past claim');
      const release = (await stream.events(1))[0]!;
      assert.deepEqual([release.Type, release.Payload.Volume.WriteAllocs], ['CSIVolumeClaim', {}], 'a release in an allocation write is a claim event');

      const next = await placeWith(f, { data: { Source: 'db' } }, { type: 'service' });
      const nextId = next.allocs[0]!.ID;
      assert.deepEqual(await claims('db'), [[nextId], []], 'the writer slot is free again');
      // The operator stops the allocation: the scheduler stops it (its claim is released) and places a replacement, which claims.
      const stop = await f.req('POST', `/v1/allocation/${nextId}/stop`);
      assert.equal(stop.status, 200, stop.text);
      await settled(f.agent, stop.json.EvalID);
      const replacement = await until('the replacement to claim the volume', async () => {
        const live = running(await allocsOf(f.url, next.jobId));
        const [writers] = await claims('db');
        return live.length === 1 && live[0]!.ID !== nextId && writers!.length === 1 && writers![0] === live[0]!.ID ? live[0]! : undefined;
      });
      assert.equal((await f.req('GET', `/v1/allocation/${nextId}`)).json.DesiredStatus, 'stop');
      assert.deepEqual(await publishedTo('hostpath', ext), [f.csiNode('hostpath')]);
      // The job stopped: its allocation stops and releases.
      const dereg = await f.req('DELETE', `/v1/job/${next.jobId}`);
      assert.equal(dereg.status, 200, dereg.text);
      await settled(f.agent, dereg.json.EvalID);
      assert.deepEqual(await claims('db'), [[], []], 'a stopped job releases');
      assert.equal((await f.req('GET', `/v1/allocation/${replacement.ID}`)).json.DesiredStatus, 'stop');

      const last = await allocWith(f, { data: { Source: 'db' } });
      await report(f, last.ID, 'failed');
      assert.deepEqual(await claims('db'), [[], []], 'a failed allocation releases');
      const gone = await f.req('DELETE', '/v1/volume/csi/db');
      assert.equal(gone.status, 200, gone.text);
    } finally {
      stream.close();
    }
  });

  it("keeps each access mode's limits", async () => {
    await createVolume(f, 'shared', 'hostpath', { over: caps('multi-node-reader-only', 'multi-node-single-writer') });
    const r1 = await allocWith(f, { v: { Source: 'shared', ReadOnly: true, AccessMode: 'multi-node-reader-only' } });
    const r2 = await allocWith(f, { v: { Source: 'shared', ReadOnly: true, AccessMode: 'multi-node-reader-only' } });
    assert.equal((await stub('shared')).CurrentReaders, 2);
    assert.deepEqual(await refusedWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer' } }), [
      'volume "shared": cannot change access mode of claimed volume',
    ]);
    for (const r of [r1, r2]) await report(f, r.ID, 'complete');

    const w1 = await allocWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer' } });
    const rd = await allocWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer', ReadOnly: true } });
    assert.deepEqual(await refusedWith(f, { v: { Source: 'shared', AccessMode: 'multi-node-single-writer' } }), ['volume "shared": volume max claims reached']);
    assert.deepEqual([(await stub('shared')).CurrentReaders, (await stub('shared')).CurrentWriters], [1, 1]);
    assert.deepEqual(await claims('shared'), [[w1.ID], [rd.ID]]);

    await createVolume(f, 'solo', 'hostpath', { over: caps('single-node-reader-only') });
    const s1 = await allocWith(f, { v: { Source: 'solo', ReadOnly: true, AccessMode: 'single-node-reader-only' } });
    assert.deepEqual(await refusedWith(f, { v: { Source: 'solo', ReadOnly: true, AccessMode: 'single-node-reader-only' } }), [
      'volume "solo": volume max claims reached',
    ]);

    const unsupported = await refusedWith(f, { v: { Source: 'solo', AccessMode: 'multi-node-multi-writer' } });
    assert.deepEqual(unsupported, ['volume "solo": volume does not support access mode "multi-node-multi-writer" with attachment mode "file-system"']);
    assert.deepEqual(await refusedWith(f, { v: { Source: 'nowhere' } }), ['volume "nowhere": volume not found']);
    assert.deepEqual(await claims('solo'), [[], [s1.ID]]);
  });

  it('claims per-allocation volumes by index and several volumes at once, all or nothing', async () => {
    for (const i of [0, 1, 2]) await createVolume(f, `shard[${i}]`, 'hostpath');
    await createVolume(f, 'logs', 'hostpath');
    await createVolume(f, 'free', 'hostpath');
    const sharded = await placeWith(f, { shard: { Source: 'shard', PerAlloc: true } }, { count: 3 });
    assert.deepEqual(
      sharded.allocs.map((a) => a.Name),
      [0, 1, 2].map((i) => `${sharded.jobId}.group[${i}]`),
    );
    for (const [i, a] of sharded.allocs.entries()) assert.deepEqual(await claims(`shard[${i}]`), [[a.ID], []], `shard[${i}]`);

    const logs = await allocWith(f, { logs: { Source: 'logs' } });
    // "free" is claimable and planned first; "logs" is not: neither is claimed.
    assert.deepEqual(await refusedWith(f, { a: { Source: 'free' }, b: { Source: 'logs' } }), ['volume "logs": volume max claims reached']);
    assert.deepEqual(
      [await claims('free'), await claims('logs')],
      [
        [[], []],
        [[logs.ID], []],
      ],
    );

    const stop = await f.req('DELETE', `/v1/job/${sharded.jobId}`);
    assert.equal(stop.status, 200, stop.text);
    await settled(f.agent, stop.json.EvalID);
    for (const i of [0, 1, 2]) assert.deepEqual(await claims(`shard[${i}]`), [[], []], `shard[${i}] released by the job's stop`);
    await report(f, logs.ID, 'failed');
    assert.deepEqual(await claims('logs'), [[], []]);
  });

  it('claims without publishing on a plugin without PUBLISH_UNPUBLISH_VOLUME; a refused publish changes nothing', async () => {
    await createVolume(f, 'plain', 'nopub');
    const a = await allocWith(f, { v: { Source: 'plain' } });
    assert.deepEqual(await claims('plain'), [[a.ID], []]);
    const detach = await f.req('DELETE', '/v1/volume/csi/plain/detach?node=x');
    assert.deepEqual([detach.status, detach.text], [400, 'plugin "nopub" does not support PUBLISH_UNPUBLISH_VOLUME']);
    await report(f, a.ID, 'complete');

    const ext = (await createVolume(f, 'ro', 'noro', { over: caps('multi-node-reader-only') })).json.Volumes[0].ExternalID;
    const before = await allocCount();
    const r = await placeWith(f, { v: { Source: 'ro', ReadOnly: true, AccessMode: 'multi-node-reader-only' } });
    // Feasible on the node, so placed; the publish in the plan's write fails, so nothing is written and the evaluation blocks.
    assert.deepEqual([r.allocs, r.refused], [[], []]);
    assert.notEqual(r.evaluation.BlockedEval, '');
    assert.equal(await allocCount(), before);
    assert.deepEqual([(await volume('ro')).ReadAllocs, await publishedTo('noro', ext)], [{}, []]);
    const why = lines.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } }).find((l) => l.msg === 'scheduler: a placement was not applied');
    assert.match(
      why?.err?.message ?? '',
      /^alloc "[0-9a-f-]{36}" failed to claim volume "ro": plugin "noro" could not publish it to node "[0-9a-f-]{36}": rpc error: code = InvalidArgument desc = readonly: /,
    );
  });

  it("refuses claims while the node's plugin is unhealthy", async () => {
    await createVolume(f, 'fragile', 'hostpath');
    await f.plugins.get('hostpath')!.close();
    await f.agent.plugins.probeNow();
    try {
      assert.deepEqual(await refusedWith(f, { v: { Source: 'fragile' } }), [`volume "fragile": CSI plugin "hostpath" is unhealthy on node "${f.nodeId}"`]);
    } finally {
      await f.restart({ id: 'hostpath' });
      await f.agent.plugins.probeNow();
    }
    const a = await allocWith(f, { v: { Source: 'fragile' } });
    assert.deepEqual(await claims('fragile'), [[a.ID], []]);
  });

  it('force-deregisters a volume whose claims belong to terminal allocations only', async () => {
    await createVolume(f, 'stale', 'hostpath');
    const a = await allocWith(f, { v: { Source: 'stale' } });
    // The allocation ends without its release being recorded (a crash between the two): the claim stays.
    await f.agent.state.txn((tx) => {
      const doc = tx.get<Record<string, unknown>>(T.allocs, a.ID)!;
      tx.put(T.allocs, a.ID, { ...doc, ClientStatus: 'complete' });
    });
    assert.deepEqual(Object.keys((await volume('stale')).WriteAllocs), [a.ID]);
    const plain = await f.req('DELETE', '/v1/volume/csi/stale');
    assert.deepEqual([plain.status, plain.text], [409, 'volume in use: stale']);
    const forced = await f.req('DELETE', '/v1/volume/csi/stale?force=true');
    assert.deepEqual([forced.status, forced.text], [200, '']);
    assert.equal((await f.req('GET', '/v1/volume/csi/stale')).status, 404);
  });
});
