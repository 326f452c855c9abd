/**
 * The scheduler's CSI plugin as stored and shown (reference/sched.md §4.11): the
 * `csi-plugins` row of one plugin ID with a `CSIInfo` per controller and per node endpoint,
 * the capability flags built from a fingerprint, the list stub, and the health summary
 * volumes take from it (reference/sched.md §4.3 "Denormalization on read"). Pure.
 *
 * @module
 */
import type { ControllerCapability, NodeCapability, NodeInfo, PluginCapability, PluginInfo } from '../../../kernel/csi/index.js';
import type { Indexed } from '../../../kernel/store/index.js';

/** A controller endpoint's capabilities (reference/sched.md §4.11 `ControllerInfo`). */
export interface ControllerInfoDoc {
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

/** The CSI controller capability behind each {@link ControllerInfoDoc} flag (reference/sched.md §4.11 "Capability mapping"). */
export const CONTROLLER_FLAGS: Readonly<Record<keyof ControllerInfoDoc, ControllerCapability>> = {
  SupportsCreateDelete: 'CREATE_DELETE_VOLUME',
  SupportsAttachDetach: 'PUBLISH_UNPUBLISH_VOLUME',
  SupportsListVolumes: 'LIST_VOLUMES',
  SupportsGetCapacity: 'GET_CAPACITY',
  SupportsCreateDeleteSnapshot: 'CREATE_DELETE_SNAPSHOT',
  SupportsListSnapshots: 'LIST_SNAPSHOTS',
  SupportsClone: 'CLONE_VOLUME',
  SupportsReadOnlyAttach: 'PUBLISH_READONLY',
  SupportsExpand: 'EXPAND_VOLUME',
  SupportsListVolumesAttachedNodes: 'LIST_VOLUMES_PUBLISHED_NODES',
  SupportsCondition: 'VOLUME_CONDITION',
  SupportsGet: 'GET_VOLUME',
};

/** A node endpoint's facts (reference/sched.md §4.11 `NodeInfo`): `ID` is the plugin's own node ID. */
export interface NodeInfoDoc {
  readonly ID: string;
  /** 0: no limit. */
  readonly MaxVolumes: number;
  readonly AccessibleTopology: { readonly Segments: Readonly<Record<string, string>> } | null;
  readonly RequiresNodeStageVolume: boolean;
  readonly SupportsStats: boolean;
  readonly SupportsExpand: boolean;
  readonly SupportsCondition: boolean;
}

/** One endpoint of a plugin on one node (reference/sched.md §4.11 `CSIInfo`). `UpdateTime` RFC3339: when it last changed. */
export interface CsiInfoDoc {
  readonly PluginID: string;
  readonly AllocID: string;
  readonly Healthy: boolean;
  readonly HealthDescription: string;
  readonly UpdateTime: string;
  readonly Provider: string;
  readonly ProviderVersion: string;
  readonly RequiresControllerPlugin: boolean;
  readonly RequiresTopologies: boolean;
  readonly ControllerInfo: ControllerInfoDoc | null;
  readonly NodeInfo: NodeInfoDoc | null;
}

/** A `csi-plugins` row: one plugin ID, its endpoints keyed by scheduler node ID, and their health counts. */
export interface CsiPluginDoc {
  readonly ID: string;
  readonly Provider: string;
  readonly Version: string;
  /** The plugin reports `CONTROLLER_SERVICE`: volumes need a healthy controller. */
  readonly ControllerRequired: boolean;
  readonly Controllers: Readonly<Record<string, CsiInfoDoc>>;
  readonly Nodes: Readonly<Record<string, CsiInfoDoc>>;
  readonly ControllersHealthy: number;
  readonly ControllersExpected: number;
  readonly NodesHealthy: number;
  readonly NodesExpected: number;
}

/** What one endpoint answered to its last fingerprint (reference/sched.md §4.12 "Fingerprinting"). */
export interface Fingerprint {
  readonly info: PluginInfo;
  readonly capabilities: readonly PluginCapability[];
  /** `ControllerGetCapabilities` of a controller (or monolith) endpoint. */
  readonly controller?: readonly ControllerCapability[];
  /** `NodeGetInfo` and `NodeGetCapabilities` of a node (or monolith) endpoint. */
  readonly node?: { readonly info: NodeInfo; readonly capabilities: readonly NodeCapability[] };
}

/** The {@link ControllerInfoDoc} of a controller's capabilities. */
export function controllerInfo(caps: readonly ControllerCapability[]): ControllerInfoDoc {
  const has = new Set(caps);
  return Object.fromEntries(Object.entries(CONTROLLER_FLAGS).map(([flag, cap]) => [flag, has.has(cap)])) as unknown as ControllerInfoDoc;
}

/** The {@link NodeInfoDoc} of a node endpoint. */
function nodeInfo(node: NonNullable<Fingerprint['node']>): NodeInfoDoc {
  const has = new Set(node.capabilities);
  const topology = node.info.accessibleTopology;
  return {
    ID: node.info.nodeId,
    MaxVolumes: node.info.maxVolumesPerNode,
    AccessibleTopology: topology && Object.keys(topology).length > 0 ? { Segments: { ...topology } } : null,
    RequiresNodeStageVolume: has.has('STAGE_UNSTAGE_VOLUME'),
    SupportsStats: has.has('GET_VOLUME_STATS'),
    SupportsExpand: has.has('EXPAND_VOLUME'),
    SupportsCondition: has.has('VOLUME_CONDITION'),
  };
}

/**
 * The `CSIInfo` of one endpoint in `role` from its last good fingerprint (undefined: it never
 * answered) and its health. `UpdateTime` is left empty: the registry keeps the stored one
 * while nothing else changed.
 */
export function csiInfo(o: { pluginId: string; role: 'controller' | 'node'; fingerprint?: Fingerprint; healthy: boolean; description: string }): CsiInfoDoc {
  const f = o.fingerprint;
  return {
    PluginID: o.pluginId,
    AllocID: '',
    Healthy: o.healthy,
    HealthDescription: o.description,
    UpdateTime: '',
    Provider: f?.info.name ?? '',
    ProviderVersion: f?.info.vendorVersion ?? '',
    RequiresControllerPlugin: f?.capabilities.includes('CONTROLLER_SERVICE') ?? false,
    RequiresTopologies: f?.capabilities.includes('VOLUME_ACCESSIBILITY_CONSTRAINTS') ?? false,
    ControllerInfo: o.role === 'controller' && f?.controller ? controllerInfo(f.controller) : null,
    NodeInfo: o.role === 'node' && f?.node ? nodeInfo(f.node) : null,
  };
}

/** A plugin row from its endpoints (counts, provider and `ControllerRequired` derived from them). */
export function pluginDoc(id: string, controllers: Readonly<Record<string, CsiInfoDoc>>, nodes: Readonly<Record<string, CsiInfoDoc>>): CsiPluginDoc {
  const all = [...Object.values(controllers), ...Object.values(nodes)];
  const known = all.find((i) => i.Provider !== '');
  const healthy = (m: Readonly<Record<string, CsiInfoDoc>>) => Object.values(m).filter((i) => i.Healthy).length;
  return {
    ID: id,
    Provider: known?.Provider ?? '',
    Version: known?.ProviderVersion ?? '',
    ControllerRequired: all.some((i) => i.RequiresControllerPlugin),
    Controllers: controllers,
    Nodes: nodes,
    ControllersHealthy: healthy(controllers),
    ControllersExpected: Object.keys(controllers).length,
    NodesHealthy: healthy(nodes),
    NodesExpected: Object.keys(nodes).length,
  };
}

/** `GET /v1/plugin/csi/:id` (reference/sched.md §4.11): the row, with `Allocations` empty (Cairn plugins are not allocations). */
export function renderPlugin(p: CsiPluginDoc & Indexed): Record<string, unknown> {
  return {
    ID: p.ID,
    Provider: p.Provider,
    Version: p.Version,
    ControllerRequired: p.ControllerRequired,
    Controllers: p.Controllers,
    Nodes: p.Nodes,
    Allocations: [],
    ControllersHealthy: p.ControllersHealthy,
    ControllersExpected: p.ControllersExpected,
    NodesHealthy: p.NodesHealthy,
    NodesExpected: p.NodesExpected,
    CreateIndex: p.CreateIndex,
    ModifyIndex: p.ModifyIndex,
  };
}

/** The list item of `GET /v1/plugins?type=csi` (reference/sched.md §4.11 list stub). */
export function pluginStub(p: CsiPluginDoc & Indexed): Record<string, unknown> {
  return {
    ID: p.ID,
    Provider: p.Provider,
    ControllerRequired: p.ControllerRequired,
    ControllersHealthy: p.ControllersHealthy,
    ControllersExpected: p.ControllersExpected,
    NodesHealthy: p.NodesHealthy,
    NodesExpected: p.NodesExpected,
    CreateIndex: p.CreateIndex,
    ModifyIndex: p.ModifyIndex,
  };
}

/** What a volume shows of its plugin (reference/sched.md §4.3 "Denormalization on read"). */
export interface VolumeHealth {
  readonly Provider: string;
  readonly ProviderVersion: string;
  readonly ControllerRequired: boolean;
  readonly ControllersHealthy: number;
  readonly ControllersExpected: number;
  readonly NodesHealthy: number;
  readonly NodesExpected: number;
  /** `NodesHealthy > 0 && (!ControllerRequired || ControllersHealthy > 0)`; false when the plugin is missing. */
  readonly Schedulable: boolean;
}

/** The {@link VolumeHealth} of a volume whose plugin row is `p` (undefined: missing: zero counts, not schedulable, the stored provider). */
export function volumeHealth(p: CsiPluginDoc | undefined, stored: { Provider: string; ProviderVersion: string; ControllerRequired: boolean }): VolumeHealth {
  if (!p) return { ...stored, ControllersHealthy: 0, ControllersExpected: 0, NodesHealthy: 0, NodesExpected: 0, Schedulable: false };
  return {
    Provider: p.Provider || stored.Provider,
    ProviderVersion: p.Version || stored.ProviderVersion,
    ControllerRequired: p.ControllerRequired,
    ControllersHealthy: p.ControllersHealthy,
    ControllersExpected: p.ControllersExpected,
    NodesHealthy: p.NodesHealthy,
    NodesExpected: p.NodesExpected,
    Schedulable: p.NodesHealthy > 0 && (!p.ControllerRequired || p.ControllersHealthy > 0),
  };
}
