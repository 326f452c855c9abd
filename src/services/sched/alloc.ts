/**
 * The scheduler's allocation, the minimal model of state.ts `AllocDoc` that CSI volume claims
 * use (reference/sched.md §5): statuses, terminal checks, the volume requests an allocation
 * carries (on the allocation itself: the scheduler copies its task group's CSI volumes there)
 * decoded and checked with the reference's rules, and the read and list shapes the API and
 * the event stream show. Times are Unix nanoseconds, as the reference's allocation times.
 *
 * @module
 */
import type { Indexed } from '../../kernel/store/index.js';
import { decodeGoStruct, type GoKind } from './go-struct.js';
import { schedBadRequest } from './http.js';
import type { PlacedAllocFields, VolumeRequest } from './jobs/types.js';
import type { AllocDoc } from './state.js';

/** Client statuses (reference/sched.md §5). */
export const CLIENT_STATUSES = ['pending', 'running', 'complete', 'failed', 'lost', 'unknown'] as const;
/** CSI access modes a volume request may ask for (the reference's `CSIVolumeAccessMode`). */
export const CSI_ACCESS_MODES = [
  'single-node-reader-only',
  'single-node-writer',
  'single-node-single-writer',
  'single-node-multi-writer',
  'multi-node-reader-only',
  'multi-node-single-writer',
  'multi-node-multi-writer',
] as const;
/** CSI attachment modes (the reference's `CSIVolumeAttachmentMode`). */
export const CSI_ATTACHMENT_MODES = ['file-system', 'block-device'] as const;
/** Volume request types (the reference's `VolumeTypeHost`, `VolumeTypeCSI`). */
const VOLUME_TYPES = ['host', 'csi'] as const;

/**
 * A stored allocation: {@link AllocDoc} plus the node's name at placement (the reference keeps
 * it on the allocation), and the fields the scheduler sets when it places one
 * (jobs/types.ts `PlacedAllocFields`; optional: allocations stored by an earlier Cairn through
 * the removed Cairn-only `PUT /v1/allocation` may lack them, and the scheduler leaves those alone).
 */
export type StoredAlloc = AllocDoc & { readonly NodeName?: string } & Partial<Omit<PlacedAllocFields, 'NodeName'>>;

/** Is the allocation terminal? Desired `stop`/`evict`, or client `complete`/`failed`/`lost` (`unknown` is not; reference/sched.md §5). */
export function allocTerminal(a: Pick<AllocDoc, 'DesiredStatus' | 'ClientStatus'>): boolean {
  return a.DesiredStatus === 'stop' || a.DesiredStatus === 'evict' || clientTerminal(a);
}

/** Has the client finished with it? Client `complete`, `failed` or `lost` (the reference's `ClientTerminalStatus`). */
export function clientTerminal(a: Pick<AllocDoc, 'ClientStatus'>): boolean {
  return a.ClientStatus === 'complete' || a.ClientStatus === 'failed' || a.ClientStatus === 'lost';
}

/** The reference's `DesiredTransition` with nothing asked. */
const NO_TRANSITION = { Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null } as const;

/** The allocation's `DeploymentStatus` as the reference shows it (its `ModifyIndex` the allocation's), null when none. */
function deploymentStatus(a: StoredAlloc & Indexed): Record<string, unknown> | null {
  return a.DeploymentStatus ? { ...a.DeploymentStatus, ModifyIndex: a.ModifyIndex } : null;
}

/**
 * An allocation as `GET /v1/allocation/:id` and the event stream show it (reference/sched.md
 * §3.4, §5): the reference's fields that this model has, `Job` null (events never carry the
 * job), and the Cairn field `Volumes`.
 */
export function renderAlloc(a: StoredAlloc & Indexed): Record<string, unknown> {
  return {
    ID: a.ID,
    Namespace: a.Namespace,
    EvalID: a.EvalID,
    Name: a.Name,
    NodeID: a.NodeID,
    NodeName: a.NodeName ?? '',
    JobID: a.JobID,
    Job: null,
    TaskGroup: a.TaskGroup,
    Volumes: a.Volumes,
    DesiredStatus: a.DesiredStatus,
    DesiredDescription: a.DesiredDescription,
    DesiredTransition: a.DesiredTransition ?? NO_TRANSITION,
    ClientStatus: a.ClientStatus,
    ClientDescription: a.ClientDescription,
    TaskStates: a.TaskStates ?? null,
    AllocatedResources: a.AllocatedResources ?? null,
    DeploymentID: a.DeploymentID,
    DeploymentStatus: deploymentStatus(a),
    FollowupEvalID: a.FollowupEvalID ?? '',
    PreviousAllocation: a.PreviousAllocation ?? '',
    NextAllocation: a.NextAllocation ?? '',
    RescheduleTracker: a.RescheduleTracker ?? null,
    // How the node was chosen (scheduler/place.ts); null on allocations placed before it was kept.
    Metrics: (a as { Metrics?: unknown }).Metrics ?? null,
    CreateIndex: a.CreateIndex,
    ModifyIndex: a.ModifyIndex,
    AllocModifyIndex: a.AllocModifyIndex || a.ModifyIndex,
    CreateTime: a.CreateTime,
    ModifyTime: a.ModifyTime,
  };
}

/** The list item (the reference's `AllocListStub`, reference/sched.md §5); fields this model lacks are their zero values. */
export function allocStub(a: StoredAlloc & Indexed): Record<string, unknown> {
  return {
    ID: a.ID,
    EvalID: a.EvalID,
    Name: a.Name,
    Namespace: a.Namespace,
    NodeID: a.NodeID,
    NodeName: a.NodeName ?? '',
    JobID: a.JobID,
    JobType: a.Job?.Type ?? '',
    JobVersion: a.Job?.Version ?? 0,
    TaskGroup: a.TaskGroup,
    DesiredStatus: a.DesiredStatus,
    DesiredDescription: a.DesiredDescription,
    ClientStatus: a.ClientStatus,
    ClientDescription: a.ClientDescription,
    DesiredTransition: a.DesiredTransition ?? NO_TRANSITION,
    TaskStates: a.TaskStates ?? null,
    DeploymentStatus: deploymentStatus(a),
    FollowupEvalID: a.FollowupEvalID ?? '',
    NextAllocation: a.NextAllocation ?? '',
    RescheduleTracker: a.RescheduleTracker ?? null,
    PreemptedAllocations: null,
    PreemptedByAllocation: '',
    CreateIndex: a.CreateIndex,
    ModifyIndex: a.ModifyIndex,
    CreateTime: a.CreateTime,
    ModifyTime: a.ModifyTime,
  };
}

/** `value` must be one of `allowed`. @throws 400 `invalid <what> "<v>": must be one of a, b, c`. */
export function checkEnum(what: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) throw schedBadRequest(`invalid ${what} "${value}": must be one of ${allowed.join(', ')}`);
}

/**
 * Decodes and checks the `Volumes` map of an allocation: name → `{Type, Source, ReadOnly,
 * AccessMode, AttachmentMode, MountOptions, PerAlloc}`. Types `csi` and `host`; a CSI request
 * needs an attachment and an access mode, reader-only access modes must be `ReadOnly`, block
 * devices take no mount options (the reference's `VolumeRequest.Validate`). Errors are 400
 * `volume "<name>": <reason>`, e.g. `volume "data": CSI volumes must have an access mode`.
 */
export function decodeVolumes(raw: Record<string, unknown> | null): Record<string, VolumeRequest> | null {
  if (raw === null) return null;
  const out: Record<string, VolumeRequest> = {};
  for (const [name, value] of Object.entries(raw)) {
    const fail = (why: string) => schedBadRequest(`volume "${name}": ${why}`);
    const v = decodeGoStruct(value, 'structs.VolumeRequest', {
      Type: 'string',
      Source: 'string',
      ReadOnly: 'bool',
      AccessMode: 'string',
      AttachmentMode: 'string',
      MountOptions: 'object',
      PerAlloc: 'bool',
    } satisfies Record<string, GoKind>);
    const type = v.Type as string;
    if (!(VOLUME_TYPES as readonly string[]).includes(type)) throw fail(`invalid volume type "${type}": must be one of ${VOLUME_TYPES.join(', ')}`);
    if (v.Source === '') throw fail('volume has an empty source');
    const mount = v.MountOptions === null ? null : decodeGoStruct(v.MountOptions, 'structs.CSIMountOptions', { FsType: 'string', MountFlags: 'any' });
    if (mount && mount.MountFlags !== null && !(Array.isArray(mount.MountFlags) && mount.MountFlags.every((f) => typeof f === 'string'))) {
      throw fail('MountOptions.MountFlags must be a list of strings');
    }
    const access = v.AccessMode as string;
    const attachment = v.AttachmentMode as string;
    if (type === 'csi') {
      if (attachment === '') throw fail('CSI volumes must have an attachment mode');
      if (!(CSI_ATTACHMENT_MODES as readonly string[]).includes(attachment))
        throw fail(`invalid attachment mode "${attachment}": must be one of ${CSI_ATTACHMENT_MODES.join(', ')}`);
      if (attachment === 'block-device' && mount) throw fail('block devices cannot have mount options');
      if (access === '') throw fail('CSI volumes must have an access mode');
      if (!(CSI_ACCESS_MODES as readonly string[]).includes(access))
        throw fail(`invalid access mode "${access}": must be one of ${CSI_ACCESS_MODES.join(', ')}`);
      if (access.endsWith('reader-only') && !v.ReadOnly) throw fail(`${access} volumes must be read-only`);
    }
    out[name] = {
      Name: name,
      Type: type,
      Source: v.Source as string,
      ReadOnly: v.ReadOnly as boolean,
      AccessMode: access,
      AttachmentMode: attachment,
      MountOptions: mount ? { FsType: mount.FsType as string, MountFlags: (mount.MountFlags as string[] | null) ?? null } : null,
      PerAlloc: v.PerAlloc as boolean,
    };
  }
  return out;
}
