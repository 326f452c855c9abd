/**
 * The CSI client against real gRPC servers on real unix sockets: the hostpath plugin for
 * every RPC's shapes, and small hand-made csi.v1 servers for what the plugin never does
 * (an unset `ready`, enum numbers newer than Cairn's proto, a call that never answers).
 * Errors come back as CsiError with Go's status names and the reference's message form.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { CsiError, csiClient, grpcCodeName, startHostpathPlugin, type CsiFullClient, type HostpathPlugin, type VolumeCapability } from './index.js';
import { csiServices } from './proto.js';

const RWO: VolumeCapability = { accessType: { mount: { fsType: 'ext4', mountFlags: ['noatime'] } }, accessMode: 'SINGLE_NODE_WRITER' };

/** Serves `impl` for the Identity (and optionally Controller) service on `socket`. */
async function serveRaw(socket: string, identity: grpc.UntypedServiceImplementation, controller?: grpc.UntypedServiceImplementation): Promise<grpc.Server> {
  const server = new grpc.Server();
  server.addService(csiServices().Identity.service, identity);
  if (controller) server.addService(csiServices().Controller.service, controller);
  await new Promise<void>((done, reject) => server.bindAsync(`unix:${socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : done())));
  return server;
}

/** The rejection of `p`, asserted to be a CsiError. */
async function csiErrorOf(p: Promise<unknown>): Promise<CsiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CsiError, `expected CsiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('csiClient', () => {
  let dir: string;
  let plugin: HostpathPlugin;
  let client: CsiFullClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-csi-client-'));
    plugin = await startHostpathPlugin({ socket: join(dir, 'csi.sock'), root: join(dir, 'root'), nodeId: 'n1', maxVolumesPerNode: 7 });
    client = csiClient(plugin.socket);
  });
  after(async () => {
    client.close();
    await plugin.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('maps grpc status numbers to the names Go prints', () => {
    assert.equal(grpcCodeName(5), 'NotFound');
    assert.equal(grpcCodeName(9), 'FailedPrecondition');
    assert.equal(grpcCodeName(12), 'Unimplemented');
    assert.equal(grpcCodeName(14), 'Unavailable');
    assert.equal(grpcCodeName(4), 'DeadlineExceeded');
    assert.equal(grpcCodeName(42), 'Code(42)');
  });

  it('identity: info, capabilities, probe', async () => {
    assert.equal(client.socket, plugin.socket);
    const info = await client.getPluginInfo();
    assert.equal(info.name, 'hostpath.csi.cairn.dev');
    assert.equal(info.vendorVersion, '0.1.0');
    assert.equal(info.manifest.node, 'n1');
    assert.deepEqual(await client.getPluginCapabilities(), ['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS', 'ONLINE']);
    assert.equal(await client.probe(), true);
  });

  it('node: info and capabilities', async () => {
    assert.deepEqual(await client.nodeGetInfo(), { nodeId: 'n1', maxVolumesPerNode: 7, accessibleTopology: { 'topology.cairn.dev/node': 'n1' } });
    assert.deepEqual(await client.nodeGetCapabilities(), ['STAGE_UNSTAGE_VOLUME']);
  });

  it('controller: capabilities by their spec names', async () => {
    const caps = await client.controllerGetCapabilities();
    assert.ok(caps.includes('CREATE_DELETE_VOLUME') && caps.includes('LIST_VOLUMES_PUBLISHED_NODES'), caps.join());
  });

  it('a volume round trip keeps every field: create, list, validate, publish, expand, snapshot, clone, delete', async () => {
    const vol = await client.createVolume({
      name: 'client-1',
      capacityRange: { requiredBytes: 5 * 2 ** 30, limitBytes: 0 },
      volumeCapabilities: [RWO],
      parameters: { tier: 'fast' },
      secrets: { password: 'x' },
    });
    assert.match(vol.volumeId, /^vol-[0-9a-f]{32}$/);
    assert.equal(vol.capacityBytes, 5 * 2 ** 30, 'int64 beyond 32 bits as a number');
    assert.deepEqual(vol.volumeContext, { tier: 'fast' });
    assert.equal(vol.contentSource, undefined);
    assert.deepEqual(vol.accessibleTopology, [{ 'topology.cairn.dev/node': 'n1' }]);

    const v = await client.validateVolumeCapabilities({ volumeId: vol.volumeId, volumeCapabilities: [RWO] });
    assert.deepEqual(v, { confirmed: true, message: '' });
    const block = await client.validateVolumeCapabilities({
      volumeId: vol.volumeId,
      volumeCapabilities: [{ accessType: { block: true }, accessMode: 'SINGLE_NODE_WRITER' }],
    });
    assert.equal(block.confirmed, false);
    assert.match(block.message, /block access is not supported/);

    const pub = await client.controllerPublishVolume({
      volumeId: vol.volumeId,
      nodeId: 'n1',
      volumeCapability: RWO,
      readonly: false,
      volumeContext: vol.volumeContext,
    });
    assert.equal(pub.publishContext.readonly, 'false');
    const page = await client.listVolumes({ maxEntries: 0 });
    assert.equal(page.nextToken, '');
    const listed = page.entries.find((e) => e.volume.volumeId === vol.volumeId);
    assert.deepEqual(listed, { volume: vol, publishedNodeIds: ['n1'] });
    await client.controllerUnpublishVolume(vol.volumeId, 'n1');

    assert.deepEqual(await client.controllerExpandVolume({ volumeId: vol.volumeId, capacityRange: { requiredBytes: 6 * 2 ** 30, limitBytes: 0 } }), {
      capacityBytes: 6 * 2 ** 30,
      nodeExpansionRequired: false,
    });

    const snap = await client.createSnapshot({ sourceVolumeId: vol.volumeId, name: 'client-snap', parameters: { keep: '1' } });
    assert.equal(snap.sourceVolumeId, vol.volumeId);
    assert.equal(snap.sizeBytes, 6 * 2 ** 30);
    assert.equal(snap.readyToUse, true);
    assert.ok(Math.abs(snap.creationTime - Date.now() / 1000) < 60, 'creation time in Unix seconds');
    assert.deepEqual((await client.listSnapshots({ maxEntries: 10, snapshotId: snap.snapshotId })).entries, [snap]);

    const restored = await client.createVolume({ name: 'client-restored', volumeCapabilities: [RWO], contentSource: { snapshotId: snap.snapshotId } });
    assert.deepEqual(restored.contentSource, { snapshotId: snap.snapshotId });
    const clone = await client.createVolume({ name: 'client-clone', volumeCapabilities: [RWO], contentSource: { volumeId: vol.volumeId } });
    assert.deepEqual(clone.contentSource, { volumeId: vol.volumeId });

    const cap = await client.getCapacity({ volumeCapabilities: [RWO] });
    assert.ok(cap.availableCapacity > 0);
    assert.equal(cap.maximumVolumeSize, undefined);

    for (const id of [restored.volumeId, clone.volumeId, vol.volumeId]) await client.deleteVolume(id, { password: 'x' });
    await client.deleteSnapshot(snap.snapshotId);
    assert.deepEqual((await client.listSnapshots({ maxEntries: 0 })).entries, []);
  });

  it('node calls: stage, publish, unpublish, unstage', async () => {
    const vol = await client.createVolume({ name: 'client-node', volumeCapabilities: [RWO] });
    const { publishContext } = await client.controllerPublishVolume({ volumeId: vol.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false });
    const staging = join(dir, 'staging', vol.volumeId);
    const target = join(dir, 'target', vol.volumeId);
    await client.nodeStageVolume({ volumeId: vol.volumeId, stagingTargetPath: staging, volumeCapability: RWO, publishContext });
    await client.nodePublishVolume({
      volumeId: vol.volumeId,
      stagingTargetPath: staging,
      targetPath: target,
      volumeCapability: RWO,
      readonly: false,
      publishContext,
    });
    await client.nodeUnpublishVolume(vol.volumeId, target);
    await client.nodeUnstageVolume(vol.volumeId, staging);
    await client.controllerUnpublishVolume(vol.volumeId, 'n1');
    await client.deleteVolume(vol.volumeId);
  });

  it('plugin errors are CsiError with the RPC, the Go status name and the plugin text', async () => {
    const err = await csiErrorOf(
      client.controllerPublishVolume({ volumeId: 'vol-00000000000000000000000000000000', nodeId: 'n1', volumeCapability: RWO, readonly: false }),
    );
    assert.equal(err.rpc, 'ControllerPublishVolume');
    assert.equal(err.code, 'NotFound');
    assert.equal(err.details, 'volume "vol-00000000000000000000000000000000" not found');
    assert.equal(err.message, 'rpc error: code = NotFound desc = volume "vol-00000000000000000000000000000000" not found');
    assert.equal(err.name, 'CsiError');

    const bad = await csiErrorOf(client.createVolume({ name: '', volumeCapabilities: [RWO] }));
    assert.equal(bad.code, 'InvalidArgument');
    assert.equal(bad.details, 'name is required');
  });

  it('no plugin on the socket: Unavailable', async () => {
    const none = csiClient(join(dir, 'nobody.sock'));
    try {
      const err = await csiErrorOf(none.probe());
      assert.equal(err.rpc, 'Probe');
      assert.equal(err.code, 'Unavailable');
      assert.match(err.message, /^rpc error: code = Unavailable desc = /);
    } finally {
      none.close();
    }
  });

  it('after close: Canceled, and close is idempotent', async () => {
    const c = csiClient(plugin.socket);
    assert.equal(await c.probe(), true);
    c.close();
    c.close();
    const err = await csiErrorOf(c.getPluginInfo());
    assert.equal(err.code, 'Canceled');
    assert.equal(err.message, 'rpc error: code = Canceled desc = grpc: the client connection is closing');
  });

  it('a call past its deadline: DeadlineExceeded', async () => {
    const socket = join(dir, 'slow.sock');
    const server = await serveRaw(socket, {
      GetPluginInfo: () => undefined, // never answers
      GetPluginCapabilities: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { capabilities: [] }),
      Probe: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, {}),
    });
    const c = csiClient(socket, { timeoutMs: 200 });
    try {
      const started = Date.now();
      const err = await csiErrorOf(c.getPluginInfo());
      assert.equal(err.code, 'DeadlineExceeded');
      assert.ok(Date.now() - started < 5000);
    } finally {
      c.close();
      server.forceShutdown();
    }
  });

  it('an unset ready counts as ready, ready=false as not; enum numbers unknown to Cairn are dropped', async () => {
    const socket = join(dir, 'raw.sock');
    let ready: unknown = null;
    const server = await serveRaw(
      socket,
      {
        GetPluginInfo: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { name: 'raw', vendor_version: '1' }),
        GetPluginCapabilities: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
          cb(null, { capabilities: [{ service: { type: 'CONTROLLER_SERVICE' } }, { service: { type: 9 } }, { volume_expansion: { type: 'OFFLINE' } }] }),
        Probe: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { ready }),
      },
      {
        ControllerGetCapabilities: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
          cb(null, { capabilities: [{ rpc: { type: 'LIST_VOLUMES' } }, { rpc: { type: 14 } }] }),
        ListVolumes: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
          cb(null, {
            entries: [
              {
                volume: { volume_id: 'ext-1', capacity_bytes: 10 },
                status: { published_node_ids: ['a'], volume_condition: { abnormal: true, message: 'bad disk' } },
              },
            ],
            next_token: 'x',
          }),
      },
    );
    const c = csiClient(socket);
    try {
      assert.equal(await c.probe(), true);
      ready = { value: false };
      assert.equal(await c.probe(), false);
      assert.deepEqual(await c.getPluginInfo(), { name: 'raw', vendorVersion: '1', manifest: {} });
      assert.deepEqual(await c.getPluginCapabilities(), ['CONTROLLER_SERVICE', 'OFFLINE']);
      assert.deepEqual(await c.controllerGetCapabilities(), ['LIST_VOLUMES']);
      assert.deepEqual(await c.listVolumes({ maxEntries: 1 }), {
        entries: [
          {
            volume: { volumeId: 'ext-1', capacityBytes: 10, volumeContext: {}, accessibleTopology: [] },
            publishedNodeIds: ['a'],
            condition: { abnormal: true, message: 'bad disk' },
          },
        ],
        nextToken: 'x',
      });
      const err = await csiErrorOf(c.nodeGetInfo());
      assert.equal(err.code, 'Unimplemented', 'a service the server does not have');
    } finally {
      c.close();
      server.forceShutdown();
    }
  });
});
