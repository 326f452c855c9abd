/**
 * The Container Storage Interface as Cairn uses it (CSI spec v1.x: Identity, Controller and
 * Node services over gRPC on a unix socket), in TypeScript shapes: what the client
 * (client.ts) returns and the reference hostpath plugin (hostpath/) serves. Sizes are
 * bytes; times are Unix seconds unless a name says otherwise. Capability names are the
 * spec's enum names (`CREATE_DELETE_VOLUME`, …).
 *
 * @module
 */

/** Plugin capabilities of `GetPluginCapabilities` (service and volume expansion kinds) that Cairn knows. */
export const PLUGIN_CAPABILITIES = ['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS', 'GROUP_CONTROLLER_SERVICE', 'ONLINE', 'OFFLINE'] as const;
/** One of {@link PLUGIN_CAPABILITIES}. */
export type PluginCapability = (typeof PLUGIN_CAPABILITIES)[number];

/** Controller RPC capabilities of `ControllerGetCapabilities` that Cairn knows. */
export const CONTROLLER_CAPABILITIES = [
  'CREATE_DELETE_VOLUME',
  'PUBLISH_UNPUBLISH_VOLUME',
  'LIST_VOLUMES',
  'GET_CAPACITY',
  'CREATE_DELETE_SNAPSHOT',
  'LIST_SNAPSHOTS',
  'CLONE_VOLUME',
  'PUBLISH_READONLY',
  'EXPAND_VOLUME',
  'LIST_VOLUMES_PUBLISHED_NODES',
  'VOLUME_CONDITION',
  'GET_VOLUME',
  'SINGLE_NODE_MULTI_WRITER',
] as const;
/** One of {@link CONTROLLER_CAPABILITIES}. */
export type ControllerCapability = (typeof CONTROLLER_CAPABILITIES)[number];

/** Node RPC capabilities of `NodeGetCapabilities` that Cairn knows. */
export const NODE_CAPABILITIES = [
  'STAGE_UNSTAGE_VOLUME',
  'GET_VOLUME_STATS',
  'EXPAND_VOLUME',
  'VOLUME_CONDITION',
  'SINGLE_NODE_MULTI_WRITER',
  'VOLUME_MOUNT_GROUP',
] as const;
/** One of {@link NODE_CAPABILITIES}. */
export type NodeCapability = (typeof NODE_CAPABILITIES)[number];

/** The spec's access modes (`VolumeCapability.AccessMode.Mode`). */
export type CsiAccessMode =
  | 'SINGLE_NODE_WRITER'
  | 'SINGLE_NODE_READER_ONLY'
  | 'MULTI_NODE_READER_ONLY'
  | 'MULTI_NODE_SINGLE_WRITER'
  | 'MULTI_NODE_MULTI_WRITER'
  | 'SINGLE_NODE_SINGLE_WRITER'
  | 'SINGLE_NODE_MULTI_WRITER';

/** One volume capability: how it is attached (block or mount with fs type and flags) and its access mode. */
export interface VolumeCapability {
  readonly accessType: { readonly block: true } | { readonly mount: { readonly fsType: string; readonly mountFlags: readonly string[] } };
  readonly accessMode: CsiAccessMode;
}

/** Topology segments, e.g. `{ "topology.hostpath/node": "n1" }`. */
export type Topology = Readonly<Record<string, string>>;

/** `GetPluginInfo`. */
export interface PluginInfo {
  readonly name: string;
  readonly vendorVersion: string;
  readonly manifest: Readonly<Record<string, string>>;
}

/** `NodeGetInfo`. */
export interface NodeInfo {
  readonly nodeId: string;
  /** 0 = no limit. */
  readonly maxVolumesPerNode: number;
  readonly accessibleTopology?: Topology;
}

/** A created or listed volume. */
export interface CsiVolume {
  readonly volumeId: string;
  /** 0 = unknown. */
  readonly capacityBytes: number;
  readonly volumeContext: Readonly<Record<string, string>>;
  readonly contentSource?: { readonly snapshotId?: string; readonly volumeId?: string };
  readonly accessibleTopology: readonly Topology[];
}

/** `CreateVolume` request. */
interface CreateVolumeRequest {
  readonly name: string;
  readonly capacityRange?: { readonly requiredBytes: number; readonly limitBytes: number };
  readonly volumeCapabilities: readonly VolumeCapability[];
  readonly parameters?: Readonly<Record<string, string>>;
  readonly secrets?: Readonly<Record<string, string>>;
  readonly contentSource?: { readonly snapshotId?: string; readonly volumeId?: string };
  readonly accessibilityRequirements?: { readonly requisite: readonly Topology[]; readonly preferred: readonly Topology[] };
}

/** One entry of `ListVolumes`. */
export interface ListedVolume {
  readonly volume: CsiVolume;
  readonly publishedNodeIds: readonly string[];
  /** `VolumeCondition`; absent when the plugin does not report it. */
  readonly condition?: { readonly abnormal: boolean; readonly message: string };
}

/** A snapshot (`CreateSnapshot`, `ListSnapshots`). */
export interface CsiSnapshot {
  readonly snapshotId: string;
  readonly sourceVolumeId: string;
  readonly sizeBytes: number;
  /** Unix seconds. */
  readonly creationTime: number;
  readonly readyToUse: boolean;
}

/** A page of a list RPC: `nextToken` empty on the last page. */
interface Page<T> {
  readonly entries: readonly T[];
  readonly nextToken: string;
}

/**
 * A client of one CSI plugin endpoint (unix socket). Every method rejects with
 * {@link CsiError} when the plugin answers a gRPC error or cannot be reached.
 */
export interface CsiClient {
  /** The socket path. */
  readonly socket: string;
  // Identity
  getPluginInfo(): Promise<PluginInfo>;
  getPluginCapabilities(): Promise<readonly PluginCapability[]>;
  /** `Probe`: true when ready (an absent `ready` counts as ready, as the spec says). */
  probe(): Promise<boolean>;
  // Controller
  controllerGetCapabilities(): Promise<readonly ControllerCapability[]>;
  createVolume(req: CreateVolumeRequest): Promise<CsiVolume>;
  deleteVolume(volumeId: string, secrets?: Readonly<Record<string, string>>): Promise<void>;
  controllerPublishVolume(req: {
    readonly volumeId: string;
    readonly nodeId: string;
    readonly volumeCapability: VolumeCapability;
    readonly readonly: boolean;
    readonly secrets?: Readonly<Record<string, string>>;
    readonly volumeContext?: Readonly<Record<string, string>>;
  }): Promise<{ readonly publishContext: Readonly<Record<string, string>> }>;
  controllerUnpublishVolume(volumeId: string, nodeId: string, secrets?: Readonly<Record<string, string>>): Promise<void>;
  /** `ValidateVolumeCapabilities`: `confirmed` false with the plugin's message when not supported; rejects NOT_FOUND for an unknown volume. */
  validateVolumeCapabilities(req: {
    readonly volumeId: string;
    readonly volumeCapabilities: readonly VolumeCapability[];
    readonly volumeContext?: Readonly<Record<string, string>>;
    readonly parameters?: Readonly<Record<string, string>>;
    readonly secrets?: Readonly<Record<string, string>>;
  }): Promise<{ readonly confirmed: boolean; readonly message: string }>;
  listVolumes(req: { readonly maxEntries: number; readonly startingToken?: string }): Promise<Page<ListedVolume>>;
  controllerExpandVolume(req: {
    readonly volumeId: string;
    readonly capacityRange: { readonly requiredBytes: number; readonly limitBytes: number };
    readonly secrets?: Readonly<Record<string, string>>;
    readonly volumeCapability?: VolumeCapability;
  }): Promise<{ readonly capacityBytes: number; readonly nodeExpansionRequired: boolean }>;
  createSnapshot(req: {
    readonly sourceVolumeId: string;
    readonly name: string;
    readonly secrets?: Readonly<Record<string, string>>;
    readonly parameters?: Readonly<Record<string, string>>;
  }): Promise<CsiSnapshot>;
  deleteSnapshot(snapshotId: string, secrets?: Readonly<Record<string, string>>): Promise<void>;
  listSnapshots(req: {
    readonly maxEntries: number;
    readonly startingToken?: string;
    readonly sourceVolumeId?: string;
    readonly snapshotId?: string;
    readonly secrets?: Readonly<Record<string, string>>;
  }): Promise<Page<CsiSnapshot>>;
  // Node
  nodeGetInfo(): Promise<NodeInfo>;
  nodeGetCapabilities(): Promise<readonly NodeCapability[]>;
  /** Closes the channel; later calls reject. */
  close(): void;
}

/** `GetCapacity` request (all fields optional): the capacity for volumes with these capabilities, parameters and topology. */
interface GetCapacityRequest {
  readonly volumeCapabilities?: readonly VolumeCapability[];
  readonly parameters?: Readonly<Record<string, string>>;
  readonly accessibleTopology?: Topology;
}

/**
 * {@link CsiClient} plus the RPCs a node-side caller and a capacity check need:
 * `GetCapacity` and the Node service's stage/publish calls (CSI spec "Controller Service
 * RPC" GetCapacity, "Node Service RPC"). What `csiClient()` returns. Added beside the
 * contract so that the contract's existing signatures stay as they are.
 */
export interface CsiFullClient extends CsiClient {
  /** `GetCapacity`: available bytes; `maximumVolumeSize` in bytes when the plugin states one. */
  getCapacity(req?: GetCapacityRequest): Promise<{ readonly availableCapacity: number; readonly maximumVolumeSize?: number }>;
  /** `NodeStageVolume`: `stagingTargetPath` absolute; `publishContext` from `controllerPublishVolume`. */
  nodeStageVolume(req: {
    readonly volumeId: string;
    readonly stagingTargetPath: string;
    readonly volumeCapability: VolumeCapability;
    readonly publishContext?: Readonly<Record<string, string>>;
    readonly secrets?: Readonly<Record<string, string>>;
    readonly volumeContext?: Readonly<Record<string, string>>;
  }): Promise<void>;
  /** `NodeUnstageVolume`. */
  nodeUnstageVolume(volumeId: string, stagingTargetPath: string): Promise<void>;
  /** `NodePublishVolume`: `targetPath` absolute; `stagingTargetPath` required by plugins with STAGE_UNSTAGE_VOLUME. */
  nodePublishVolume(req: {
    readonly volumeId: string;
    readonly targetPath: string;
    readonly volumeCapability: VolumeCapability;
    readonly readonly: boolean;
    readonly stagingTargetPath?: string;
    readonly publishContext?: Readonly<Record<string, string>>;
    readonly secrets?: Readonly<Record<string, string>>;
    readonly volumeContext?: Readonly<Record<string, string>>;
  }): Promise<void>;
  /** `NodeUnpublishVolume`. */
  nodeUnpublishVolume(volumeId: string, targetPath: string): Promise<void>;
}

/**
 * A gRPC error from a plugin, or a call that could not reach it. `rpc` is the CSI method
 * (`CreateVolume`), `code` the gRPC status name as Go prints it (`NotFound`, `Unavailable`,
 * `FailedPrecondition`, `Unimplemented`, `DeadlineExceeded`, …; `Code(N)` for a number
 * outside the standard 0–16), `details` the plugin's text. The message reads like the
 * reference's: `rpc error: code = NotFound desc = volume "v1" not found`.
 */
export class CsiError extends Error {
  constructor(
    readonly rpc: string,
    readonly code: string,
    readonly details: string,
  ) {
    super(`rpc error: code = ${code} desc = ${details}`);
    this.name = 'CsiError';
  }
}
