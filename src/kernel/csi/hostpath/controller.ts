/**
 * The hostpath plugin's Controller service for volumes (CSI spec "Controller Service
 * RPC"): CreateVolume, DeleteVolume, ControllerPublishVolume, ControllerUnpublishVolume,
 * ValidateVolumeCapabilities, ListVolumes, GetCapacity, ControllerGetCapabilities and
 * ControllerExpandVolume. Snapshots are in snapshots.ts.
 *
 * Volumes are directories under `root` with a JSON sidecar (store.ts); capacity is
 * nominal. The nodes a volume can be published to are the node plugins started on the
 * same root (each registers itself in `root/nodes/`).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import type { VolumeCapability } from '../types.js';
import { fromWireContentSource, type WireCapability, type WireCapacityRange, type WireContentSource, type WireTopology, type WireVolume } from '../wire.js';
import type { HostpathContext } from './context.js';
import { page } from './paging.js';
import { fail, invalid, missing, notFound, requireCapability as requireRpc, unary } from './rpc.js';
import { HostpathStore, TOPOLOGY_KEY, type VolumeRecord } from './store.js';
import {
  SINGLE_NODE_MODES,
  capacityRange,
  maxEntries,
  requireCapabilities,
  requireCapability,
  requireField,
  requireName,
  requireSupported,
  sameMap,
  unsupported,
} from './validate.js';

/** Capacity of a volume created without a capacity range or source: 1 GiB. */
export const DEFAULT_CAPACITY_BYTES = 1024 ** 3;

interface CreateVolumeWire {
  name: string;
  capacity_range: WireCapacityRange | null;
  volume_capabilities: WireCapability[];
  parameters: Record<string, string>;
  volume_content_source: WireContentSource | null;
  accessibility_requirements: { requisite: WireTopology[]; preferred: WireTopology[] } | null;
}

/** A volume record on the wire. */
function wireVolume(v: VolumeRecord): WireVolume {
  const source = v.contentSource?.snapshotId
    ? { snapshot: { snapshot_id: v.contentSource.snapshotId } }
    : v.contentSource?.volumeId
      ? { volume: { volume_id: v.contentSource.volumeId } }
      : null;
  return {
    capacity_bytes: v.capacityBytes,
    volume_id: v.volumeId,
    volume_context: { ...v.volumeContext },
    content_source: source,
    accessible_topology: v.accessibleTopology.map((segments) => ({ segments: { ...segments } })),
  };
}

/** The node a topology segment map names, when it names exactly one hostpath node. */
function nodeOf(t: WireTopology): string | undefined {
  const keys = Object.keys(t.segments ?? {});
  return keys.length === 1 && keys[0] === TOPOLOGY_KEY ? t.segments[TOPOLOGY_KEY] : undefined;
}

/**
 * The node a new volume is placed on: the first preferred topology naming a known node
 * (and allowed by `requisite`), else the first requisite one, else this plugin's node.
 * @throws {RpcFailure} RESOURCE_EXHAUSTED when `requisite` names no known node (CSI "Unable to provision in `accessible_topology`").
 */
async function placeVolume(ctx: HostpathContext, reqs: CreateVolumeWire['accessibility_requirements']): Promise<string> {
  const requisite = reqs?.requisite ?? [];
  const preferred = reqs?.preferred ?? [];
  if (requisite.length === 0 && preferred.length === 0) return ctx.nodeId;
  const known = new Set((await ctx.store.listNodes()).map((n) => n.nodeId));
  const allowed = requisite.length > 0 ? requisite.map(nodeOf) : undefined;
  for (const t of preferred) {
    const n = nodeOf(t);
    if (n && known.has(n) && (!allowed || allowed.includes(n))) return n;
  }
  if (!allowed) return ctx.nodeId;
  const first = allowed.find((n) => n && known.has(n));
  if (first) return first;
  throw fail(grpc.status.RESOURCE_EXHAUSTED, `accessibility_requirements: no requisite topology names a node of this plugin (segment ${TOPOLOGY_KEY})`);
}

/** What a CreateVolume request asks of a volume: the capacity range in bytes (0: unbounded), parameters and content source. */
interface VolumeAsk {
  readonly required: number;
  readonly limit: number;
  readonly parameters: Record<string, string>;
  readonly source: VolumeRecord['contentSource'];
}

/** What makes an existing volume of the same name incompatible with a CreateVolume request; empty when compatible. */
function incompatibilities(v: VolumeRecord, { required, limit, parameters, source }: VolumeAsk): string[] {
  const why: string[] = [];
  if ((required > 0 && v.capacityBytes < required) || (limit > 0 && v.capacityBytes > limit))
    why.push(`capacity ${v.capacityBytes} bytes is outside the requested range`);
  if (!sameMap(v.parameters, parameters)) why.push('parameters differ');
  if ((v.contentSource?.snapshotId ?? '') !== (source?.snapshotId ?? '') || (v.contentSource?.volumeId ?? '') !== (source?.volumeId ?? ''))
    why.push('content source differs');
  return why;
}

async function createVolume(ctx: HostpathContext, req: CreateVolumeWire): Promise<{ volume: WireVolume }> {
  requireRpc(ctx.caps, 'CREATE_DELETE_VOLUME', 'CreateVolume');
  const name = requireName(req.name);
  const caps = requireCapabilities(req.volume_capabilities);
  const { required, limit } = capacityRange(req.capacity_range);
  requireSupported(caps, ctx.caps);
  const source = fromWireContentSource(req.volume_content_source);
  if (req.volume_content_source && !source) throw missing('volume_content_source.type');
  if (source && 'snapshotId' in source) requireField(source.snapshotId, 'volume_content_source.snapshot.snapshot_id');
  if (source && 'volumeId' in source) requireField(source.volumeId, 'volume_content_source.volume.volume_id');
  if (source?.snapshotId && !ctx.caps.has('CREATE_DELETE_SNAPSHOT'))
    throw invalid('volume_content_source.snapshot: the plugin runs without the CREATE_DELETE_SNAPSHOT capability');
  if (source?.volumeId && !ctx.caps.has('CLONE_VOLUME')) throw invalid('volume_content_source.volume: the plugin runs without the CLONE_VOLUME capability');
  const parameters = { ...req.parameters };

  return ctx.store.locked(async () => {
    const { store } = ctx;
    const volumeId = HostpathStore.volumeIdFor(name);
    const existing = await store.getVolume(volumeId);
    if (existing) {
      const why = incompatibilities(existing, { required, limit, parameters, source });
      if (why.length > 0) throw fail(grpc.status.ALREADY_EXISTS, `volume "${name}" already exists as ${volumeId} and is incompatible: ${why.join('; ')}`);
      return { volume: wireVolume(existing) };
    }
    let sourceDir: string | undefined;
    let sourceBytes = 0;
    if (source?.snapshotId) {
      const snap = await store.getSnapshot(source.snapshotId);
      if (!snap) throw notFound(`snapshot "${source.snapshotId}"`);
      sourceDir = store.snapshotDir(snap.snapshotId);
      sourceBytes = snap.sizeBytes;
    } else if (source?.volumeId) {
      const vol = await store.getVolume(source.volumeId);
      if (!vol) throw notFound(`volume "${source.volumeId}"`);
      sourceDir = store.volumeDir(vol.volumeId);
      sourceBytes = vol.capacityBytes;
    }
    let capacityBytes: number;
    if (sourceDir) {
      if ((required > 0 && required < sourceBytes) || (limit > 0 && limit < sourceBytes))
        throw fail(grpc.status.OUT_OF_RANGE, `capacity_range: the source holds ${sourceBytes} bytes; the volume cannot be smaller`);
      capacityBytes = required > 0 ? required : sourceBytes;
    } else {
      capacityBytes = required > 0 ? required : limit > 0 ? Math.min(DEFAULT_CAPACITY_BYTES, limit) : DEFAULT_CAPACITY_BYTES;
    }
    const node = await placeVolume(ctx, req.accessibility_requirements);
    const dir = store.volumeDir(volumeId);
    if (sourceDir) {
      await store.copyTree(sourceDir, dir);
    } else {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
    }
    const record: VolumeRecord = {
      volumeId,
      name,
      capacityBytes,
      parameters,
      volumeContext: parameters,
      ...(source ? { contentSource: source } : {}),
      accessibleTopology: [{ [TOPOLOGY_KEY]: node }],
      published: {},
    };
    await store.putVolume(record);
    ctx.log.info({ volumeId, capacityBytes, node }, 'csi hostpath: volume created');
    return { volume: wireVolume(record) };
  });
}

async function deleteVolume(ctx: HostpathContext, req: { volume_id: string }): Promise<object> {
  requireRpc(ctx.caps, 'CREATE_DELETE_VOLUME', 'DeleteVolume');
  const volumeId = requireField(req.volume_id, 'volume_id');
  return ctx.store.locked(async () => {
    const v = await ctx.store.getVolume(volumeId);
    if (!v) return {};
    const published = Object.keys(v.published).sort();
    if (published.length > 0)
      throw fail(grpc.status.FAILED_PRECONDITION, `volume "${volumeId}" is published on node(s) ${published.join(', ')}; unpublish it first`);
    for (const n of await ctx.store.listNodes()) {
      const target = Object.entries(n.published).find(([, p]) => p.volumeId === volumeId)?.[0];
      if (n.staged[volumeId] || target)
        throw fail(
          grpc.status.FAILED_PRECONDITION,
          `volume "${volumeId}" is in use on node "${n.nodeId}" (${target ? `published at ${target}` : `staged at ${n.staged[volumeId].stagingPath}`})`,
        );
    }
    await ctx.store.removeVolume(volumeId);
    ctx.log.info({ volumeId }, 'csi hostpath: volume deleted');
    return {};
  });
}

interface PublishWire {
  volume_id: string;
  node_id: string;
  volume_capability: WireCapability | null;
  readonly: boolean;
  volume_context: Record<string, string>;
}

async function controllerPublish(ctx: HostpathContext, req: PublishWire): Promise<{ publish_context: Record<string, string> }> {
  requireRpc(ctx.caps, 'PUBLISH_UNPUBLISH_VOLUME', 'ControllerPublishVolume');
  const volumeId = requireField(req.volume_id, 'volume_id');
  const nodeId = requireField(req.node_id, 'node_id');
  const cap = requireCapability(req.volume_capability, 'volume_capability');
  const why = unsupported(cap, ctx.caps);
  if (why) throw invalid(`volume_capability: ${why}`);
  if (req.readonly && !ctx.caps.has('PUBLISH_READONLY')) throw invalid('readonly: the plugin runs without the PUBLISH_READONLY capability');
  return ctx.store.locked(async () => {
    const { store } = ctx;
    const v = await store.getVolume(volumeId);
    if (!v) throw notFound(`volume "${volumeId}"`);
    const node = await store.getNode(nodeId);
    if (!node) throw notFound(`node "${nodeId}"`);
    if (Object.keys(req.volume_context ?? {}).length > 0 && !sameMap(req.volume_context, v.volumeContext))
      throw invalid("volume_context does not match the volume's");
    const context = { path: store.volumeDir(volumeId), readonly: String(req.readonly) };
    const mine = v.published[nodeId];
    if (mine) {
      if (mine.readonly === req.readonly && mine.accessMode === cap.accessMode) return { publish_context: context };
      throw fail(
        grpc.status.ALREADY_EXISTS,
        `volume "${volumeId}" is already published on node "${nodeId}" with readonly=${mine.readonly} and access mode ${mine.accessMode}`,
      );
    }
    const others = Object.entries(v.published).filter(([n]) => n !== nodeId);
    const exclusive = others.find(([, p]) => SINGLE_NODE_MODES.has(p.accessMode));
    if (others.length > 0 && (SINGLE_NODE_MODES.has(cap.accessMode) || exclusive)) {
      const [other, p] = exclusive ?? others[0];
      throw fail(
        grpc.status.FAILED_PRECONDITION,
        `volume "${volumeId}" is published on node "${other}" and access mode ${exclusive ? p.accessMode : cap.accessMode} allows a single node`,
      );
    }
    if (cap.accessMode === 'MULTI_NODE_SINGLE_WRITER' && !req.readonly) {
      const writer = others.find(([, p]) => !p.readonly);
      if (writer)
        throw fail(
          grpc.status.FAILED_PRECONDITION,
          `volume "${volumeId}" already has a writer on node "${writer[0]}" and access mode MULTI_NODE_SINGLE_WRITER allows one`,
        );
    }
    if (node.maxVolumesPerNode > 0) {
      const count = (await store.listVolumes()).filter((x) => x.published[nodeId]).length;
      if (count >= node.maxVolumesPerNode)
        throw fail(grpc.status.RESOURCE_EXHAUSTED, `node "${nodeId}" has reached its maximum of ${node.maxVolumesPerNode} published volumes`);
    }
    v.published[nodeId] = { readonly: req.readonly, accessMode: cap.accessMode };
    await store.putVolume(v);
    return { publish_context: context };
  });
}

async function controllerUnpublish(ctx: HostpathContext, req: { volume_id: string; node_id: string }): Promise<object> {
  requireRpc(ctx.caps, 'PUBLISH_UNPUBLISH_VOLUME', 'ControllerUnpublishVolume');
  const volumeId = requireField(req.volume_id, 'volume_id');
  return ctx.store.locked(async () => {
    const v = await ctx.store.getVolume(volumeId);
    if (!v) throw notFound(`volume "${volumeId}"`);
    if (req.node_id) {
      if (!(await ctx.store.getNode(req.node_id))) throw notFound(`node "${req.node_id}"`);
      if (!v.published[req.node_id]) return {};
      delete v.published[req.node_id];
    } else {
      if (Object.keys(v.published).length === 0) return {};
      v.published = {};
    }
    await ctx.store.putVolume(v);
    return {};
  });
}

interface ValidateWire {
  volume_id: string;
  volume_context: Record<string, string>;
  volume_capabilities: WireCapability[];
  parameters: Record<string, string>;
}

async function validateCapabilities(ctx: HostpathContext, req: ValidateWire): Promise<object> {
  const volumeId = requireField(req.volume_id, 'volume_id');
  const caps: VolumeCapability[] = requireCapabilities(req.volume_capabilities);
  const v = await ctx.store.getVolume(volumeId);
  if (!v) throw notFound(`volume "${volumeId}"`);
  const refuse = (message: string) => ({ confirmed: null, message });
  if (Object.keys(req.volume_context).length > 0 && !sameMap(req.volume_context, v.volumeContext)) return refuse("volume_context does not match the volume's");
  if (Object.keys(req.parameters).length > 0 && !sameMap(req.parameters, v.parameters)) return refuse("parameters do not match the volume's");
  for (const [i, c] of caps.entries()) {
    const why = unsupported(c, ctx.caps);
    if (why) return refuse(`volume_capabilities[${i}]: ${why}`);
  }
  return { confirmed: { volume_context: req.volume_context, volume_capabilities: req.volume_capabilities, parameters: req.parameters }, message: '' };
}

async function listVolumes(ctx: HostpathContext, req: { max_entries: number; starting_token: string }): Promise<object> {
  requireRpc(ctx.caps, 'LIST_VOLUMES', 'ListVolumes');
  const max = maxEntries(req.max_entries);
  const { entries, nextToken } = page(await ctx.store.listVolumes(), (v) => v.volumeId, max, req.starting_token);
  const withNodes = ctx.caps.has('LIST_VOLUMES_PUBLISHED_NODES');
  const withCondition = ctx.caps.has('VOLUME_CONDITION');
  return {
    entries: entries.map((v) => {
      const dir = ctx.store.volumeDir(v.volumeId);
      const present = existsSync(dir);
      const condition = present ? { abnormal: false, message: 'volume directory present' } : { abnormal: true, message: `volume directory ${dir} is missing` };
      return {
        volume: wireVolume(v),
        status:
          withNodes || withCondition
            ? { published_node_ids: withNodes ? Object.keys(v.published).sort() : [], volume_condition: withCondition ? condition : null }
            : null,
      };
    }),
    next_token: nextToken,
  };
}

async function getCapacity(ctx: HostpathContext, req: { volume_capabilities: WireCapability[]; accessible_topology: WireTopology | null }): Promise<object> {
  requireRpc(ctx.caps, 'GET_CAPACITY', 'GetCapacity');
  const caps = req.volume_capabilities.map((w, i) => requireCapability(w, `volume_capabilities[${i}]`));
  const none = { available_capacity: 0, maximum_volume_size: null };
  if (caps.some((c) => unsupported(c, ctx.caps))) return none;
  if (req.accessible_topology && Object.keys(req.accessible_topology.segments).length > 0) {
    const node = nodeOf(req.accessible_topology);
    if (!node || !(await ctx.store.getNode(node))) return none;
  }
  return { available_capacity: await ctx.store.availableBytes(), maximum_volume_size: null };
}

async function expandVolume(
  ctx: HostpathContext,
  req: { volume_id: string; capacity_range: WireCapacityRange | null; volume_capability: WireCapability | null },
): Promise<object> {
  requireRpc(ctx.caps, 'EXPAND_VOLUME', 'ControllerExpandVolume');
  const volumeId = requireField(req.volume_id, 'volume_id');
  if (!req.capacity_range) throw missing('capacity_range');
  const { required, limit } = capacityRange(req.capacity_range);
  if (required === 0 && limit === 0) throw missing('capacity_range.required_bytes');
  if (req.volume_capability) {
    const why = unsupported(requireCapability(req.volume_capability, 'volume_capability'), ctx.caps);
    if (why) throw invalid(`volume_capability: ${why}`);
  }
  return ctx.store.locked(async () => {
    const v = await ctx.store.getVolume(volumeId);
    if (!v) throw notFound(`volume "${volumeId}"`);
    if (limit > 0 && v.capacityBytes > limit)
      throw fail(
        grpc.status.OUT_OF_RANGE,
        `volume "${volumeId}" holds ${v.capacityBytes} bytes, more than capacity_range.limit_bytes (${limit}); volumes do not shrink`,
      );
    const target = required > 0 ? required : limit;
    if (target > v.capacityBytes) {
      v.capacityBytes = target;
      await ctx.store.putVolume(v);
    }
    return { capacity_bytes: v.capacityBytes, node_expansion_required: false };
  });
}

/**
 * Controller handlers for volumes (snapshots: snapshots.ts), per CSI spec "Controller
 * Service RPC". Sizes are bytes. Every RPC answers INVALID_ARGUMENT `<field> is required`
 * for a missing field, and UNIMPLEMENTED when its capability is off:
 *
 * - CreateVolume (CREATE_DELETE_VOLUME): idempotent by name; ALREADY_EXISTS when the
 *   volume of that name has a capacity outside the range, other parameters or another
 *   source; capacity = required_bytes, else the source's size, else min(1 GiB, limit);
 *   NOT_FOUND for an unknown source; OUT_OF_RANGE when the range is below the source's
 *   size; a snapshot source needs CREATE_DELETE_SNAPSHOT, a volume source CLONE_VOLUME
 *   (else INVALID_ARGUMENT); RESOURCE_EXHAUSTED when `requisite` names no known node.
 * - DeleteVolume (CREATE_DELETE_VOLUME): OK for an unknown volume; FAILED_PRECONDITION while
 *   published to a node or staged/published on one.
 * - ControllerPublishVolume / ControllerUnpublishVolume (PUBLISH_UNPUBLISH_VOLUME): NOT_FOUND
 *   for an unknown volume or node; ALREADY_EXISTS when published to the node differently;
 *   FAILED_PRECONDITION when published elsewhere and a single-node mode is involved, or a
 *   second writer under MULTI_NODE_SINGLE_WRITER; RESOURCE_EXHAUSTED at the node's limit.
 *   Unpublish with an empty node ID unpublishes from every node.
 * - ValidateVolumeCapabilities (always): NOT_FOUND for an unknown volume; `confirmed` unset
 *   with a message for a capability not served or a context/parameters mismatch.
 * - ListVolumes (LIST_VOLUMES): paging.ts; published node IDs with
 *   LIST_VOLUMES_PUBLISHED_NODES, the volume condition with VOLUME_CONDITION.
 * - GetCapacity (GET_CAPACITY): free bytes of root's filesystem; 0 for capabilities not
 *   served or a topology naming an unknown node.
 * - ControllerExpandVolume (EXPAND_VOLUME): grows to required_bytes (else limit_bytes);
 *   never shrinks (OUT_OF_RANGE when limit_bytes is below the capacity); no node expansion.
 */
export function volumeHandlers(ctx: HostpathContext): grpc.UntypedServiceImplementation {
  return {
    CreateVolume: unary('CreateVolume', ctx.log, (req: CreateVolumeWire) => createVolume(ctx, req)),
    DeleteVolume: unary('DeleteVolume', ctx.log, (req: { volume_id: string }) => deleteVolume(ctx, req)),
    ControllerPublishVolume: unary('ControllerPublishVolume', ctx.log, (req: PublishWire) => controllerPublish(ctx, req)),
    ControllerUnpublishVolume: unary('ControllerUnpublishVolume', ctx.log, (req: { volume_id: string; node_id: string }) => controllerUnpublish(ctx, req)),
    ValidateVolumeCapabilities: unary('ValidateVolumeCapabilities', ctx.log, (req: ValidateWire) => validateCapabilities(ctx, req)),
    ListVolumes: unary('ListVolumes', ctx.log, (req: { max_entries: number; starting_token: string }) => listVolumes(ctx, req)),
    GetCapacity: unary('GetCapacity', ctx.log, (req: { volume_capabilities: WireCapability[]; accessible_topology: WireTopology | null }) =>
      getCapacity(ctx, req),
    ),
    ControllerGetCapabilities: unary('ControllerGetCapabilities', ctx.log, async () => ({ capabilities: [...ctx.caps].map((type) => ({ rpc: { type } })) })),
    ControllerExpandVolume: unary(
      'ControllerExpandVolume',
      ctx.log,
      (req: { volume_id: string; capacity_range: WireCapacityRange | null; volume_capability: WireCapability | null }) => expandVolume(ctx, req),
    ),
  };
}
