/**
 * The CSI v1 messages as proto-loader hands them over (snake_case fields, int64 as
 * numbers, enums as names, absent messages `null`; see proto.ts), and conversions between
 * them and the camelCase shapes of types.ts. Shared by the client and the hostpath plugin.
 *
 * @module
 */
import type { CsiAccessMode, CsiSnapshot, CsiVolume, Topology, VolumeCapability } from './types.js';

/** `VolumeCapability`. `access_type` names the oneof member set (absent: none). */
export interface WireCapability {
  block?: Record<string, never> | null;
  mount?: { fs_type: string; mount_flags: string[] } | null;
  access_type?: 'block' | 'mount';
  access_mode: { mode: string } | null;
}

/** `Topology`. */
export interface WireTopology {
  segments: Record<string, string>;
}

/** `VolumeContentSource`. */
export interface WireContentSource {
  snapshot?: { snapshot_id: string } | null;
  volume?: { volume_id: string } | null;
  type?: 'snapshot' | 'volume';
}

/** `Volume`; `capacity_bytes` in bytes. */
export interface WireVolume {
  capacity_bytes: number;
  volume_id: string;
  volume_context: Record<string, string>;
  content_source: WireContentSource | null;
  accessible_topology: WireTopology[];
}

/** `google.protobuf.Timestamp`. */
interface WireTimestamp {
  seconds: number;
  nanos: number;
}

/** `Snapshot`; `size_bytes` in bytes. */
export interface WireSnapshot {
  size_bytes: number;
  snapshot_id: string;
  source_volume_id: string;
  creation_time: WireTimestamp | null;
  ready_to_use: boolean;
}

/** `CapacityRange`, bytes; 0 = not given. */
export interface WireCapacityRange {
  required_bytes: number;
  limit_bytes: number;
}

/** A {@link VolumeCapability} on the wire. */
export function toWireCapability(c: VolumeCapability): WireCapability {
  const mode = { mode: c.accessMode };
  if ('block' in c.accessType) return { block: {}, access_mode: mode };
  return { mount: { fs_type: c.accessType.mount.fsType, mount_flags: [...c.accessType.mount.mountFlags] }, access_mode: mode };
}

/**
 * A wire capability as a {@link VolumeCapability}, or `undefined` when it lacks an access
 * type or a known access mode (the plugin validates those first and names the field).
 */
export function fromWireCapability(w: WireCapability | null | undefined): VolumeCapability | undefined {
  if (!w || !w.access_mode || !w.access_mode.mode || w.access_mode.mode === 'UNKNOWN' || typeof w.access_mode.mode !== 'string') return undefined;
  const accessMode = w.access_mode.mode as CsiAccessMode;
  if (w.block) return { accessType: { block: true }, accessMode };
  if (w.mount) return { accessType: { mount: { fsType: w.mount.fs_type, mountFlags: [...w.mount.mount_flags] } }, accessMode };
  return undefined;
}

/** Topologies on the wire. */
export function toWireTopologies(t: readonly Topology[] | undefined): WireTopology[] {
  return (t ?? []).map((segments) => ({ segments: { ...segments } }));
}

/** A content source on the wire; `null` for none. */
export function toWireContentSource(s: { readonly snapshotId?: string; readonly volumeId?: string } | undefined): WireContentSource | null {
  if (s?.snapshotId) return { snapshot: { snapshot_id: s.snapshotId } };
  if (s?.volumeId) return { volume: { volume_id: s.volumeId } };
  return null;
}

/** A wire content source in types.ts form; `undefined` for none. */
export function fromWireContentSource(w: WireContentSource | null | undefined): { snapshotId?: string; volumeId?: string } | undefined {
  if (w?.snapshot) return { snapshotId: w.snapshot.snapshot_id };
  if (w?.volume) return { volumeId: w.volume.volume_id };
  return undefined;
}

/** A wire volume as a {@link CsiVolume} (no `contentSource` key when none). */
export function fromWireVolume(w: WireVolume | null | undefined): CsiVolume {
  const source = fromWireContentSource(w?.content_source);
  return {
    volumeId: w?.volume_id ?? '',
    capacityBytes: w?.capacity_bytes ?? 0,
    volumeContext: { ...(w?.volume_context ?? {}) },
    ...(source ? { contentSource: source } : {}),
    accessibleTopology: (w?.accessible_topology ?? []).map((t) => ({ ...t.segments })),
  };
}

/** A wire snapshot as a {@link CsiSnapshot}; `creationTime` whole Unix seconds (nanos dropped), 0 when unset. */
export function fromWireSnapshot(w: WireSnapshot | null | undefined): CsiSnapshot {
  return {
    snapshotId: w?.snapshot_id ?? '',
    sourceVolumeId: w?.source_volume_id ?? '',
    sizeBytes: w?.size_bytes ?? 0,
    creationTime: w?.creation_time?.seconds ?? 0,
    readyToUse: w?.ready_to_use ?? false,
  };
}
