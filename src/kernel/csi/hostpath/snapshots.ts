/**
 * The hostpath plugin's Controller service for snapshots (CSI spec "CreateSnapshot",
 * "DeleteSnapshot", "ListSnapshots"): a snapshot is a copy of its source volume's
 * directory, ready to use as soon as CreateSnapshot answers; idempotent by name.
 *
 * @module
 */
import * as grpc from '@grpc/grpc-js';
import type { WireSnapshot } from '../wire.js';
import type { HostpathContext } from './context.js';
import { page } from './paging.js';
import { fail, notFound, requireCapability as requireRpc, unary } from './rpc.js';
import { HostpathStore, type SnapshotRecord } from './store.js';
import { maxEntries, requireField, requireName } from './validate.js';

/** A snapshot record on the wire (always `ready_to_use`). */
function wireSnapshot(s: SnapshotRecord): WireSnapshot {
  return {
    size_bytes: s.sizeBytes,
    snapshot_id: s.snapshotId,
    source_volume_id: s.sourceVolumeId,
    creation_time: { seconds: s.creationTime.seconds, nanos: s.creationTime.nanos },
    ready_to_use: true,
  };
}

interface CreateSnapshotWire {
  source_volume_id: string;
  name: string;
  parameters: Record<string, string>;
}

async function createSnapshot(ctx: HostpathContext, req: CreateSnapshotWire): Promise<{ snapshot: WireSnapshot }> {
  requireRpc(ctx.caps, 'CREATE_DELETE_SNAPSHOT', 'CreateSnapshot');
  const sourceVolumeId = requireField(req.source_volume_id, 'source_volume_id');
  const name = requireName(req.name);
  return ctx.store.locked(async () => {
    const { store } = ctx;
    const snapshotId = HostpathStore.snapshotIdFor(name);
    const existing = await store.getSnapshot(snapshotId);
    if (existing) {
      if (existing.sourceVolumeId === sourceVolumeId) return { snapshot: wireSnapshot(existing) };
      throw fail(grpc.status.ALREADY_EXISTS, `snapshot "${name}" already exists as ${snapshotId} of volume "${existing.sourceVolumeId}"`);
    }
    const volume = await store.getVolume(sourceVolumeId);
    if (!volume) throw notFound(`volume "${sourceVolumeId}"`);
    await store.copyTree(store.volumeDir(sourceVolumeId), store.snapshotDir(snapshotId));
    const ms = ctx.now();
    const record: SnapshotRecord = {
      snapshotId,
      name,
      sourceVolumeId,
      sizeBytes: volume.capacityBytes,
      creationTime: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 },
      parameters: { ...req.parameters },
    };
    await store.putSnapshot(record);
    ctx.log.info({ snapshotId, sourceVolumeId }, 'csi hostpath: snapshot created');
    return { snapshot: wireSnapshot(record) };
  });
}

async function deleteSnapshot(ctx: HostpathContext, req: { snapshot_id: string }): Promise<object> {
  requireRpc(ctx.caps, 'CREATE_DELETE_SNAPSHOT', 'DeleteSnapshot');
  const snapshotId = requireField(req.snapshot_id, 'snapshot_id');
  return ctx.store.locked(async () => {
    if (await ctx.store.getSnapshot(snapshotId)) {
      await ctx.store.removeSnapshot(snapshotId);
      ctx.log.info({ snapshotId }, 'csi hostpath: snapshot deleted');
    }
    return {};
  });
}

interface ListSnapshotsWire {
  max_entries: number;
  starting_token: string;
  source_volume_id: string;
  snapshot_id: string;
}

async function listSnapshots(ctx: HostpathContext, req: ListSnapshotsWire): Promise<object> {
  requireRpc(ctx.caps, 'LIST_SNAPSHOTS', 'ListSnapshots');
  const max = maxEntries(req.max_entries);
  let all = await ctx.store.listSnapshots();
  // The spec: an unknown snapshot_id or source_volume_id gives an empty list, not an error.
  if (req.snapshot_id) all = all.filter((s) => s.snapshotId === req.snapshot_id);
  if (req.source_volume_id) all = all.filter((s) => s.sourceVolumeId === req.source_volume_id);
  const { entries, nextToken } = page(all, (s) => s.snapshotId, max, req.starting_token);
  return { entries: entries.map((s) => ({ snapshot: wireSnapshot(s) })), next_token: nextToken };
}

/**
 * Controller handlers for snapshots (CSI spec "CreateSnapshot", "DeleteSnapshot",
 * "ListSnapshots"); sizes in bytes, creation times Unix seconds + nanos.
 *
 * - CreateSnapshot (CREATE_DELETE_SNAPSHOT): INVALID_ARGUMENT for a missing
 *   source_volume_id or name; idempotent by name for the same source, ALREADY_EXISTS for
 *   another; NOT_FOUND for an unknown source volume; size = the source's capacity.
 * - DeleteSnapshot (CREATE_DELETE_SNAPSHOT): OK for an unknown snapshot.
 * - ListSnapshots (LIST_SNAPSHOTS): filters by snapshot_id and source_volume_id (unknown →
 *   empty list), then pages (paging.ts; ABORTED for a foreign token).
 *
 * UNIMPLEMENTED when the capability is off.
 */
export function snapshotHandlers(ctx: HostpathContext): grpc.UntypedServiceImplementation {
  return {
    CreateSnapshot: unary('CreateSnapshot', ctx.log, (req: CreateSnapshotWire) => createSnapshot(ctx, req)),
    DeleteSnapshot: unary('DeleteSnapshot', ctx.log, (req: { snapshot_id: string }) => deleteSnapshot(ctx, req)),
    ListSnapshots: unary('ListSnapshots', ctx.log, (req: ListSnapshotsWire) => listSnapshots(ctx, req)),
  };
}
