/**
 * Register and create of CSI volumes (spec 002 "Endpoints" and "States and transitions";
 * reference/sched.md §4.5–§4.7):
 *
 * - register: the volume must exist in the plugin: when the plugin has a controller
 *   (`ControllerRequired`) its `ValidateVolumeCapabilities` must confirm the requested
 *   capabilities of the external volume (`ExternalID`, else `ID`); a repeat updates the
 *   stored volume and, with a larger `RequestedCapacityMin`, expands it (`EXPAND_VOLUME`);
 * - create: needs `CREATE_DELETE_VOLUME`; a new volume is made with `CreateVolume` (name,
 *   capacity range, capabilities, mount options, parameters, secrets, snapshot or clone
 *   source, topology) and then registered; an existing one is updated as by register.
 *
 * Every definition is checked (decode, ACL, namespace, plugin) before the first plugin call;
 * all are written in one write labelled `CSIVolumeRegistered`. When a later step fails,
 * volumes this request created are deleted again, so a failed request changes nothing.
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import type { CsiVolume } from '../../../kernel/csi/index.js';
import type { SchedAccess } from '../access.js';
import type { Ctx, SchedDeps } from '../deps.js';
import { schedBadRequest, writeReply, type SchedReply } from '../http.js';
import { requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { DEFAULT_NAMESPACE, LABEL, T, type NamespaceDoc } from '../state.js';
import { healthyController, optionalController, requireController, requirePlugin, volumeCapability } from './controller.js';
import { pluginCall } from './plugin-error.js';
import type { CsiPluginDoc } from './plugin-doc.js';
import { volumeLookup } from './lookup.js';
import { renderVolume, volumeKey, type CsiVolumeDoc, type StoredVolume } from './volume.js';
import { decodeVolumeSpecs, type VolumeSpec } from './volume-spec.js';
import { mergeVolume, newVolume } from './volume-write.js';

/** The CSI capabilities a definition asks for. */
const capabilitiesOf = (s: Pick<VolumeSpec, 'RequestedCapabilities' | 'MountOptions'>) =>
  s.RequestedCapabilities.map((c) => volumeCapability(c.AccessMode, c.AttachmentMode, s.MountOptions));

/** `ValidateVolumeCapabilities` of `doc` when its plugin has a controller. @throws 503 `no healthy controllers for CSI plugin "<p>"`; 400 `plugin "<p>" did not confirm the capabilities of volume "<v>": <message>`; the plugin's failure (404 for an unknown volume). */
async function validate(deps: SchedDeps, plugin: CsiPluginDoc, doc: CsiVolumeDoc): Promise<void> {
  if (!plugin.ControllerRequired) return;
  const { client } = healthyController(deps, plugin.ID);
  const external = doc.ExternalID || doc.ID;
  const answer = await pluginCall(`plugin "${plugin.ID}" could not validate volume "${external}"`, () =>
    client.validateVolumeCapabilities({
      volumeId: external,
      volumeCapabilities: capabilitiesOf(doc),
      volumeContext: doc.Context ?? undefined,
      parameters: doc.Parameters ?? undefined,
      secrets: doc.Secrets ?? undefined,
    }),
  );
  if (!answer.confirmed) throw schedBadRequest(`plugin "${plugin.ID}" did not confirm the capabilities of volume "${external}": ${answer.message}`);
}

/** `CreateVolume` of a new definition. @throws the plugin's failure. */
function create(deps: SchedDeps, spec: VolumeSpec): Promise<CsiVolume> {
  const { client } = requireController(deps, spec.PluginID, 'SupportsCreateDelete');
  const range =
    spec.RequestedCapacityMin > 0 || spec.RequestedCapacityMax > 0
      ? { requiredBytes: spec.RequestedCapacityMin, limitBytes: spec.RequestedCapacityMax }
      : undefined;
  const source = spec.SnapshotID !== '' ? { snapshotId: spec.SnapshotID } : spec.CloneID !== '' ? { volumeId: spec.CloneID } : undefined;
  const topology = spec.RequestedTopologies ?? (spec.Topologies ? { Required: spec.Topologies, Preferred: null } : null);
  return pluginCall(`plugin "${spec.PluginID}" could not create volume "${spec.ID}"`, () =>
    client.createVolume({
      name: spec.Name || spec.ID,
      capacityRange: range,
      volumeCapabilities: capabilitiesOf(spec),
      parameters: spec.Parameters ?? undefined,
      secrets: spec.Secrets ?? undefined,
      contentSource: source,
      accessibilityRequirements: topology ? { requisite: topology.Required ?? [], preferred: topology.Preferred ?? [] } : undefined,
    }),
  );
}

/** `ControllerExpandVolume` of `doc` to `range`; resolves with the new capacity in bytes. @throws 400 without `EXPAND_VOLUME`; the plugin's failure. */
async function expand(deps: SchedDeps, doc: CsiVolumeDoc, range: { min: number; max: number }): Promise<number> {
  const { client } = requireController(deps, doc.PluginID, 'SupportsExpand');
  const answer = await pluginCall(`plugin "${doc.PluginID}" could not expand volume "${doc.ID}"`, () =>
    client.controllerExpandVolume({
      volumeId: doc.ExternalID || doc.ID,
      capacityRange: { requiredBytes: range.min, limitBytes: range.max },
      secrets: doc.Secrets ?? undefined,
    }),
  );
  return answer.capacityBytes;
}

/** What a register or create names: its path's volume ID, if any, and whether it creates. */
export interface RegisterOptions {
  readonly create: boolean;
  readonly pathId?: string;
}

/**
 * The body of a register or create (the reference's `structs.CSIVolumeRegisterRequest`), declared
 * by its routes (routes/volumes.ts); `Volumes` decoded by volume-spec.ts, whose texts name `structs.CSIVolume`.
 */
export const RegisterVolumesBody = Go.struct('structs.CSIVolumeRegisterRequest', { Volumes: Go.any('the volumes ([]structs.CSIVolume)') });

/** Each request's decoded volumes, decoded once by its access rule for the handler. */
const specsByRequest = new WeakMap<Ctx, VolumeSpec[]>();

/** The volumes the declared body registers, decoded once per request. @throws 400 `Request body is empty`, decode and `validation: …` errors. */
function specsOf(ctx: Ctx, o: RegisterOptions): VolumeSpec[] {
  const known = specsByRequest.get(ctx);
  if (known) return known;
  const volumes = requireInput(ctx.input<Static<typeof RegisterVolumesBody>>()).Volumes;
  const specs = decodeVolumeSpecs(volumes, { namespace: ctx.query.get('namespace') || DEFAULT_NAMESPACE, pathId: o.pathId });
  specsByRequest.set(ctx, specs);
  return specs;
}

/** Who may register the body's volumes: `csi-write-volume` in every one's namespace; the body's 400s first. */
export function registerAccess(o: RegisterOptions): (ctx: Ctx) => SchedAccess {
  return (ctx) => ({ namespace: specsOf(ctx, o).map((s) => s.Namespace), anyOf: ['csi-write-volume'] });
}

/**
 * `PUT /v1/volume/csi/:volume_id` and `PUT /v1/volumes` (register, `o.create` false) and
 * `PUT /v1/volume/csi/:volume_id/create` (create): see the module doc. Replies `{"Volumes":
 * [volume as read], "Warnings": "", "Index": N}` with `X-Sched-Index`.
 * @throws 400 decode and `validation: …` errors, `volume <id> is in nonexistent namespace
 *   <ns>`, `no CSI plugin named "<p>" could be found`, `plugin "<p>" does not support
 *   CREATE_DELETE_VOLUME` (create) / `EXPAND_VOLUME`, `unable to update volume: …`, an
 *   unconfirmed validation; 404 a volume the plugin does not know; 503 `no healthy
 *   controllers for CSI plugin "<p>"`.
 */
export async function registerVolumes(ctx: Ctx, o: RegisterOptions): Promise<SchedReply> {
  const deps = ctx.deps;
  const specs = specsOf(ctx, o);
  const keys = specs.map((s) => volumeKey(s.Namespace, s.ID));
  return deps.volumeLocks.with(keys, async () => {
    for (const s of specs) {
      if (!deps.state.get<NamespaceDoc>(T.namespaces, s.Namespace)) throw schedBadRequest(`volume ${s.ID} is in nonexistent namespace ${s.Namespace}`);
      requirePlugin(deps, s.PluginID);
      if (o.create) requireController(deps, s.PluginID, 'SupportsCreateDelete');
    }
    const nowNs = deps.now() * 1e6;
    const created: CsiVolumeDoc[] = [];
    try {
      const docs: CsiVolumeDoc[] = [];
      for (const s of specs) {
        const plugin = requirePlugin(deps, s.PluginID);
        const old = deps.state.get<StoredVolume>(T.csiVolumes, volumeKey(s.Namespace, s.ID));
        if (!old && o.create) {
          const doc = newVolume(s, plugin, nowNs, await create(deps, s));
          created.push(doc);
          docs.push(doc);
          continue;
        }
        const merged = old ? mergeVolume(old, s, nowNs) : { doc: newVolume(s, plugin, nowNs) };
        if (!o.create) await validate(deps, plugin, merged.doc);
        docs.push(merged.expand ? { ...merged.doc, Capacity: await expand(deps, merged.doc, merged.expand) } : merged.doc);
      }
      const { result, index } = await deps.state.txn((tx) => {
        for (const d of docs) if (!tx.get(T.namespaces, d.Namespace)) throw schedBadRequest(`volume ${d.ID} is in nonexistent namespace ${d.Namespace}`);
        return docs.map((d) => tx.put(T.csiVolumes, volumeKey(d.Namespace, d.ID), d));
      }, LABEL.csiVolumeRegister);
      const look = volumeLookup(deps.state);
      return writeReply(index, { Volumes: result.map((v) => renderVolume(v, look)), Warnings: '', Index: index });
    } catch (err) {
      for (const doc of created) {
        const undo = optionalController(deps, doc.PluginID, 'SupportsCreateDelete');
        await (undo?.client.deleteVolume(doc.ExternalID, doc.Secrets ?? undefined) ?? Promise.reject(new Error('no healthy controller'))).catch((e: unknown) =>
          deps.plugins.log.warn({ err: e, volume: doc.ID }, 'CSI: deleting a volume this failed request created failed'),
        );
      }
      throw err;
    }
  });
}
