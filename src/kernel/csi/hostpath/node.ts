/**
 * The hostpath plugin's Node service (CSI spec "Node Service RPC"), without mounts or
 * root privileges: staging is bookkeeping (the staging directory is created when missing
 * and recorded in `root/nodes/`), publishing places a symlink at `target_path` pointing to
 * the volume's directory. The plugin advertises STAGE_UNSTAGE_VOLUME, so NodePublishVolume
 * needs the staging path of an earlier NodeStageVolume; with PUBLISH_UNPUBLISH_VOLUME on,
 * NodeStageVolume needs the volume controller-published to this node.
 *
 * @module
 */
import { lstat, mkdir, readdir, readlink, rmdir, symlink, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { WireCapability } from '../wire.js';
import type { HostpathContext } from './context.js';
import { fail, invalid, notFound, unary } from './rpc.js';
import { TOPOLOGY_KEY, type NodeRecord } from './store.js';
import { requireCapability, requireField, requirePath, unsupported } from './validate.js';

interface StageWire {
  volume_id: string;
  staging_target_path: string;
  volume_capability: WireCapability | null;
}

interface PublishWire {
  volume_id: string;
  staging_target_path: string;
  target_path: string;
  volume_capability: WireCapability | null;
  readonly: boolean;
}

/** This node's bookkeeping (made at start; remade if someone removed it). */
async function thisNode(ctx: HostpathContext): Promise<NodeRecord> {
  return (await ctx.store.getNode(ctx.nodeId)) ?? { nodeId: ctx.nodeId, maxVolumesPerNode: ctx.maxVolumesPerNode, staged: {}, published: {} };
}

/** What is at `path` on disk: nothing, a symlink (with its target), an empty directory, or something else. */
async function probePath(path: string): Promise<{ kind: 'none' } | { kind: 'link'; to: string } | { kind: 'empty-dir' } | { kind: 'other' }> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { kind: 'link', to: await readlink(path) };
    if (st.isDirectory() && (await readdir(path)).length === 0) return { kind: 'empty-dir' };
    return { kind: 'other' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw err;
  }
}

async function stage(ctx: HostpathContext, req: StageWire): Promise<object> {
  const volumeId = requireField(req.volume_id, 'volume_id');
  const stagingPath = requirePath(req.staging_target_path, 'staging_target_path');
  const cap = requireCapability(req.volume_capability, 'volume_capability');
  const why = unsupported(cap, ctx.caps);
  if (why) throw invalid(`volume_capability: ${why}`);
  return ctx.store.locked(async () => {
    const v = await ctx.store.getVolume(volumeId);
    if (!v) throw notFound(`volume "${volumeId}"`);
    if (ctx.caps.has('PUBLISH_UNPUBLISH_VOLUME') && !v.published[ctx.nodeId])
      throw fail(
        grpc.status.FAILED_PRECONDITION,
        `volume "${volumeId}" is not controller-published to node "${ctx.nodeId}"; call ControllerPublishVolume first`,
      );
    const node = await thisNode(ctx);
    const staged = node.staged[volumeId];
    if (staged) {
      if (staged.stagingPath !== stagingPath) throw fail(grpc.status.FAILED_PRECONDITION, `volume "${volumeId}" is already staged at ${staged.stagingPath}`);
      if (staged.accessMode !== cap.accessMode)
        throw fail(grpc.status.ALREADY_EXISTS, `volume "${volumeId}" is staged at ${stagingPath} with access mode ${staged.accessMode}, not ${cap.accessMode}`);
      return {};
    }
    await mkdir(stagingPath, { recursive: true });
    node.staged[volumeId] = { stagingPath, accessMode: cap.accessMode };
    await ctx.store.putNode(node);
    return {};
  });
}

async function unstage(ctx: HostpathContext, req: { volume_id: string; staging_target_path: string }): Promise<object> {
  const volumeId = requireField(req.volume_id, 'volume_id');
  const stagingPath = requirePath(req.staging_target_path, 'staging_target_path');
  return ctx.store.locked(async () => {
    if (!(await ctx.store.getVolume(volumeId))) throw notFound(`volume "${volumeId}"`);
    const node = await thisNode(ctx);
    if (node.staged[volumeId]?.stagingPath !== stagingPath) return {};
    const target = Object.entries(node.published).find(([, p]) => p.volumeId === volumeId)?.[0];
    if (target) throw fail(grpc.status.FAILED_PRECONDITION, `volume "${volumeId}" is still published at ${target}; call NodeUnpublishVolume first`);
    delete node.staged[volumeId];
    await ctx.store.putNode(node);
    return {};
  });
}

async function publish(ctx: HostpathContext, req: PublishWire): Promise<object> {
  const volumeId = requireField(req.volume_id, 'volume_id');
  const stagingPath = requirePath(req.staging_target_path, 'staging_target_path');
  const targetPath = requirePath(req.target_path, 'target_path');
  const cap = requireCapability(req.volume_capability, 'volume_capability');
  const why = unsupported(cap, ctx.caps);
  if (why) throw invalid(`volume_capability: ${why}`);
  return ctx.store.locked(async () => {
    if (!(await ctx.store.getVolume(volumeId))) throw notFound(`volume "${volumeId}"`);
    const node = await thisNode(ctx);
    if (node.staged[volumeId]?.stagingPath !== stagingPath)
      throw fail(grpc.status.FAILED_PRECONDITION, `volume "${volumeId}" is not staged at ${stagingPath}; call NodeStageVolume first`);
    const volumeDir = ctx.store.volumeDir(volumeId);
    const existing = node.published[targetPath];
    const onDisk = await probePath(targetPath);
    if (existing) {
      if (existing.volumeId !== volumeId || existing.readonly !== req.readonly)
        throw fail(grpc.status.ALREADY_EXISTS, `target_path ${targetPath} already holds volume "${existing.volumeId}" with readonly=${existing.readonly}`);
      if (onDisk.kind === 'none') await symlink(volumeDir, targetPath, 'dir');
      return {};
    }
    if (cap.accessMode === 'SINGLE_NODE_SINGLE_WRITER') {
      const other = Object.entries(node.published).find(([, p]) => p.volumeId === volumeId)?.[0];
      if (other)
        throw fail(
          grpc.status.FAILED_PRECONDITION,
          `volume "${volumeId}" is already published at ${other} and access mode SINGLE_NODE_SINGLE_WRITER allows one`,
        );
    }
    if (onDisk.kind === 'other' || (onDisk.kind === 'link' && onDisk.to !== volumeDir))
      throw fail(grpc.status.ALREADY_EXISTS, `target_path ${targetPath} exists and is not an empty directory`);
    if (onDisk.kind === 'empty-dir') await rmdir(targetPath);
    if (onDisk.kind !== 'link') {
      await mkdir(dirname(targetPath), { recursive: true });
      await symlink(volumeDir, targetPath, 'dir');
    }
    node.published[targetPath] = { volumeId, readonly: req.readonly, stagingPath };
    await ctx.store.putNode(node);
    return {};
  });
}

async function unpublish(ctx: HostpathContext, req: { volume_id: string; target_path: string }): Promise<object> {
  const volumeId = requireField(req.volume_id, 'volume_id');
  const targetPath = requirePath(req.target_path, 'target_path');
  return ctx.store.locked(async () => {
    if (!(await ctx.store.getVolume(volumeId))) throw notFound(`volume "${volumeId}"`);
    const node = await thisNode(ctx);
    const existing = node.published[targetPath];
    if (existing && existing.volumeId !== volumeId)
      throw fail(grpc.status.FAILED_PRECONDITION, `target_path ${targetPath} holds volume "${existing.volumeId}", not "${volumeId}"`);
    const onDisk = await probePath(targetPath);
    if (onDisk.kind === 'link' && onDisk.to === ctx.store.volumeDir(volumeId)) await unlink(targetPath);
    else if (onDisk.kind === 'empty-dir' && existing) await rmdir(targetPath);
    if (existing) {
      delete node.published[targetPath];
      await ctx.store.putNode(node);
    }
    return {};
  });
}

/**
 * Node handlers (CSI spec "Node Service RPC"). Paths must be absolute; a missing field is
 * INVALID_ARGUMENT naming it, an unknown volume NOT_FOUND.
 *
 * - NodeStageVolume: FAILED_PRECONDITION when PUBLISH_UNPUBLISH_VOLUME is on and the volume
 *   is not controller-published to this node, or it is staged at another path;
 *   ALREADY_EXISTS when staged at the path with another access mode; else idempotent.
 * - NodeUnstageVolume: FAILED_PRECONDITION while published at a target; else idempotent.
 * - NodePublishVolume: needs `staging_target_path` of an earlier stage (FAILED_PRECONDITION);
 *   ALREADY_EXISTS when the target holds another volume or readonly flag, or is a non-empty
 *   path; a second target under SINGLE_NODE_SINGLE_WRITER is FAILED_PRECONDITION.
 * - NodeUnpublishVolume: removes the link; idempotent.
 * - NodeGetCapabilities: STAGE_UNSTAGE_VOLUME (plus SINGLE_NODE_MULTI_WRITER when that
 *   controller capability is on).
 * - NodeGetInfo: node ID, max volumes per node (0 = no limit), topology
 *   `{"topology.cairn.dev/node": nodeId}`.
 */
export function nodeHandlers(ctx: HostpathContext): grpc.UntypedServiceImplementation {
  return {
    NodeStageVolume: unary('NodeStageVolume', ctx.log, (req: StageWire) => stage(ctx, req)),
    NodeUnstageVolume: unary('NodeUnstageVolume', ctx.log, (req: { volume_id: string; staging_target_path: string }) => unstage(ctx, req)),
    NodePublishVolume: unary('NodePublishVolume', ctx.log, (req: PublishWire) => publish(ctx, req)),
    NodeUnpublishVolume: unary('NodeUnpublishVolume', ctx.log, (req: { volume_id: string; target_path: string }) => unpublish(ctx, req)),
    NodeGetCapabilities: unary('NodeGetCapabilities', ctx.log, async () => ({
      capabilities: [
        { rpc: { type: 'STAGE_UNSTAGE_VOLUME' } },
        ...(ctx.caps.has('SINGLE_NODE_MULTI_WRITER') ? [{ rpc: { type: 'SINGLE_NODE_MULTI_WRITER' } }] : []),
      ],
    })),
    NodeGetInfo: unary('NodeGetInfo', ctx.log, async () => ({
      node_id: ctx.nodeId,
      max_volumes_per_node: ctx.maxVolumesPerNode,
      accessible_topology: { segments: { [TOPOLOGY_KEY]: ctx.nodeId } },
    })),
  };
}
