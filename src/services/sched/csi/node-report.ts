/**
 * CSI node plugins reported by client-only agents (issue 19 scope 4; the reference's clients
 * fingerprint their node plugins into `Node.CSINodePlugins`, a `structs.CSIInfo` per plugin
 * ID, and the servers keep the plugin's `Nodes` from what nodes report). A registration of a
 * node no plugin endpoint of the server serves (csi/plugins.ts `servesNode`) carries its
 * node plugins; in the same write each reported plugin's row gets `Nodes[<node ID>]`
 * (created when no row exists yet), rows the node no longer reports lose its entry, and a
 * row left without any controller or node is deleted. Placement and claims then see the
 * node exactly as a server-served one (csi/alloc-claims.ts reads `Nodes[<node ID>]`: health
 * and `NodeInfo.MaxVolumes`).
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import { decodeGoStruct } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { T } from '../state.js';
import { pluginDoc, type CsiInfoDoc, type CsiPluginDoc, type NodeInfoDoc } from './plugin-doc.js';

/**
 * Decodes a registration's `CSINodePlugins` (null: none) into `CSIInfo` documents keyed by
 * plugin ID, each with `NodeInfo` (`ID`, `MaxVolumes`, `AccessibleTopology.Segments`,
 * `RequiresNodeStageVolume`, …) and `UpdateTime` `nowIso`. @throws 400 naming the field for a
 * wrong type, an empty plugin ID, a `PluginID` other than its key, or a negative `MaxVolumes`.
 */
export function decodeNodePlugins(value: Readonly<Record<string, unknown>> | null, nowIso: string): Record<string, CsiInfoDoc> {
  const out: Record<string, CsiInfoDoc> = {};
  for (const [id, raw] of Object.entries(value ?? {})) {
    const field = `CSINodePlugins["${id}"]`;
    if (id === '') throw schedBadRequest('CSINodePlugins: a plugin ID must not be empty');
    const i = decodeGoStruct(raw, 'structs.CSIInfo', {
      PluginID: 'string',
      AllocID: 'string',
      Healthy: 'bool',
      HealthDescription: 'string',
      UpdateTime: 'any',
      Provider: 'string',
      ProviderVersion: 'string',
      RequiresControllerPlugin: 'bool',
      RequiresTopologies: 'bool',
      ControllerInfo: 'any',
      NodeInfo: 'object',
    });
    if (i.PluginID !== '' && i.PluginID !== id) throw schedBadRequest(`${field}.PluginID: "${i.PluginID as string}" is not its key`);
    const n =
      i.NodeInfo === null
        ? null
        : decodeGoStruct(i.NodeInfo, 'structs.CSINodeInfo', {
            ID: 'string',
            MaxVolumes: 'int',
            AccessibleTopology: 'object',
            RequiresNodeStageVolume: 'bool',
            SupportsStats: 'bool',
            SupportsExpand: 'bool',
            SupportsCondition: 'bool',
          });
    if (n && (n.MaxVolumes as number) < 0) throw schedBadRequest(`${field}.NodeInfo.MaxVolumes: must not be negative`);
    const segments = n?.AccessibleTopology ? decodeGoStruct(n.AccessibleTopology, 'structs.CSITopology', { Segments: 'map' }).Segments : null;
    const nodeInfo: NodeInfoDoc | null = n && {
      ID: n.ID as string,
      MaxVolumes: n.MaxVolumes as number,
      AccessibleTopology: segments ? { Segments: segments as Record<string, string> } : null,
      RequiresNodeStageVolume: n.RequiresNodeStageVolume as boolean,
      SupportsStats: n.SupportsStats as boolean,
      SupportsExpand: n.SupportsExpand as boolean,
      SupportsCondition: n.SupportsCondition as boolean,
    };
    out[id] = {
      PluginID: id,
      AllocID: i.AllocID as string,
      Healthy: i.Healthy as boolean,
      HealthDescription: i.HealthDescription as string,
      UpdateTime: nowIso,
      Provider: i.Provider as string,
      ProviderVersion: i.ProviderVersion as string,
      RequiresControllerPlugin: i.RequiresControllerPlugin as boolean,
      RequiresTopologies: i.RequiresTopologies as boolean,
      ControllerInfo: null,
      NodeInfo: nodeInfo,
    };
  }
  return out;
}

/** The entry unchanged but for `UpdateTime`? (Then the stored one, with its time, stays.) */
const sameInfo = (a: CsiInfoDoc | undefined, b: CsiInfoDoc) =>
  a !== undefined && JSON.stringify({ ...a, UpdateTime: '' }) === JSON.stringify({ ...b, UpdateTime: '' });

/**
 * Makes the plugin rows agree with node `nodeId`'s reported node plugins `reported` (module
 * doc), inside `tx`; writes only rows that change.
 */
export function syncNodePlugins(tx: Txn, nodeId: string, reported: Readonly<Record<string, CsiInfoDoc>>): void {
  for (const p of tx.list<CsiPluginDoc>(T.csiPlugins)) {
    if (!Object.hasOwn(p.Nodes, nodeId) || Object.hasOwn(reported, p.ID)) continue;
    const { [nodeId]: _gone, ...nodes } = p.Nodes;
    if (Object.keys(nodes).length + Object.keys(p.Controllers).length === 0) tx.delete(T.csiPlugins, p.ID);
    else tx.put<CsiPluginDoc>(T.csiPlugins, p.ID, pluginDoc(p.ID, p.Controllers, nodes));
  }
  for (const [id, info] of Object.entries(reported)) {
    const old = tx.get<CsiPluginDoc>(T.csiPlugins, id);
    if (sameInfo(old?.Nodes[nodeId], info)) continue;
    tx.put<CsiPluginDoc>(T.csiPlugins, id, pluginDoc(id, old?.Controllers ?? {}, { ...old?.Nodes, [nodeId]: info }));
  }
}
