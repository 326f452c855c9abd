/**
 * The volume definitions of a register or create body (spec 002 "Endpoints": `PUT
 * /volume/csi/:volume_id` and `…/create`, body `{"Volumes": [...]}`), decoded the way Go
 * decodes `structs.CSIVolume` (field names in any case, unknown fields ignored) and checked
 * with the reference's texts (reference/sched.md §4.5 step 3, `validation: <e1>, <e2>`)
 * plus the checks Cairn adds: known access and attachment modes, mount options only on file
 * systems, a capacity range in order, IDs a path can address. Pure.
 *
 * @module
 */
import { CSI_ACCESS_MODES, CSI_ATTACHMENT_MODES } from '../alloc.js';
import { decodeGoStruct, decodeLinks, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import type { CapabilityDoc, MountOptionsDoc, Segments } from './volume.js';

/** One volume definition of a request, decoded and checked. */
export interface VolumeSpec {
  readonly ID: string;
  readonly Name: string;
  readonly ExternalID: string;
  readonly Namespace: string;
  readonly PluginID: string;
  readonly RequestedCapabilities: readonly CapabilityDoc[];
  readonly Secrets: Readonly<Record<string, string>> | null;
  readonly Parameters: Readonly<Record<string, string>> | null;
  readonly Context: Readonly<Record<string, string>> | null;
  readonly MountOptions: MountOptionsDoc | null;
  readonly Topologies: readonly Segments[] | null;
  readonly RequestedTopologies: { readonly Required: readonly Segments[] | null; readonly Preferred: readonly Segments[] | null } | null;
  /** Bytes; 0: none asked. */
  readonly RequestedCapacityMin: number;
  readonly RequestedCapacityMax: number;
  readonly SnapshotID: string;
  readonly CloneID: string;
}

const GO_TYPE = 'structs.CSIVolume';

/**
 * A topology list: each item `{"Segments": {...}}` (the reference's JSON) or the segments map
 * itself (spec 002: "array of map string to string"). @throws 400 naming `field`.
 */
function decodeTopologies(v: unknown, field: string): Segments[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${typeof v} into Go struct field ${GO_TYPE}.${field} of type []*structs.CSITopology`);
  return v.flatMap((item, i) => {
    if (item === null) return [];
    const inner = fieldOf(item, 'Segments');
    const segments = inner !== undefined && Object.keys(item as object).length === 1 ? inner : item;
    if (typeof segments !== 'object' || segments === null || Array.isArray(segments) || !Object.values(segments).every((s) => typeof s === 'string')) {
      throw schedBadRequest(`${field}[${i}] must be a map of string to string`);
    }
    return [{ ...(segments as Record<string, string>) }];
  });
}

/** Checks one decoded definition; returns the reasons it is invalid (empty: valid). */
function problems(s: VolumeSpec): string[] {
  const out: string[] = [];
  if (s.ID === '') out.push('missing volume id');
  else if (s.ID.includes('/')) out.push(`invalid volume id "${s.ID}": must not contain "/"`);
  if (s.PluginID === '') out.push('missing plugin id');
  if (s.SnapshotID !== '' && s.CloneID !== '') out.push('only one of snapshot_id and clone_id is allowed');
  if (s.RequestedCapabilities.length === 0) out.push('must include at least one capability block');
  s.RequestedCapabilities.forEach((c, i) => {
    if (c.AccessMode === '') out.push(`capability ${i}: missing access mode`);
    else if (!(CSI_ACCESS_MODES as readonly string[]).includes(c.AccessMode))
      out.push(`capability ${i}: invalid access mode "${c.AccessMode}": must be one of ${CSI_ACCESS_MODES.join(', ')}`);
    if (c.AttachmentMode === '') out.push(`capability ${i}: missing attachment mode`);
    else if (!(CSI_ATTACHMENT_MODES as readonly string[]).includes(c.AttachmentMode))
      out.push(`capability ${i}: invalid attachment mode "${c.AttachmentMode}": must be one of ${CSI_ATTACHMENT_MODES.join(', ')}`);
  });
  if (s.MountOptions && s.RequestedCapabilities.length > 0 && s.RequestedCapabilities.every((c) => c.AttachmentMode === 'block-device')) {
    out.push('mount options are only for file-system volumes');
  }
  for (const kind of ['Required', 'Preferred'] as const) {
    if (s.RequestedTopologies?.[kind]?.some((t) => Object.keys(t).length === 0)) out.push(`${kind.toLowerCase()} topology is missing segments field`);
  }
  if (s.RequestedCapacityMin < 0 || s.RequestedCapacityMax < 0) out.push('requested capacity must not be negative');
  if (s.RequestedCapacityMax > 0 && s.RequestedCapacityMax < s.RequestedCapacityMin) {
    out.push(`max requested capacity (${s.RequestedCapacityMax}) is less than min requested capacity (${s.RequestedCapacityMin})`);
  }
  return out;
}

/** Decodes one definition (`namespace` fills an empty `Namespace`). @throws 400 with the decoder's texts. */
function decodeVolume(raw: unknown, namespace: string): VolumeSpec {
  const v = decodeGoStruct(raw, GO_TYPE, {
    ID: 'string',
    Name: 'string',
    ExternalID: 'string',
    Namespace: 'string',
    PluginID: 'string',
    RequestedCapabilities: 'any',
    Secrets: 'map',
    Parameters: 'map',
    Context: 'map',
    MountOptions: 'object',
    Topologies: 'any',
    RequestedTopologies: 'object',
    RequestedCapacityMin: 'int',
    RequestedCapacityMax: 'int',
    SnapshotID: 'string',
    CloneID: 'string',
  });
  const caps = decodeLinks(v.RequestedCapabilities ?? undefined, {
    owner: GO_TYPE,
    field: 'RequestedCapabilities',
    linkType: 'CSIVolumeCapability',
    keys: ['AccessMode', 'AttachmentMode'],
  });
  let mount: MountOptionsDoc | null = null;
  if (v.MountOptions !== null) {
    const m = decodeGoStruct(v.MountOptions, 'structs.CSIMountOptions', { FSType: 'string', MountFlags: 'any' });
    const flags = m.MountFlags;
    if (flags !== null && !(Array.isArray(flags) && flags.every((f) => typeof f === 'string')))
      throw schedBadRequest('MountOptions.MountFlags must be a list of strings');
    mount = { FsType: m.FSType as string, MountFlags: (flags as string[] | null) ?? null };
  }
  let requested: VolumeSpec['RequestedTopologies'] = null;
  if (v.RequestedTopologies !== null) {
    const r = decodeGoStruct(v.RequestedTopologies, 'structs.CSITopologyRequest', { Required: 'any', Preferred: 'any' });
    requested = {
      Required: decodeTopologies(r.Required, 'RequestedTopologies.Required'),
      Preferred: decodeTopologies(r.Preferred, 'RequestedTopologies.Preferred'),
    };
  }
  return {
    ID: v.ID as string,
    Name: v.Name as string,
    ExternalID: v.ExternalID as string,
    Namespace: (v.Namespace as string) || namespace,
    PluginID: v.PluginID as string,
    RequestedCapabilities: caps,
    Secrets: v.Secrets as Record<string, string> | null,
    Parameters: v.Parameters as Record<string, string> | null,
    Context: v.Context as Record<string, string> | null,
    MountOptions: mount,
    Topologies: decodeTopologies(v.Topologies ?? undefined, 'Topologies'),
    RequestedTopologies: requested,
    RequestedCapacityMin: v.RequestedCapacityMin as number,
    RequestedCapacityMax: v.RequestedCapacityMax as number,
    SnapshotID: v.SnapshotID as string,
    CloneID: v.CloneID as string,
  };
}

/**
 * The definitions of a register or create body's `Volumes` (`list`: null when absent; the
 * routes declare the body `{"Volumes": [...]}`, csi/volume-register.ts). `namespace` fills an
 * empty `Namespace` (the request's `?namespace=`, else `default`). `pathId` (the
 * `/volume/csi/:volume_id` routes) fills an empty `ID` and must equal every given one.
 * @throws 400 `missing volume definition` (none given); the decoder's texts; `volume ID "<b>"
 *   does not match the request path "<p>"`; `validation: <e1>, <e2>` (reference/sched.md §4.5
 *   step 3 texts and {@link problems}).
 */
export function decodeVolumeSpecs(list: unknown, o: { namespace: string; pathId?: string }): VolumeSpec[] {
  if (list !== null && !Array.isArray(list))
    throw schedBadRequest(`json: cannot unmarshal ${typeof list} into Go struct field structs.CSIVolumeRegisterRequest.Volumes of type []*structs.CSIVolume`);
  const raw = (list ?? []).filter((v) => v !== null);
  if (raw.length === 0) throw schedBadRequest('missing volume definition');
  const specs = raw.map((r) => {
    const s = decodeVolume(r, o.namespace);
    if (o.pathId === undefined) return s;
    if (s.ID !== '' && s.ID !== o.pathId) throw schedBadRequest(`volume ID "${s.ID}" does not match the request path "${o.pathId}"`);
    return { ...s, ID: o.pathId };
  });
  const errors = specs.flatMap(problems);
  if (errors.length > 0) throw schedBadRequest(`validation: ${errors.join(', ')}`);
  const keys = specs.map((s) => `${s.Namespace}.${s.ID}`);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice !== undefined) throw schedBadRequest(`validation: volume "${twice.slice(twice.indexOf('.') + 1)}" is defined twice`);
  return specs;
}
