/**
 * The hostpath plugin's snapshots over real gRPC on a real unix socket: CreateSnapshot
 * (a copy, idempotent by name, ready at once, time from the injected clock), ListSnapshots
 * (paging, filters, bad token), DeleteSnapshot (idempotent), and both snapshot
 * capabilities switched off.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csiClient, startHostpathPlugin, type CsiFullClient, type HostpathPlugin } from '../index.js';
import { RWO, rejects } from '../testdata/assert-csi.js';

describe('hostpath controller: snapshots', () => {
  let dir: string;
  let root: string;
  let plugin: HostpathPlugin;
  let client: CsiFullClient;
  let clockMs = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-csi-snap-'));
    root = join(dir, 'root');
    plugin = await startHostpathPlugin({ socket: join(dir, 'csi.sock'), root, nodeId: 'n1', now: () => clockMs });
    client = csiClient(plugin.socket);
  });
  after(async () => {
    client.close();
    await plugin.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('CreateSnapshot copies the volume, is ready at once and idempotent by name', async () => {
    const v = await client.createVolume({ name: 'snap-src', capacityRange: { requiredBytes: 777, limitBytes: 0 }, volumeCapabilities: [RWO] });
    writeFileSync(join(root, 'volumes', v.volumeId, 'data'), 'v1');
    const s = await client.createSnapshot({ sourceVolumeId: v.volumeId, name: 'daily' });
    assert.match(s.snapshotId, /^snap-[0-9a-f]{32}$/);
    assert.deepEqual(s, {
      snapshotId: s.snapshotId,
      sourceVolumeId: v.volumeId,
      sizeBytes: 777,
      creationTime: Date.UTC(2024, 0, 2, 3, 4, 5) / 1000,
      readyToUse: true,
    });
    assert.equal(readFileSync(join(root, 'snapshots', s.snapshotId, 'data'), 'utf8'), 'v1');
    writeFileSync(join(root, 'volumes', v.volumeId, 'data'), 'v2');
    clockMs += 60_000;
    assert.deepEqual(await client.createSnapshot({ sourceVolumeId: v.volumeId, name: 'daily' }), s, 'the same snapshot, same time');
    assert.equal(readFileSync(join(root, 'snapshots', s.snapshotId, 'data'), 'utf8'), 'v1', 'a retry does not retake it');

    const other = await client.createVolume({ name: 'snap-other', volumeCapabilities: [RWO] });
    await rejects(
      client.createSnapshot({ sourceVolumeId: other.volumeId, name: 'daily' }),
      'AlreadyExists',
      `snapshot "daily" already exists as ${s.snapshotId} of volume "${v.volumeId}"`,
    );
  });

  it('bad arguments: missing fields name the field; an unknown source is NOT_FOUND', async () => {
    await rejects(client.createSnapshot({ sourceVolumeId: '', name: 'x' }), 'InvalidArgument', 'source_volume_id is required');
    await rejects(client.createSnapshot({ sourceVolumeId: 'vol-00000000000000000000000000000000', name: '' }), 'InvalidArgument', 'name is required');
    await rejects(
      client.createSnapshot({ sourceVolumeId: 'vol-00000000000000000000000000000000', name: 'x' }),
      'NotFound',
      'volume "vol-00000000000000000000000000000000" not found',
    );
    await rejects(client.deleteSnapshot(''), 'InvalidArgument', 'snapshot_id is required');
    await rejects(client.listSnapshots({ maxEntries: -5 }), 'InvalidArgument', 'max_entries must not be negative, got -5');
  });

  it('ListSnapshots pages, filters by snapshot and by source, and refuses a foreign token', async () => {
    const a = await client.createVolume({ name: 'list-a', volumeCapabilities: [RWO] });
    const b = await client.createVolume({ name: 'list-b', volumeCapabilities: [RWO] });
    const made = new Set<string>();
    for (let i = 0; i < 5; i++) made.add((await client.createSnapshot({ sourceVolumeId: a.volumeId, name: `a-${i}` })).snapshotId);
    for (let i = 0; i < 2; i++) made.add((await client.createSnapshot({ sourceVolumeId: b.volumeId, name: `b-${i}` })).snapshotId);

    const ofA: string[] = [];
    let token = '';
    const sizes: number[] = [];
    do {
      const pg = await client.listSnapshots({ maxEntries: 2, startingToken: token, sourceVolumeId: a.volumeId });
      sizes.push(pg.entries.length);
      ofA.push(...pg.entries.map((s) => s.snapshotId));
      assert.ok(pg.entries.every((s) => s.sourceVolumeId === a.volumeId));
      token = pg.nextToken;
    } while (token);
    assert.deepEqual(sizes, [2, 2, 1]);
    assert.equal(new Set(ofA).size, 5);

    const all = (await client.listSnapshots({ maxEntries: 0 })).entries.map((s) => s.snapshotId);
    for (const id of made) assert.ok(all.includes(id));
    assert.deepEqual([...all].sort(), all, 'in ID order');

    const one = [...made][6];
    assert.deepEqual(
      (await client.listSnapshots({ maxEntries: 0, snapshotId: one })).entries.map((s) => s.snapshotId),
      [one],
    );
    assert.deepEqual((await client.listSnapshots({ maxEntries: 0, snapshotId: one, sourceVolumeId: a.volumeId })).entries, [], 'both filters apply');
    assert.deepEqual(await client.listSnapshots({ maxEntries: 0, snapshotId: 'snap-ffffffffffffffffffffffffffffffff' }), { entries: [], nextToken: '' });
    assert.deepEqual((await client.listSnapshots({ maxEntries: 0, sourceVolumeId: 'nope' })).entries, []);
    await rejects(client.listSnapshots({ maxEntries: 1, startingToken: 'YWZ0ZXI' }), 'Aborted', /is not a token of this plugin/);
  });

  it('DeleteSnapshot removes the copy and is idempotent; volumes made from it stay', async () => {
    const v = await client.createVolume({ name: 'del-src', volumeCapabilities: [RWO] });
    const s = await client.createSnapshot({ sourceVolumeId: v.volumeId, name: 'del-snap' });
    const restored = await client.createVolume({ name: 'del-restored', volumeCapabilities: [RWO], contentSource: { snapshotId: s.snapshotId } });
    await client.deleteSnapshot(s.snapshotId);
    assert.ok(!existsSync(join(root, 'snapshots', s.snapshotId)));
    assert.deepEqual((await client.listSnapshots({ maxEntries: 0, snapshotId: s.snapshotId })).entries, []);
    await client.deleteSnapshot(s.snapshotId);
    await client.deleteSnapshot('snap-../../x');
    assert.ok(existsSync(join(root, 'volumes', restored.volumeId)));
    // The source volume can go while a snapshot of it remains (snapshots are independent copies).
    const kept = await client.createSnapshot({ sourceVolumeId: v.volumeId, name: 'kept' });
    await client.deleteVolume(v.volumeId);
    assert.equal((await client.listSnapshots({ maxEntries: 0, snapshotId: kept.snapshotId })).entries[0]?.sourceVolumeId, v.volumeId);
  });

  it('without CREATE_DELETE_SNAPSHOT and LIST_SNAPSHOTS: UNIMPLEMENTED, and no volume from a snapshot', async () => {
    const p = await startHostpathPlugin({ socket: join(dir, 'nosnap.sock'), root, nodeId: 'nosnap', capabilities: ['CREATE_DELETE_VOLUME', 'LIST_VOLUMES'] });
    const c = csiClient(p.socket);
    try {
      const v = await c.createVolume({ name: 'nosnap-src', volumeCapabilities: [RWO] });
      await rejects(
        c.createSnapshot({ sourceVolumeId: v.volumeId, name: 'x' }),
        'Unimplemented',
        'CreateSnapshot is not supported: the plugin runs without the CREATE_DELETE_SNAPSHOT capability',
      );
      await rejects(c.deleteSnapshot('snap-00000000000000000000000000000000'), 'Unimplemented', /DeleteSnapshot is not supported/);
      await rejects(
        c.listSnapshots({ maxEntries: 0 }),
        'Unimplemented',
        'ListSnapshots is not supported: the plugin runs without the LIST_SNAPSHOTS capability',
      );
      await rejects(
        c.createVolume({ name: 'nosnap-restore', volumeCapabilities: [RWO], contentSource: { snapshotId: 'snap-00000000000000000000000000000000' } }),
        'InvalidArgument',
        /CREATE_DELETE_SNAPSHOT/,
      );
    } finally {
      c.close();
      await p.close();
    }
  });
});
