/**
 * The stored volume a register or create writes (reference/sched.md §4.5 steps 5 and 8,
 * §4.6, §4.7): a new volume from its definition (and the plugin's `CreateVolume` answer), or
 * an existing one updated with the reference's rules: identity fields never change; while
 * in use the claimed capability must stay requested and mount options stay; parameters never
 * change; secrets are always replaced, context when given; a larger minimum capacity asks for
 * an expansion. Pure.
 *
 * @module
 */
import type { CsiVolume } from '../../../kernel/csi/index.js';
import { schedBadRequest } from '../http.js';
import type { CsiPluginDoc } from './plugin-doc.js';
import { volumeInUse, type CsiVolumeDoc, type StoredVolume } from './volume.js';
import type { VolumeSpec } from './volume-spec.js';

const nonEmpty = <T extends object>(m: T | null | undefined): m is T => m !== null && m !== undefined && Object.keys(m).length > 0;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * A new volume from `spec` of plugin `plugin` at `nowNs` (Unix ns). `created` is the plugin's
 * `CreateVolume` answer: it gives `ExternalID`, `Capacity`, the context it returns (over the
 * requested one) and `Topologies`. `Name` defaults to the ID; without topologies of its own
 * the volume takes the required ones it asked for (reference/sched.md §4.5 step 5).
 */
export function newVolume(spec: VolumeSpec, plugin: CsiPluginDoc, nowNs: number, created?: CsiVolume): CsiVolumeDoc {
  const createdTopologies = created && created.accessibleTopology.length > 0 ? created.accessibleTopology.map((t) => ({ ...t })) : null;
  const context = created ? { ...spec.Context, ...created.volumeContext } : spec.Context;
  return {
    ID: spec.ID,
    Name: spec.Name || spec.ID,
    ExternalID: created?.volumeId ?? spec.ExternalID,
    Namespace: spec.Namespace,
    PluginID: spec.PluginID,
    Provider: plugin.Provider,
    ProviderVersion: plugin.Version,
    ControllerRequired: plugin.ControllerRequired,
    Topologies: createdTopologies ?? spec.Topologies ?? spec.RequestedTopologies?.Required ?? null,
    RequestedTopologies: spec.RequestedTopologies,
    AccessMode: '',
    AttachmentMode: '',
    MountOptions: spec.MountOptions,
    Secrets: spec.Secrets,
    Parameters: spec.Parameters,
    Context: nonEmpty(context) ? context : null,
    Capacity: created?.capacityBytes ?? 0,
    RequestedCapacityMin: spec.RequestedCapacityMin,
    RequestedCapacityMax: spec.RequestedCapacityMax,
    RequestedCapabilities: spec.RequestedCapabilities,
    CloneID: spec.CloneID,
    SnapshotID: spec.SnapshotID,
    ReadClaims: {},
    WriteClaims: {},
    PastClaims: {},
    CreateTime: nowNs,
    ModifyTime: nowNs,
  };
}

/** An updated volume, and the capacity range to expand it to when its minimum grew past its capacity (reference/sched.md §4.7). */
export interface MergedVolume {
  readonly doc: CsiVolumeDoc;
  readonly expand?: { readonly min: number; readonly max: number };
}

/**
 * `old` updated by `spec` at `nowNs` (module doc; reference/sched.md §4.5 step 5, §4.7).
 * @throws 400 `unable to update volume: <e1>, <e2>` with `volume name cannot be updated`,
 *   `volume external ID cannot be updated`, `volume plugin ID cannot be updated`, `volume
 *   clone ID cannot be updated`, `volume snapshot ID cannot be updated`, `volume requested
 *   capabilities update was not compatible with existing capability in use`, `volume topology
 *   request update was not compatible with existing topology`, `can not update mount options
 *   while volume is in use`, `volume parameters cannot be updated`, `max requested capacity
 *   (<n>) is less than the current capacity (<n>)`.
 */
export function mergeVolume(old: StoredVolume, spec: VolumeSpec, nowNs: number): MergedVolume {
  const errors: string[] = [];
  const inUse = volumeInUse(old);
  if (spec.Name !== '' && spec.Name !== old.Name) errors.push('volume name cannot be updated');
  if (spec.ExternalID !== '' && spec.ExternalID !== old.ExternalID) errors.push('volume external ID cannot be updated');
  if (spec.PluginID !== old.PluginID) errors.push('volume plugin ID cannot be updated');
  if (spec.CloneID !== '' && spec.CloneID !== old.CloneID) errors.push('volume clone ID cannot be updated');
  if (spec.SnapshotID !== '' && spec.SnapshotID !== old.SnapshotID) errors.push('volume snapshot ID cannot be updated');
  if (inUse && !spec.RequestedCapabilities.some((c) => c.AccessMode === old.AccessMode && c.AttachmentMode === old.AttachmentMode)) {
    errors.push('volume requested capabilities update was not compatible with existing capability in use');
  }
  if (spec.RequestedTopologies && old.RequestedTopologies && !same(spec.RequestedTopologies, old.RequestedTopologies)) {
    errors.push('volume topology request update was not compatible with existing topology');
  }
  if (spec.MountOptions && inUse && !same(spec.MountOptions, old.MountOptions)) errors.push('can not update mount options while volume is in use');
  if (nonEmpty(spec.Parameters) && !same(spec.Parameters, old.Parameters)) errors.push('volume parameters cannot be updated');
  const min = spec.RequestedCapacityMin;
  const max = spec.RequestedCapacityMax;
  const capacityAsked = (min > 0 || max > 0) && (min !== old.RequestedCapacityMin || max !== old.RequestedCapacityMax);
  if (capacityAsked && max > 0 && max < old.Capacity) errors.push(`max requested capacity (${max}) is less than the current capacity (${old.Capacity})`);
  if (errors.length > 0) throw schedBadRequest(`unable to update volume: ${errors.join(', ')}`);
  const doc: CsiVolumeDoc = {
    ...old,
    RequestedCapabilities: spec.RequestedCapabilities,
    Secrets: spec.Secrets,
    Context: nonEmpty(spec.Context) ? spec.Context : old.Context,
    MountOptions: spec.MountOptions ?? old.MountOptions,
    RequestedTopologies: spec.RequestedTopologies ?? old.RequestedTopologies,
    Topologies: spec.Topologies ?? old.Topologies,
    RequestedCapacityMin: capacityAsked ? min : old.RequestedCapacityMin,
    RequestedCapacityMax: capacityAsked ? max : old.RequestedCapacityMax,
    ModifyTime: nowNs,
  };
  return capacityAsked && min > old.Capacity ? { doc, expand: { min, max } } : { doc };
}
