/**
 * The hostpath plugin's Controller service for volumes, over real gRPC on a real unix
 * socket (the CSI client, plus a raw csi.v1 client for requests the typed client cannot
 * malform): CreateVolume idempotency and capacity ranges, content sources, DeleteVolume,
 * publish/unpublish bookkeeping across two node plugins sharing a root, validation,
 * paging 250 volumes, capacity, expansion, topology and capabilities switched off.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { csiServices } from '../proto.js';
import {
  CsiError,
  csiClient,
  startHostpathPlugin,
  type ControllerCapability,
  type CsiAccessMode,
  type CsiFullClient,
  type HostpathPlugin,
  type VolumeCapability,
} from '../index.js';

const mount = (accessMode: CsiAccessMode): VolumeCapability => ({ accessType: { mount: { fsType: '', mountFlags: [] } }, accessMode });
const RWO = mount('SINGLE_NODE_WRITER');
const RWX = mount('MULTI_NODE_MULTI_WRITER');
const GiB = 2 ** 30;

/** The CsiError `p` rejects with. */
async function rejection(p: Promise<unknown>): Promise<CsiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CsiError, String(err));
    return err;
  }
  assert.fail('expected a rejection');
}

/** Asserts `p` rejects with Go status name `code` and details matching `details`. */
async function rejects(p: Promise<unknown>, code: string, details: RegExp | string): Promise<void> {
  const err = await rejection(p);
  assert.equal(err.code, code, err.message);
  if (typeof details === 'string') assert.equal(err.details, details);
  else assert.match(err.details, details);
}

/** One call with a hand-built request object, through a raw csi.v1 client. */
function rawCall(socket: string, service: 'Controller' | 'Node', method: string, req: unknown): Promise<unknown> {
  const Ctor = csiServices()[service];
  const c = new Ctor(`unix:${socket}`, grpc.credentials.createInsecure());
  return new Promise<unknown>((done, reject) => {
    (c as unknown as Record<string, (r: unknown, cb: (e: grpc.ServiceError | null, r?: unknown) => void) => void>)[method](req, (err, res) => {
      c.close();
      if (err) reject(err);
      else done(res);
    });
  });
}

interface Running {
  plugin: HostpathPlugin;
  client: CsiFullClient;
}

describe('hostpath controller: volumes', () => {
  let dir: string;
  let root: string;
  let n1: Running;
  let n2: Running;
  const extra: Running[] = [];

  async function start(nodeId: string, o: { capabilities?: ControllerCapability[]; maxVolumesPerNode?: number; root?: string } = {}): Promise<Running> {
    const plugin = await startHostpathPlugin({
      socket: join(dir, `${nodeId}.sock`),
      root: o.root ?? root,
      nodeId,
      capabilities: o.capabilities,
      maxVolumesPerNode: o.maxVolumesPerNode,
    });
    return { plugin, client: csiClient(plugin.socket) };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-csi-ctl-'));
    root = join(dir, 'root');
    n1 = await start('n1');
    n2 = await start('n2', { maxVolumesPerNode: 2 });
  });
  after(async () => {
    for (const r of [n1, n2, ...extra]) {
      r.client.close();
      await r.plugin.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('CreateVolume is idempotent by name; another capacity or parameters is ALREADY_EXISTS', async () => {
    const c = n1.client;
    const a = await c.createVolume({
      name: 'idem',
      capacityRange: { requiredBytes: 2 * GiB, limitBytes: 0 },
      volumeCapabilities: [RWO],
      parameters: { p: '1' },
    });
    const b = await c.createVolume({
      name: 'idem',
      capacityRange: { requiredBytes: 2 * GiB, limitBytes: 0 },
      volumeCapabilities: [RWO],
      parameters: { p: '1' },
    });
    assert.deepEqual(b, a);
    assert.ok(existsSync(join(root, 'volumes', a.volumeId)), 'the volume is a directory');
    const sidecar = JSON.parse(readFileSync(join(root, 'volumes', `${a.volumeId}.json`), 'utf8'));
    assert.equal(sidecar.capacityBytes, 2 * GiB);
    assert.deepEqual(sidecar.parameters, { p: '1' });
    // A range the existing volume satisfies is the same volume.
    assert.equal(
      (await c.createVolume({ name: 'idem', capacityRange: { requiredBytes: GiB, limitBytes: 3 * GiB }, volumeCapabilities: [RWO], parameters: { p: '1' } }))
        .volumeId,
      a.volumeId,
    );
    await rejects(
      c.createVolume({ name: 'idem', capacityRange: { requiredBytes: 3 * GiB, limitBytes: 0 }, volumeCapabilities: [RWO], parameters: { p: '1' } }),
      'AlreadyExists',
      /capacity 2147483648 bytes is outside the requested range/,
    );
    await rejects(
      c.createVolume({ name: 'idem', capacityRange: { requiredBytes: 2 * GiB, limitBytes: 0 }, volumeCapabilities: [RWO], parameters: { p: '2' } }),
      'AlreadyExists',
      /parameters differ/,
    );
    // Another plugin on the same root finds the volume by name.
    const again = await start('n1-again');
    extra.push(again);
    assert.equal((await again.client.createVolume({ name: 'idem', volumeCapabilities: [RWO], parameters: { p: '1' } })).volumeId, a.volumeId);
  });

  it('capacity ranges are honoured: default 1 GiB, limit only, required above limit, negative', async () => {
    const c = n1.client;
    assert.equal((await c.createVolume({ name: 'cap-default', volumeCapabilities: [RWO] })).capacityBytes, GiB);
    assert.equal(
      (await c.createVolume({ name: 'cap-limit', capacityRange: { requiredBytes: 0, limitBytes: 1000 }, volumeCapabilities: [RWO] })).capacityBytes,
      1000,
    );
    assert.equal(
      (await c.createVolume({ name: 'cap-exact', capacityRange: { requiredBytes: 12345, limitBytes: 12345 }, volumeCapabilities: [RWO] })).capacityBytes,
      12345,
    );
    await rejects(
      c.createVolume({ name: 'cap-bad', capacityRange: { requiredBytes: 10, limitBytes: 5 }, volumeCapabilities: [RWO] }),
      'InvalidArgument',
      'capacity_range.required_bytes (10) exceeds limit_bytes (5)',
    );
    await rejects(
      c.createVolume({ name: 'cap-neg', capacityRange: { requiredBytes: -1, limitBytes: 0 }, volumeCapabilities: [RWO] }),
      'InvalidArgument',
      'capacity_range.required_bytes must not be negative',
    );
  });

  it('bad arguments are INVALID_ARGUMENT naming the field', async () => {
    const c = n1.client;
    const socket = n1.plugin.socket;
    await rejects(c.createVolume({ name: '', volumeCapabilities: [RWO] }), 'InvalidArgument', 'name is required');
    await rejects(c.createVolume({ name: 'x', volumeCapabilities: [] }), 'InvalidArgument', 'volume_capabilities is required');
    await rejects(
      c.createVolume({ name: 'x', volumeCapabilities: [RWO, mount('UNKNOWN' as CsiAccessMode)] }),
      'InvalidArgument',
      'volume_capabilities[1].access_mode is required',
    );
    await rejects(c.createVolume({ name: 'bad\u0001name', volumeCapabilities: [RWO] }), 'InvalidArgument', 'name contains a control character');
    await rejects(
      c.createVolume({ name: 'blk', volumeCapabilities: [{ accessType: { block: true }, accessMode: 'SINGLE_NODE_WRITER' }] }),
      'InvalidArgument',
      /^volume_capabilities\[0\]: block access is not supported/,
    );
    await rejects(
      c.createVolume({ name: 'snmw', volumeCapabilities: [mount('SINGLE_NODE_MULTI_WRITER')] }),
      'InvalidArgument',
      /needs the SINGLE_NODE_MULTI_WRITER capability/,
    );
    await assert.rejects(rawCall(socket, 'Controller', 'CreateVolume', { name: 'x', volume_capabilities: [{ access_mode: { mode: 'SINGLE_NODE_WRITER' } }] }), {
      code: grpc.status.INVALID_ARGUMENT,
      details: 'volume_capabilities[0].access_type is required',
    });
    await assert.rejects(
      rawCall(socket, 'Controller', 'CreateVolume', {
        name: 'x',
        volume_capabilities: [{ mount: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } }],
        volume_content_source: {},
      }),
      {
        code: grpc.status.INVALID_ARGUMENT,
        details: 'volume_content_source.type is required',
      },
    );
    await assert.rejects(rawCall(socket, 'Controller', 'ControllerPublishVolume', { volume_id: 'v', node_id: 'n1' }), {
      code: grpc.status.INVALID_ARGUMENT,
      details: 'volume_capability is required',
    });
    await rejects(c.deleteVolume(''), 'InvalidArgument', 'volume_id is required');
    await rejects(
      c.controllerPublishVolume({ volumeId: '', nodeId: 'n1', volumeCapability: RWO, readonly: false }),
      'InvalidArgument',
      'volume_id is required',
    );
    await rejects(c.controllerPublishVolume({ volumeId: 'v', nodeId: '', volumeCapability: RWO, readonly: false }), 'InvalidArgument', 'node_id is required');
    await rejects(c.controllerUnpublishVolume('', 'n1'), 'InvalidArgument', 'volume_id is required');
    await rejects(c.validateVolumeCapabilities({ volumeId: '', volumeCapabilities: [RWO] }), 'InvalidArgument', 'volume_id is required');
    await rejects(c.validateVolumeCapabilities({ volumeId: 'v', volumeCapabilities: [] }), 'InvalidArgument', 'volume_capabilities is required');
    await rejects(c.controllerExpandVolume({ volumeId: '', capacityRange: { requiredBytes: 1, limitBytes: 0 } }), 'InvalidArgument', 'volume_id is required');
    await assert.rejects(rawCall(socket, 'Controller', 'ControllerExpandVolume', { volume_id: 'v' }), {
      code: grpc.status.INVALID_ARGUMENT,
      details: 'capacity_range is required',
    });
    await rejects(c.listVolumes({ maxEntries: -1 }), 'InvalidArgument', 'max_entries must not be negative, got -1');
  });

  it('content source: a snapshot or a volume is copied; unknown sources NOT_FOUND; smaller than the source OUT_OF_RANGE', async () => {
    const c = n1.client;
    const src = await c.createVolume({ name: 'src', capacityRange: { requiredBytes: 4096, limitBytes: 0 }, volumeCapabilities: [RWO] });
    writeFileSync(join(root, 'volumes', src.volumeId, 'a.txt'), 'first');
    const snap = await c.createSnapshot({ sourceVolumeId: src.volumeId, name: 'src-snap' });
    writeFileSync(join(root, 'volumes', src.volumeId, 'b.txt'), 'later');

    const restored = await c.createVolume({ name: 'from-snap', volumeCapabilities: [RWO], contentSource: { snapshotId: snap.snapshotId } });
    assert.equal(restored.capacityBytes, 4096, 'the source size when no range is given');
    assert.deepEqual(restored.contentSource, { snapshotId: snap.snapshotId });
    assert.equal(readFileSync(join(root, 'volumes', restored.volumeId, 'a.txt'), 'utf8'), 'first');
    assert.ok(!existsSync(join(root, 'volumes', restored.volumeId, 'b.txt')), 'written after the snapshot');

    const clone = await c.createVolume({
      name: 'clone',
      capacityRange: { requiredBytes: 8192, limitBytes: 0 },
      volumeCapabilities: [RWO],
      contentSource: { volumeId: src.volumeId },
    });
    assert.equal(clone.capacityBytes, 8192);
    assert.equal(readFileSync(join(root, 'volumes', clone.volumeId, 'b.txt'), 'utf8'), 'later');

    await rejects(
      c.createVolume({ name: 'from-nothing', volumeCapabilities: [RWO], contentSource: { snapshotId: 'snap-ffffffffffffffffffffffffffffffff' } }),
      'NotFound',
      'snapshot "snap-ffffffffffffffffffffffffffffffff" not found',
    );
    await rejects(
      c.createVolume({ name: 'clone-nothing', volumeCapabilities: [RWO], contentSource: { volumeId: '../../etc' } }),
      'NotFound',
      'volume "../../etc" not found',
    );
    await rejects(
      c.createVolume({
        name: 'too-small',
        capacityRange: { requiredBytes: 100, limitBytes: 0 },
        volumeCapabilities: [RWO],
        contentSource: { snapshotId: snap.snapshotId },
      }),
      'OutOfRange',
      /the source holds 4096 bytes/,
    );
    await rejects(
      c.createVolume({ name: 'from-snap', volumeCapabilities: [RWO], contentSource: { volumeId: src.volumeId } }),
      'AlreadyExists',
      /content source differs/,
    );
  });

  it('DeleteVolume is idempotent and refuses a published volume', async () => {
    const c = n1.client;
    const v = await c.createVolume({ name: 'del', volumeCapabilities: [RWO] });
    await c.controllerPublishVolume({ volumeId: v.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false });
    await rejects(c.deleteVolume(v.volumeId), 'FailedPrecondition', `volume "${v.volumeId}" is published on node(s) n1; unpublish it first`);
    await c.controllerUnpublishVolume(v.volumeId, 'n1');
    await c.deleteVolume(v.volumeId);
    assert.ok(!existsSync(join(root, 'volumes', v.volumeId)));
    assert.ok(!existsSync(join(root, 'volumes', `${v.volumeId}.json`)));
    await c.deleteVolume(v.volumeId);
    await c.deleteVolume('vol-0123456789abcdef0123456789abcdef');
    await c.deleteVolume('not-an-id/../..');
  });

  it('publish/unpublish bookkeeping: per node, single-node modes, one writer, unknown volume or node, the node limit', async () => {
    const c = n1.client;
    const rwo = await c.createVolume({ name: 'pub-rwo', volumeCapabilities: [RWO] });
    const first = await c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false });
    assert.deepEqual(first.publishContext, { path: join(root, 'volumes', rwo.volumeId), readonly: 'false' });
    assert.deepEqual(await c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false }), first, 'idempotent');
    await rejects(
      c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: true }),
      'AlreadyExists',
      /already published on node "n1" with readonly=false/,
    );
    await rejects(
      c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'n2', volumeCapability: RWO, readonly: false }),
      'FailedPrecondition',
      `volume "${rwo.volumeId}" is published on node "n1" and access mode SINGLE_NODE_WRITER allows a single node`,
    );
    await rejects(
      c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'n2', volumeCapability: RWX, readonly: false }),
      'FailedPrecondition',
      /access mode SINGLE_NODE_WRITER allows a single node/,
    );
    await rejects(
      c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'ghost', volumeCapability: RWO, readonly: false }),
      'NotFound',
      'node "ghost" not found',
    );
    await rejects(
      c.controllerPublishVolume({ volumeId: 'vol-00000000000000000000000000000001', nodeId: 'n1', volumeCapability: RWO, readonly: false }),
      'NotFound',
      'volume "vol-00000000000000000000000000000001" not found',
    );
    await rejects(
      c.controllerPublishVolume({ volumeId: rwo.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false, volumeContext: { other: 'x' } }),
      'InvalidArgument',
      "volume_context does not match the volume's",
    );

    const rwx = await c.createVolume({ name: 'pub-rwx', volumeCapabilities: [RWX] });
    await c.controllerPublishVolume({ volumeId: rwx.volumeId, nodeId: 'n1', volumeCapability: RWX, readonly: false });
    await n2.client.controllerPublishVolume({ volumeId: rwx.volumeId, nodeId: 'n2', volumeCapability: RWX, readonly: true });
    const listed = async (id: string) => (await c.listVolumes({ maxEntries: 0 })).entries.find((e) => e.volume.volumeId === id)?.publishedNodeIds;
    assert.deepEqual(await listed(rwx.volumeId), ['n1', 'n2']);
    assert.deepEqual(await listed(rwo.volumeId), ['n1']);

    const msw = mount('MULTI_NODE_SINGLE_WRITER');
    const one = await c.createVolume({ name: 'pub-msw', volumeCapabilities: [msw] });
    await c.controllerPublishVolume({ volumeId: one.volumeId, nodeId: 'n1', volumeCapability: msw, readonly: false });
    await rejects(
      c.controllerPublishVolume({ volumeId: one.volumeId, nodeId: 'n2', volumeCapability: msw, readonly: false }),
      'FailedPrecondition',
      /already has a writer on node "n1"/,
    );
    await c.controllerPublishVolume({ volumeId: one.volumeId, nodeId: 'n2', volumeCapability: msw, readonly: true });

    // n2 allows 2 published volumes and holds rwx and msw.
    const third = await c.createVolume({ name: 'pub-third', volumeCapabilities: [RWO] });
    await rejects(
      c.controllerPublishVolume({ volumeId: third.volumeId, nodeId: 'n2', volumeCapability: RWO, readonly: false }),
      'ResourceExhausted',
      'node "n2" has reached its maximum of 2 published volumes',
    );

    await c.controllerUnpublishVolume(rwx.volumeId, 'n1');
    assert.deepEqual(await listed(rwx.volumeId), ['n2']);
    await c.controllerUnpublishVolume(rwx.volumeId, 'n1');
    await rejects(c.controllerUnpublishVolume(rwx.volumeId, 'ghost'), 'NotFound', 'node "ghost" not found');
    await rejects(c.controllerUnpublishVolume('vol-00000000000000000000000000000001', 'n1'), 'NotFound', /not found/);
    await c.controllerUnpublishVolume(one.volumeId, '');
    assert.deepEqual(await listed(one.volumeId), [], 'an empty node ID unpublishes from every node');
    await c.controllerPublishVolume({ volumeId: third.volumeId, nodeId: 'n2', volumeCapability: RWO, readonly: false });
    for (const v of [rwo, rwx, third]) await c.controllerUnpublishVolume(v.volumeId, '');
  });

  it('ValidateVolumeCapabilities confirms served capabilities and refuses others with a message', async () => {
    const c = n1.client;
    const v = await c.createVolume({ name: 'val', volumeCapabilities: [RWO], parameters: { k: 'v' } });
    assert.deepEqual(
      await c.validateVolumeCapabilities({ volumeId: v.volumeId, volumeCapabilities: [RWO, RWX], volumeContext: { k: 'v' }, parameters: { k: 'v' } }),
      { confirmed: true, message: '' },
    );
    assert.deepEqual(await c.validateVolumeCapabilities({ volumeId: v.volumeId, volumeCapabilities: [RWO], volumeContext: { k: 'other' } }), {
      confirmed: false,
      message: "volume_context does not match the volume's",
    });
    assert.deepEqual(await c.validateVolumeCapabilities({ volumeId: v.volumeId, volumeCapabilities: [RWO], parameters: { k: 'other' } }), {
      confirmed: false,
      message: "parameters do not match the volume's",
    });
    await rejects(c.validateVolumeCapabilities({ volumeId: 'vol-00000000000000000000000000000002', volumeCapabilities: [RWO] }), 'NotFound', /not found/);
  });

  it('ListVolumes pages 250 volumes by 100: no duplicates, none missing; a bad token is ABORTED', async () => {
    const proot = join(dir, 'paging-root');
    const p = await start('pager', { root: proot });
    extra.push(p);
    const created = new Set<string>();
    for (let i = 0; i < 250; i++) created.add((await p.client.createVolume({ name: `page-${i}`, volumeCapabilities: [RWO] })).volumeId);
    assert.equal(created.size, 250);
    const seen: string[] = [];
    const sizes: number[] = [];
    let token = '';
    do {
      const pg = await p.client.listVolumes({ maxEntries: 100, startingToken: token });
      sizes.push(pg.entries.length);
      seen.push(...pg.entries.map((e) => e.volume.volumeId));
      token = pg.nextToken;
    } while (token);
    assert.deepEqual(sizes, [100, 100, 50]);
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    assert.deepEqual(new Set(seen), created, 'none missing');
    assert.equal((await p.client.listVolumes({ maxEntries: 0 })).entries.length, 250);

    // Deleting a listed volume between pages neither repeats nor skips the others.
    const firstPage = await p.client.listVolumes({ maxEntries: 100 });
    await p.client.deleteVolume(firstPage.entries[99].volume.volumeId);
    await p.client.deleteVolume(firstPage.entries[0].volume.volumeId);
    const rest = await p.client.listVolumes({ maxEntries: 0, startingToken: firstPage.nextToken });
    assert.equal(rest.entries.length, 150);
    assert.equal(rest.nextToken, '');

    await rejects(p.client.listVolumes({ maxEntries: 10, startingToken: 'garbage' }), 'Aborted', 'starting_token "garbage" is not a token of this plugin');
  });

  it('GetCapacity reports the filesystem; 0 for capabilities it cannot serve or an unknown node', async () => {
    const c = n1.client;
    const { availableCapacity } = await c.getCapacity();
    assert.ok(availableCapacity > 0);
    assert.ok((await c.getCapacity({ accessibleTopology: { 'topology.cairn.dev/node': 'n2' }, volumeCapabilities: [RWO] })).availableCapacity > 0);
    assert.equal((await c.getCapacity({ volumeCapabilities: [{ accessType: { block: true }, accessMode: 'SINGLE_NODE_WRITER' }] })).availableCapacity, 0);
    assert.equal((await c.getCapacity({ accessibleTopology: { 'topology.cairn.dev/node': 'ghost' } })).availableCapacity, 0);
  });

  it('ControllerExpandVolume grows, never shrinks, and is idempotent', async () => {
    const c = n1.client;
    const v = await c.createVolume({ name: 'grow', capacityRange: { requiredBytes: 1000, limitBytes: 0 }, volumeCapabilities: [RWO] });
    assert.deepEqual(await c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 5000, limitBytes: 0 } }), {
      capacityBytes: 5000,
      nodeExpansionRequired: false,
    });
    assert.deepEqual(await c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 5000, limitBytes: 0 } }), {
      capacityBytes: 5000,
      nodeExpansionRequired: false,
    });
    assert.equal((await c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 10, limitBytes: 0 } })).capacityBytes, 5000);
    await rejects(
      c.controllerExpandVolume({ volumeId: v.volumeId, capacityRange: { requiredBytes: 0, limitBytes: 100 } }),
      'OutOfRange',
      /volumes do not shrink/,
    );
    await rejects(
      c.controllerExpandVolume({ volumeId: 'vol-00000000000000000000000000000003', capacityRange: { requiredBytes: 1, limitBytes: 0 } }),
      'NotFound',
      /not found/,
    );
    const listed = (await c.listVolumes({ maxEntries: 0 })).entries.find((e) => e.volume.volumeId === v.volumeId);
    assert.equal(listed?.volume.capacityBytes, 5000);
  });

  it('topology: volumes land on a requisite or preferred node; a requisite naming no node is RESOURCE_EXHAUSTED', async () => {
    const c = n1.client;
    const at = (node: string) => ({ 'topology.cairn.dev/node': node });
    assert.deepEqual(
      (await c.createVolume({ name: 'topo-req', volumeCapabilities: [RWO], accessibilityRequirements: { requisite: [at('n2')], preferred: [] } }))
        .accessibleTopology,
      [at('n2')],
    );
    assert.deepEqual(
      (
        await c.createVolume({
          name: 'topo-pref',
          volumeCapabilities: [RWO],
          accessibilityRequirements: { requisite: [at('ghost'), at('n1'), at('n2')], preferred: [at('n2')] },
        })
      ).accessibleTopology,
      [at('n2')],
    );
    await rejects(
      c.createVolume({ name: 'topo-none', volumeCapabilities: [RWO], accessibilityRequirements: { requisite: [at('ghost'), { zone: 'z1' }], preferred: [] } }),
      'ResourceExhausted',
      /no requisite topology/,
    );
  });

  it('a capability switched off answers UNIMPLEMENTED, surfaced as CsiError code Unimplemented', async () => {
    const p = await start('limited', { capabilities: ['PUBLISH_UNPUBLISH_VOLUME', 'CREATE_DELETE_SNAPSHOT'] });
    extra.push(p);
    assert.deepEqual(await p.client.controllerGetCapabilities(), ['PUBLISH_UNPUBLISH_VOLUME', 'CREATE_DELETE_SNAPSHOT']);
    assert.deepEqual(await p.client.getPluginCapabilities(), ['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS'], 'no ONLINE without EXPAND_VOLUME');
    const err = await rejection(p.client.createVolume({ name: 'nope', volumeCapabilities: [RWO] }));
    assert.equal(err.code, 'Unimplemented');
    assert.equal(err.rpc, 'CreateVolume');
    assert.equal(
      err.message,
      'rpc error: code = Unimplemented desc = CreateVolume is not supported: the plugin runs without the CREATE_DELETE_VOLUME capability',
    );
    await rejects(p.client.deleteVolume('vol-00000000000000000000000000000004'), 'Unimplemented', /DeleteVolume is not supported/);
    await rejects(p.client.listVolumes({ maxEntries: 1 }), 'Unimplemented', /LIST_VOLUMES/);
    await rejects(p.client.getCapacity(), 'Unimplemented', /GET_CAPACITY/);
    await rejects(p.client.controllerExpandVolume({ volumeId: 'v', capacityRange: { requiredBytes: 1, limitBytes: 0 } }), 'Unimplemented', /EXPAND_VOLUME/);
    await rejects(p.client.listSnapshots({ maxEntries: 1 }), 'Unimplemented', /LIST_SNAPSHOTS/);
    // Required RPCs stay: validation, and (with its capability on) publishing.
    const v = await n1.client.createVolume({ name: 'limited-vol', volumeCapabilities: [RWO] });
    assert.equal((await p.client.validateVolumeCapabilities({ volumeId: v.volumeId, volumeCapabilities: [RWO] })).confirmed, true);
    await p.client.controllerPublishVolume({ volumeId: v.volumeId, nodeId: 'limited', volumeCapability: RWO, readonly: false });
    await p.client.controllerUnpublishVolume(v.volumeId, 'limited');
    // Without CLONE_VOLUME a volume source is refused.
    const noClone = await start('noclone', { capabilities: ['CREATE_DELETE_VOLUME'] });
    extra.push(noClone);
    await rejects(
      noClone.client.createVolume({ name: 'cl', volumeCapabilities: [RWO], contentSource: { volumeId: v.volumeId } }),
      'InvalidArgument',
      /CLONE_VOLUME/,
    );
    await rejects(
      noClone.client.controllerPublishVolume({ volumeId: v.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false }),
      'Unimplemented',
      /PUBLISH_UNPUBLISH_VOLUME/,
    );
  });

  it('VOLUME_CONDITION: ListVolumes reports a missing directory as abnormal', async () => {
    const croot = join(dir, 'cond-root');
    const p = await start('cond', { root: croot, capabilities: ['CREATE_DELETE_VOLUME', 'LIST_VOLUMES', 'VOLUME_CONDITION'] });
    extra.push(p);
    const v = await p.client.createVolume({ name: 'cond', volumeCapabilities: [RWO] });
    assert.deepEqual((await p.client.listVolumes({ maxEntries: 0 })).entries[0], {
      volume: v,
      publishedNodeIds: [],
      condition: { abnormal: false, message: 'volume directory present' },
    });
    rmSync(join(croot, 'volumes', v.volumeId), { recursive: true });
    const [entry] = (await p.client.listVolumes({ maxEntries: 0 })).entries;
    assert.equal(entry.condition?.abnormal, true);
    assert.match(entry.condition?.message ?? '', /is missing$/);
  });
});
