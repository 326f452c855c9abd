/**
 * The hostpath plugin's Node service over real gRPC on a real unix socket: NodeGetInfo
 * and capabilities, the stage → publish → unpublish → unstage lifecycle as directory
 * bookkeeping (a symlink at the target), its order checks, idempotency, and bad arguments.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { csiServices } from '../proto.js';
import { csiClient, startHostpathPlugin, type CsiFullClient, type CsiVolume, type HostpathPlugin } from '../index.js';
import { RWO, rejects } from '../testdata/assert-csi.js';

describe('hostpath node service', () => {
  let dir: string;
  let root: string;
  let plugin: HostpathPlugin;
  let client: CsiFullClient;
  let seq = 0;

  /** A new volume, controller-published to n1, with its staging and target paths. */
  async function published(): Promise<{ v: CsiVolume; staging: string; target: string }> {
    const v = await client.createVolume({ name: `node-${++seq}`, volumeCapabilities: [RWO] });
    await client.controllerPublishVolume({ volumeId: v.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false });
    return { v, staging: join(dir, 'staging', v.volumeId), target: join(dir, 'pods', `pod-${seq}`, 'mnt') };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-csi-node-'));
    root = join(dir, 'root');
    plugin = await startHostpathPlugin({ socket: join(dir, 'csi.sock'), root, nodeId: 'n1', maxVolumesPerNode: 3 });
    client = csiClient(plugin.socket);
  });
  after(async () => {
    client.close();
    await plugin.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('NodeGetInfo: node ID, volume limit and topology; NodeGetCapabilities: STAGE_UNSTAGE_VOLUME', async () => {
    assert.deepEqual(await client.nodeGetInfo(), { nodeId: 'n1', maxVolumesPerNode: 3, accessibleTopology: { 'topology.cairn.dev/node': 'n1' } });
    assert.deepEqual(await client.nodeGetCapabilities(), ['STAGE_UNSTAGE_VOLUME']);
  });

  it('stage → publish → unpublish → unstage: the target is a link to the volume directory; each step idempotent', async () => {
    const { v, staging, target } = await published();
    await client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: RWO });
    assert.ok(lstatSync(staging).isDirectory(), 'the staging directory is made when missing');
    await client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: RWO });

    await client.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: RWO, readonly: false });
    assert.equal(readlinkSync(target), join(root, 'volumes', v.volumeId));
    writeFileSync(join(target, 'hello.txt'), 'hi');
    assert.equal(readFileSync(join(root, 'volumes', v.volumeId, 'hello.txt'), 'utf8'), 'hi', 'writes land in the volume');
    await client.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: RWO, readonly: false });
    const node = JSON.parse(readFileSync(join(root, 'nodes', 'node-n1.json'), 'utf8'));
    assert.deepEqual(node.staged[v.volumeId], { stagingPath: staging, accessMode: 'SINGLE_NODE_WRITER' });
    assert.deepEqual(node.published[target], { volumeId: v.volumeId, readonly: false, stagingPath: staging });

    await rejects(
      client.nodeUnstageVolume(v.volumeId, staging),
      'FailedPrecondition',
      `volume "${v.volumeId}" is still published at ${target}; call NodeUnpublishVolume first`,
    );
    await rejects(client.deleteVolume(v.volumeId), 'FailedPrecondition', /is published on node\(s\) n1/);

    await client.nodeUnpublishVolume(v.volumeId, target);
    assert.ok(!existsSync(target));
    await client.nodeUnpublishVolume(v.volumeId, target);
    await client.nodeUnstageVolume(v.volumeId, staging);
    await client.nodeUnstageVolume(v.volumeId, staging);
    await client.controllerUnpublishVolume(v.volumeId, 'n1');
    await client.deleteVolume(v.volumeId);
    assert.deepEqual(JSON.parse(readFileSync(join(root, 'nodes', 'node-n1.json'), 'utf8')).published, {});
  });

  it('order: stage needs the controller publish, publish needs the stage; the volume stays in use while staged', async () => {
    const v = await client.createVolume({ name: 'order', volumeCapabilities: [RWO] });
    const staging = join(dir, 'staging', 'order');
    await rejects(
      client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: RWO }),
      'FailedPrecondition',
      `volume "${v.volumeId}" is not controller-published to node "n1"; call ControllerPublishVolume first`,
    );
    await client.controllerPublishVolume({ volumeId: v.volumeId, nodeId: 'n1', volumeCapability: RWO, readonly: false });
    await rejects(
      client.nodePublishVolume({
        volumeId: v.volumeId,
        stagingTargetPath: staging,
        targetPath: join(dir, 'pods', 'order'),
        volumeCapability: RWO,
        readonly: false,
      }),
      'FailedPrecondition',
      `volume "${v.volumeId}" is not staged at ${staging}; call NodeStageVolume first`,
    );
    await client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: RWO });
    await rejects(
      client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: join(dir, 'elsewhere'), volumeCapability: RWO }),
      'FailedPrecondition',
      `volume "${v.volumeId}" is already staged at ${staging}`,
    );
    await rejects(
      client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: { ...RWO, accessMode: 'MULTI_NODE_MULTI_WRITER' } }),
      'AlreadyExists',
      /staged at .* with access mode SINGLE_NODE_WRITER/,
    );
    await client.controllerUnpublishVolume(v.volumeId, 'n1');
    await rejects(client.deleteVolume(v.volumeId), 'FailedPrecondition', `volume "${v.volumeId}" is in use on node "n1" (staged at ${staging})`);
    await client.nodeUnstageVolume(v.volumeId, staging);
    await client.deleteVolume(v.volumeId);
  });

  it('publish conflicts: another readonly at the same target, a non-empty target; an empty target directory is replaced', async () => {
    const { v, staging, target } = await published();
    await client.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: RWO });
    mkdirSync(target, { recursive: true });
    await client.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: RWO, readonly: true });
    assert.ok(lstatSync(target).isSymbolicLink(), 'the empty directory became the link');
    await rejects(
      client.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: RWO, readonly: false }),
      'AlreadyExists',
      /already holds volume .* with readonly=true/,
    );
    const busy = join(dir, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'f'), 'x');
    await rejects(
      client.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: busy, volumeCapability: RWO, readonly: false }),
      'AlreadyExists',
      `target_path ${busy} exists and is not an empty directory`,
    );
    // A second target of the same volume on this node is fine for SINGLE_NODE_WRITER.
    const second = join(dir, 'pods', 'second');
    await client.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: second, volumeCapability: RWO, readonly: false });
    for (const t of [target, second]) await client.nodeUnpublishVolume(v.volumeId, t);
    await client.nodeUnstageVolume(v.volumeId, staging);
  });

  it('bad arguments name the field; an unknown volume is NOT_FOUND', async () => {
    const vid = 'vol-00000000000000000000000000000000';
    await rejects(client.nodeStageVolume({ volumeId: '', stagingTargetPath: '/tmp/s', volumeCapability: RWO }), 'InvalidArgument', 'volume_id is required');
    await rejects(
      client.nodeStageVolume({ volumeId: vid, stagingTargetPath: '', volumeCapability: RWO }),
      'InvalidArgument',
      'staging_target_path is required',
    );
    await rejects(
      client.nodeStageVolume({ volumeId: vid, stagingTargetPath: 'relative/dir', volumeCapability: RWO }),
      'InvalidArgument',
      'staging_target_path must be an absolute path, got "relative/dir"',
    );
    await rejects(
      client.nodeStageVolume({
        volumeId: vid,
        stagingTargetPath: '/tmp/s',
        volumeCapability: { accessType: { block: true }, accessMode: 'SINGLE_NODE_WRITER' },
      }),
      'InvalidArgument',
      /^volume_capability: block access/,
    );
    await rejects(client.nodeStageVolume({ volumeId: vid, stagingTargetPath: '/tmp/s', volumeCapability: RWO }), 'NotFound', `volume "${vid}" not found`);
    await rejects(
      client.nodePublishVolume({ volumeId: vid, targetPath: '/tmp/t', volumeCapability: RWO, readonly: false }),
      'InvalidArgument',
      'staging_target_path is required',
    );
    await rejects(
      client.nodePublishVolume({ volumeId: vid, stagingTargetPath: '/tmp/s', targetPath: '', volumeCapability: RWO, readonly: false }),
      'InvalidArgument',
      'target_path is required',
    );
    await rejects(client.nodeUnpublishVolume('', '/tmp/t'), 'InvalidArgument', 'volume_id is required');
    await rejects(client.nodeUnpublishVolume(vid, ''), 'InvalidArgument', 'target_path is required');
    await rejects(client.nodeUnpublishVolume(vid, '/tmp/t'), 'NotFound', `volume "${vid}" not found`);
    await rejects(client.nodeUnstageVolume(vid, ''), 'InvalidArgument', 'staging_target_path is required');
    await rejects(client.nodeUnstageVolume(vid, '/tmp/s'), 'NotFound', `volume "${vid}" not found`);
    const Node = csiServices().Node;
    const raw = new Node(`unix:${plugin.socket}`, grpc.credentials.createInsecure());
    try {
      const err = await new Promise<grpc.ServiceError>((done) =>
        (raw as unknown as Record<string, (r: unknown, cb: (e: grpc.ServiceError) => void) => void>).NodeStageVolume(
          { volume_id: vid, staging_target_path: '/tmp/s' },
          done,
        ),
      );
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(err.details, 'volume_capability is required');
    } finally {
      raw.close();
    }
  });

  it('without PUBLISH_UNPUBLISH_VOLUME, staging needs no controller publish', async () => {
    const p = await startHostpathPlugin({ socket: join(dir, 'nopub.sock'), root, nodeId: 'nopub', capabilities: ['CREATE_DELETE_VOLUME'] });
    const c = csiClient(p.socket);
    try {
      const v = await c.createVolume({ name: 'nopub', volumeCapabilities: [RWO] });
      const staging = join(dir, 'staging', 'nopub');
      const target = join(dir, 'pods', 'nopub');
      await c.nodeStageVolume({ volumeId: v.volumeId, stagingTargetPath: staging, volumeCapability: RWO });
      await c.nodePublishVolume({ volumeId: v.volumeId, stagingTargetPath: staging, targetPath: target, volumeCapability: RWO, readonly: false });
      assert.ok(lstatSync(target).isSymbolicLink());
      await c.nodeUnpublishVolume(v.volumeId, target);
      await c.nodeUnstageVolume(v.volumeId, staging);
      await c.deleteVolume(v.volumeId);
    } finally {
      c.close();
      await p.close();
    }
  });
});
