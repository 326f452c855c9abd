/**
 * Wire shapes of the scheduler's CSI endpoints (spec 002 "CSI volume stub", "CSI volume",
 * "External volume", "Snapshot"; reference/sched.md §4.3, §4.8, §4.10, §4.11), in the
 * reference's field names, as `SchedClient` sends and receives them. Sizes are bytes;
 * `CreateTime` / `ModifyTime` of volumes are Unix nanoseconds, of snapshots Unix seconds.
 *
 * @module
 */

/** Topology segments, e.g. `{"rack": "r1"}` (spec 002: a map of string to string). */
export type SchedTopology = Readonly<Record<string, string>>;

/** CSI access modes (reference/sched.md §4.3). */
export type SchedCsiAccessMode =
  'single-node-reader-only' | 'single-node-writer' | 'multi-node-reader-only' | 'multi-node-single-writer' | 'multi-node-multi-writer';

/** CSI attachment modes (reference/sched.md §4.3). */
export type SchedCsiAttachmentMode = 'file-system' | 'block-device';

/** Every {@link SchedCsiAccessMode}, in the reference's order. */
export const SCHED_CSI_ACCESS_MODES: readonly SchedCsiAccessMode[] = [
  'single-node-reader-only',
  'single-node-writer',
  'multi-node-reader-only',
  'multi-node-single-writer',
  'multi-node-multi-writer',
];

/** Every {@link SchedCsiAttachmentMode}. */
export const SCHED_CSI_ATTACHMENT_MODES: readonly SchedCsiAttachmentMode[] = ['file-system', 'block-device'];

/** One requested capability (`RequestedCapabilities` item). Read back as strings (`""` unknown). */
export interface SchedVolumeCapability {
  readonly AccessMode: SchedCsiAccessMode | string;
  readonly AttachmentMode: SchedCsiAttachmentMode | string;
}

/** Mount options of a file-system volume. Reads show `MountFlags` as `["[REDACTED]"]` when set. */
export interface SchedVolumeMountOptions {
  readonly FsType?: string;
  readonly MountFlags?: readonly string[] | null;
}

/** Requested topologies: each item either `{"Segments": {...}}` (the reference's JSON) or the segments map itself. */
export interface SchedTopologyRequest {
  readonly Required?: readonly (SchedTopology | { readonly Segments: SchedTopology })[] | null;
  readonly Preferred?: readonly (SchedTopology | { readonly Segments: SchedTopology })[] | null;
}

/** A list item of `GET /v1/volumes?type=csi` (spec 002 "CSI volume stub"). */
export interface SchedVolumeStub {
  readonly ID: string;
  readonly ExternalID: string;
  readonly Namespace: string;
  readonly Name: string;
  readonly Topologies: readonly SchedTopology[] | null;
  /** Mode of the current claims; `""` when none. */
  readonly AccessMode: string;
  readonly AttachmentMode: string;
  readonly CurrentReaders: number;
  readonly CurrentWriters: number;
  readonly Schedulable: boolean;
  readonly PluginID: string;
  readonly Provider: string;
  readonly ControllerRequired: boolean;
  readonly ControllersHealthy: number;
  readonly ControllersExpected: number;
  readonly NodesHealthy: number;
  readonly NodesExpected: number;
  /** Always 0 (never set; spec 002: an integer). */
  readonly ResourceExhausted: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  /** Unix ns. */
  readonly CreateTime?: number;
  /** Unix ns. */
  readonly ModifyTime?: number;
}

/** An allocation as a volume's `Allocations` shows it (spec 002 "CSI volume", the reference's `AllocListStub`). */
export interface SchedVolumeAllocation {
  readonly ID: string;
  readonly Name?: string;
  readonly Namespace?: string;
  readonly NodeID: string;
  readonly NodeName?: string;
  readonly JobID: string;
  readonly TaskGroup: string;
  readonly DesiredStatus: string;
  readonly ClientStatus: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly [field: string]: unknown;
}

/** `GET /v1/volume/csi/:id` (spec 002 "CSI volume"; reference/sched.md §4.8): never carries secrets. */
export interface SchedVolume extends Omit<SchedVolumeStub, 'CurrentReaders' | 'CurrentWriters'> {
  readonly RequestedTopologies?: SchedTopologyRequest | null;
  readonly MountOptions: SchedVolumeMountOptions | null;
  /** Always null in reads. */
  readonly Secrets: null;
  readonly Parameters: Readonly<Record<string, string>> | null;
  readonly Context: Readonly<Record<string, string>> | null;
  /** Bytes; 0 unknown. */
  readonly Capacity: number;
  /** Bytes; 0 none asked. */
  readonly RequestedCapacityMin: number;
  /** Bytes; 0 none asked. */
  readonly RequestedCapacityMax: number;
  readonly RequestedCapabilities: readonly SchedVolumeCapability[];
  readonly CloneID: string;
  readonly SnapshotID: string;
  /** Allocation ID → null, for every read claim. */
  readonly ReadAllocs: Readonly<Record<string, null>>;
  /** Allocation ID → null, for every write claim. */
  readonly WriteAllocs: Readonly<Record<string, null>>;
  readonly Allocations: readonly SchedVolumeAllocation[];
  readonly ProviderVersion?: string;
  readonly Version: string;
}

/**
 * A volume definition for register and create (spec 002 "Endpoints": `PUT
 * /volume/csi/:volume_id` and `…/create` body items). Register needs a volume that exists in
 * the plugin (`ExternalID`); create makes it (`RequestedCapacityMin/Max`, `SnapshotID` or
 * `CloneID` as its source). `Namespace` defaults to the client's, then `default`.
 */
export interface SchedVolumeSpec {
  readonly ID: string;
  readonly Name?: string;
  readonly Namespace?: string;
  readonly PluginID: string;
  readonly ExternalID?: string;
  /** At least one. */
  readonly RequestedCapabilities: readonly SchedVolumeCapability[];
  readonly Secrets?: Readonly<Record<string, string>>;
  readonly Parameters?: Readonly<Record<string, string>>;
  readonly Context?: Readonly<Record<string, string>>;
  readonly MountOptions?: SchedVolumeMountOptions;
  /** Bytes. */
  readonly RequestedCapacityMin?: number;
  /** Bytes. */
  readonly RequestedCapacityMax?: number;
  readonly SnapshotID?: string;
  readonly CloneID?: string;
  readonly Topologies?: readonly SchedTopology[];
  readonly RequestedTopologies?: SchedTopologyRequest;
}

/** The reply of register and create: the volumes as read (create fills `ExternalID` and `Capacity`). */
export interface SchedVolumeWriteReply {
  readonly Volumes: readonly SchedVolume[];
  readonly Warnings: string;
  readonly Index: number;
}

/** A list item of `GET /v1/volumes/external` (spec 002 "External volume"). */
export interface SchedExternalVolume {
  readonly ExternalID: string;
  /** Bytes. */
  readonly CapacityBytes: number;
  readonly VolumeContext?: Readonly<Record<string, string>> | null;
  readonly CloneID?: string;
  readonly SnapshotID: string;
  readonly PublishedExternalNodeIDs: readonly string[] | null;
  readonly IsAbnormal: boolean;
  /** The provider's message; empty when normal. */
  readonly Status: string;
}

/** A snapshot to make (`POST /v1/volumes/snapshot` body item). `PluginID` defaults to the volume's. */
export interface SchedSnapshotSpec {
  /** The registered volume's ID (in the client's namespace). */
  readonly SourceVolumeID: string;
  readonly Name: string;
  readonly PluginID?: string;
  /** Merged over the secrets the volume was registered with. */
  readonly Secrets?: Readonly<Record<string, string>>;
  readonly Parameters?: Readonly<Record<string, string>>;
}

/** A snapshot as the create reply shows it (spec 002 "Snapshot": `IsReady` false there). */
export interface SchedSnapshotCreated {
  readonly ID: string;
  readonly ExternalSourceVolumeID?: string;
  readonly SourceVolumeID: string;
  readonly PluginID?: string;
  readonly Name?: string;
  /** Bytes. */
  readonly SizeBytes: number;
  /** Unix seconds. */
  readonly CreateTime: number;
  readonly IsReady: boolean;
  readonly Parameters?: Readonly<Record<string, string>> | null;
}

/** A list item of `GET /v1/volumes/snapshot` (spec 002 "Snapshot"). */
export interface SchedSnapshot {
  readonly ID: string;
  readonly ExternalSourceVolumeID: string;
  /** Bytes. */
  readonly SizeBytes: number;
  /** Unix seconds. */
  readonly CreateTime: number;
  readonly IsReady: boolean;
  readonly PluginID: string;
  readonly Parameters: Readonly<Record<string, string>> | null;
}

/** A list item of `GET /v1/plugins?type=csi` (reference/sched.md §4.11). */
export interface SchedPluginStub {
  readonly ID: string;
  readonly Provider: string;
  readonly ControllerRequired: boolean;
  readonly ControllersHealthy: number;
  readonly ControllersExpected: number;
  readonly NodesHealthy: number;
  readonly NodesExpected: number;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A controller endpoint's capabilities (reference/sched.md §4.11 `ControllerInfo`). */
export interface SchedCsiControllerInfo {
  readonly SupportsCreateDelete: boolean;
  readonly SupportsAttachDetach: boolean;
  readonly SupportsListVolumes: boolean;
  readonly SupportsGetCapacity: boolean;
  readonly SupportsCreateDeleteSnapshot: boolean;
  readonly SupportsListSnapshots: boolean;
  readonly SupportsClone: boolean;
  readonly SupportsReadOnlyAttach: boolean;
  readonly SupportsExpand: boolean;
  readonly SupportsListVolumesAttachedNodes: boolean;
  readonly SupportsCondition: boolean;
  readonly SupportsGet: boolean;
}

/** A node endpoint's facts (reference/sched.md §4.11 `NodeInfo`); `ID` is the plugin's own node ID. */
export interface SchedCsiNodeInfo {
  readonly ID: string;
  /** 0: no limit. */
  readonly MaxVolumes: number;
  readonly AccessibleTopology: { readonly Segments: SchedTopology } | null;
  readonly RequiresNodeStageVolume: boolean;
  readonly SupportsStats: boolean;
  readonly SupportsExpand: boolean;
  readonly SupportsCondition: boolean;
}

/** One endpoint of a plugin on one node (reference/sched.md §4.11 `CSIInfo`). */
export interface SchedCsiInfo {
  readonly PluginID: string;
  readonly AllocID: string;
  readonly Healthy: boolean;
  readonly HealthDescription: string;
  /** RFC 3339: when it last changed. */
  readonly UpdateTime: string;
  readonly Provider: string;
  readonly ProviderVersion: string;
  readonly RequiresControllerPlugin: boolean;
  readonly RequiresTopologies: boolean;
  readonly ControllerInfo: SchedCsiControllerInfo | null;
  readonly NodeInfo: SchedCsiNodeInfo | null;
}

/** `GET /v1/plugin/csi/:id` (reference/sched.md §4.11): endpoints keyed by scheduler node ID. */
export interface SchedPlugin extends SchedPluginStub {
  readonly Version: string;
  readonly Controllers: Readonly<Record<string, SchedCsiInfo>>;
  readonly Nodes: Readonly<Record<string, SchedCsiInfo>>;
  readonly Allocations: readonly SchedVolumeAllocation[];
}

/**
 * One page of a paged list: the items, the reply's `X-Sched-Index`, and `nextToken`, the
 * token of the next page (from `X-Sched-NextToken`, or the body's `NextToken` for the lists the
 * plugin pages); undefined on the last page.
 */
export interface SchedPage<T> {
  readonly data: T;
  readonly index: number;
  readonly nextToken: string | undefined;
}

/** Options of `listVolumes` (spec 002 `GET /volumes` query parameters; reference/sched.md §1.7, §1.8). */
export interface SchedVolumeListOptions {
  /** Volume type; only `csi` is served (default `csi`: without a type the server lists nothing). */
  readonly type?: 'csi';
  /** Volumes claimed by allocations on nodes whose ID starts with this (an even number of hex characters). */
  readonly nodeId?: string;
  /** Volumes of plugins whose ID starts with this. */
  readonly pluginId?: string;
  /** Volumes whose ID starts with this. */
  readonly prefix?: string;
  /** Items per page; 0 or absent: no paging. */
  readonly perPage?: number;
  /** Where the page starts: the previous page's `nextToken`. */
  readonly nextToken?: string;
  /** A filter expression over the full volume, e.g. `Parameters.tier == "gold"`. */
  readonly filter?: string;
  /** Namespace to list (`*`: every namespace the token may list); default the client's. */
  readonly namespace?: string;
  /** Blocking query: wait until the index passes this value. */
  readonly index?: number;
  /** Longest blocking wait, a Go duration (`30s`; capped at `5m`). */
  readonly wait?: string;
}

/** Options of the writes and reads that name one volume: the namespace it is in (default the client's). */
export interface SchedVolumeOptions {
  readonly namespace?: string;
}

/** Options of the plugin-paged lists (`listExternalVolumes`, `listSnapshots`). */
export interface SchedPluginPageOptions {
  /** The plugin's ID (or a prefix naming one plugin). */
  readonly pluginId: string;
  /** Items per page (required by the server; at least 1). */
  readonly perPage: number;
  /** The previous page's `nextToken`. */
  readonly nextToken?: string;
  readonly namespace?: string;
}
