/**
 * The scheduler's CSI volume (spec 002 "CSI volume", reference/sched.md §4.3): its stored
 * shape in the `csi-volumes` table with the secrets, parameters, context and claims the
 * reference keeps, and the read, stub and event shapes, which never carry a secret
 * (reference/sched.md §4.8: `Secrets` null, mount flags redacted, `ReadAllocs` /
 * `WriteAllocs` as `{allocID: null}`). Rendering builds new objects and never touches the
 * stored one (the reference's sanitizer once erased stored secrets: §6.3 item 6). Pure.
 *
 * @module
 */
import type { Indexed } from '../../../kernel/store/index.js';
import { allocStub, type StoredAlloc } from '../alloc.js';
import { volumeHealth, type CsiPluginDoc } from './plugin-doc.js';

/** Topology segments, e.g. `{"rack": "r1"}` (spec 002: a topology is a map of string to string). */
export type Segments = Readonly<Record<string, string>>;

/** One requested capability (spec 002 `RequestedCapabilities` item). */
export interface CapabilityDoc {
  readonly AccessMode: string;
  readonly AttachmentMode: string;
}

/** `MountOptions` (spec 002 create body). */
export interface MountOptionsDoc {
  readonly FsType: string;
  readonly MountFlags: readonly string[] | null;
}

/** A claim's kind (the reference's `CSIVolumeClaimMode` read and write). */
export type ClaimMode = 'read' | 'write';

/**
 * A claim of an allocation on a volume (reference/sched.md §4.4). `State` `taken` is a live
 * claim; `unpublishing` is a released claim whose controller unpublish has not succeeded yet
 * (kept in `PastClaims`; it does not make the volume in use).
 */
export interface ClaimDoc {
  readonly AllocationID: string;
  /** The scheduler node of the allocation. */
  readonly NodeID: string;
  /** The plugin's own ID of that node (its `NodeGetInfo`), the target of publish and unpublish. */
  readonly ExternalNodeID: string;
  readonly Mode: ClaimMode;
  readonly AccessMode: string;
  readonly AttachmentMode: string;
  readonly State: 'taken' | 'unpublishing';
}

/** Claims by allocation ID. */
type Claims = Readonly<Record<string, ClaimDoc>>;

/**
 * A stored CSI volume (spec 002 "CSI volume" plus reference/sched.md §4.3's stored fields).
 * `AccessMode` / `AttachmentMode` are the modes of the current claims (`""` when none).
 * `Secrets` are kept (the state is encrypted at rest) and never rendered. Times are Unix ns.
 */
export interface CsiVolumeDoc {
  readonly ID: string;
  readonly Name: string;
  readonly ExternalID: string;
  readonly Namespace: string;
  readonly PluginID: string;
  readonly Provider: string;
  readonly ProviderVersion: string;
  readonly ControllerRequired: boolean;
  readonly Topologies: readonly Segments[] | null;
  readonly RequestedTopologies: { readonly Required: readonly Segments[] | null; readonly Preferred: readonly Segments[] | null } | null;
  readonly AccessMode: string;
  readonly AttachmentMode: string;
  readonly MountOptions: MountOptionsDoc | null;
  readonly Secrets: Readonly<Record<string, string>> | null;
  readonly Parameters: Readonly<Record<string, string>> | null;
  readonly Context: Readonly<Record<string, string>> | null;
  /** Bytes; 0 unknown. */
  readonly Capacity: number;
  readonly RequestedCapacityMin: number;
  readonly RequestedCapacityMax: number;
  readonly RequestedCapabilities: readonly CapabilityDoc[];
  readonly CloneID: string;
  readonly SnapshotID: string;
  readonly ReadClaims: Claims;
  readonly WriteClaims: Claims;
  readonly PastClaims: Claims;
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** A stored volume with its indexes. */
export type StoredVolume = CsiVolumeDoc & Indexed;

/** The `csi-volumes` key of volume `id` in namespace `ns`: also its paging token (reference/sched.md §1.7 `NamespaceIDTokenizer`). */
export const volumeKey = (ns: string, id: string): string => `${ns}.${id}`;

/** In use: a live read or write claim exists (reference/sched.md §4.4 "In use"). */
export function volumeInUse(v: Pick<CsiVolumeDoc, 'ReadClaims' | 'WriteClaims'>): boolean {
  return Object.keys(v.ReadClaims).length + Object.keys(v.WriteClaims).length > 0;
}

/** Every live claim, reads first. */
export function liveClaims(v: Pick<CsiVolumeDoc, 'ReadClaims' | 'WriteClaims'>): ClaimDoc[] {
  return [...Object.values(v.ReadClaims), ...Object.values(v.WriteClaims)];
}

/** Where a render finds the volume's plugin row and its allocations. */
export interface VolumeLookup {
  plugin(id: string): CsiPluginDoc | undefined;
  alloc(id: string): (StoredAlloc & Indexed) | undefined;
}

const nullMap = (ids: Claims): Record<string, null> => Object.fromEntries(Object.keys(ids).map((id) => [id, null]));

/**
 * The volume as `GET /v1/volume/csi/:id` shows it (spec 002 "CSI volume (read response)",
 * reference/sched.md §4.8): plugin health denormalized, `Allocations` the stubs of the
 * claiming allocations that exist, `ReadAllocs` / `WriteAllocs` `{allocID: null}`, `Secrets`
 * null, mount flags `["[REDACTED]"]` when set, `ResourceExhausted` 0 (spec 002: an integer;
 * never set), `Version` (spec 002) = `ProviderVersion`. No claim detail.
 */
export function renderVolume(v: StoredVolume, look: VolumeLookup): Record<string, unknown> {
  const h = volumeHealth(look.plugin(v.PluginID), v);
  const allocations = Object.keys({ ...v.ReadClaims, ...v.WriteClaims }).flatMap((id) => {
    const a = look.alloc(id);
    return a ? [allocStub(a)] : [];
  });
  const flags = v.MountOptions?.MountFlags;
  return {
    ID: v.ID,
    Name: v.Name,
    ExternalID: v.ExternalID,
    Namespace: v.Namespace,
    Topologies: v.Topologies,
    RequestedTopologies: v.RequestedTopologies,
    AccessMode: v.AccessMode,
    AttachmentMode: v.AttachmentMode,
    MountOptions: v.MountOptions && { FsType: v.MountOptions.FsType, MountFlags: flags && flags.length > 0 ? ['[REDACTED]'] : (flags ?? null) },
    Secrets: null,
    Parameters: v.Parameters,
    Context: v.Context,
    Capacity: v.Capacity,
    RequestedCapacityMin: v.RequestedCapacityMin,
    RequestedCapacityMax: v.RequestedCapacityMax,
    RequestedCapabilities: v.RequestedCapabilities,
    CloneID: v.CloneID,
    SnapshotID: v.SnapshotID,
    ReadAllocs: nullMap(v.ReadClaims),
    WriteAllocs: nullMap(v.WriteClaims),
    Allocations: allocations,
    Schedulable: h.Schedulable,
    PluginID: v.PluginID,
    Provider: h.Provider,
    ProviderVersion: h.ProviderVersion,
    Version: h.ProviderVersion,
    ControllerRequired: h.ControllerRequired,
    ControllersHealthy: h.ControllersHealthy,
    ControllersExpected: h.ControllersExpected,
    NodesHealthy: h.NodesHealthy,
    NodesExpected: h.NodesExpected,
    ResourceExhausted: 0,
    CreateIndex: v.CreateIndex,
    ModifyIndex: v.ModifyIndex,
    CreateTime: v.CreateTime,
    ModifyTime: v.ModifyTime,
  };
}

/**
 * The list item of `GET /v1/volumes` (spec 002 "CSI volume stub"): `CurrentReaders` /
 * `CurrentWriters` count the live claims; plugin health denormalized.
 */
export function volumeStub(v: StoredVolume, plugin: CsiPluginDoc | undefined): Record<string, unknown> {
  const h = volumeHealth(plugin, v);
  return {
    ID: v.ID,
    ExternalID: v.ExternalID,
    Namespace: v.Namespace,
    Name: v.Name,
    Topologies: v.Topologies,
    AccessMode: v.AccessMode,
    AttachmentMode: v.AttachmentMode,
    CurrentReaders: Object.keys(v.ReadClaims).length,
    CurrentWriters: Object.keys(v.WriteClaims).length,
    Schedulable: h.Schedulable,
    PluginID: v.PluginID,
    Provider: h.Provider,
    ControllerRequired: h.ControllerRequired,
    ControllersHealthy: h.ControllersHealthy,
    ControllersExpected: h.ControllersExpected,
    NodesHealthy: h.NodesHealthy,
    NodesExpected: h.NodesExpected,
    ResourceExhausted: 0,
    CreateIndex: v.CreateIndex,
    ModifyIndex: v.ModifyIndex,
    CreateTime: v.CreateTime,
    ModifyTime: v.ModifyTime,
  };
}

/**
 * What a list `filter` sees of a volume (reference/sched.md §1.8: the full object, not the
 * stub): the read shape, with the map fields `Parameters` and `Context` as empty maps when
 * unset (a Go nil map: a missing key is no error) and `Secrets` always empty, so that a
 * filter can never probe a secret.
 */
export function volumeFilterDatum(v: StoredVolume, look: VolumeLookup): Record<string, unknown> {
  const full = renderVolume(v, look);
  return { ...full, Secrets: {}, Parameters: full.Parameters ?? {}, Context: full.Context ?? {} };
}
