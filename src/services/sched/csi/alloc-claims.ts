/**
 * Allocation writes with their CSI volume claims (reference/sched.md §4.4, issue 7 scope 5):
 * an allocation that becomes live (created, or no longer terminal) claims the volumes its
 * CSI requests name, and one that becomes terminal (desired `stop`/`evict`, client
 * `complete`/`failed`/`lost`) releases them, in the same state write as the allocation.
 *
 * Where the volume's plugin has `PUBLISH_UNPUBLISH_VOLUME`, a claim first publishes the
 * volume to the plugin's ID of the allocation's node (ControllerPublishVolume; a failure
 * refuses the claim and changes nothing), and a release that leaves no claim on that node
 * unpublishes it after the write (ControllerUnpublishVolume); until that succeeds the claim
 * stays in `PastClaims` (`DELETE /v1/volume/csi/:id/detach` retries it). The volumes' keys
 * and the allocation are locked for the whole sequence (csi/locks.ts).
 *
 * @module
 */
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { CairnError } from '../../../kernel/http/index.js';
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import type { SchedDeps } from '../service-deps.js';
import { LABEL, T } from '../state.js';
import { claimedOnNode, claimRequests, claimVolume, dropPastClaims, releaseClaim, type ClaimRequest } from './claims.js';
import { optionalController, pluginHas, requireController, volumeCapability } from './controller.js';
import { pluginCall } from './plugin-error.js';
import { volumeHealth, type CsiPluginDoc } from './plugin-doc.js';
import { liveClaims, type ClaimDoc, type StoredVolume } from './volume.js';

/** What a write reads through: the state, or the write's own transaction. */
export type Reader = Pick<Txn, 'get' | 'list'>;

/** A claim checked against the state, and whether it publishes. */
interface Planned {
  readonly request: ClaimRequest;
  readonly claim: ClaimDoc;
  readonly publish: boolean;
}

/** What {@link writeAllocation} writes. */
export interface AllocationWrite {
  readonly id: string;
  /** Label of the write (state.ts `LABEL`). */
  readonly label: string;
  /**
   * The allocation to store, from the stored one (undefined: none yet). Runs before the plugin
   * calls and again inside the write; throws to refuse (not found, ACL, bad references).
   */
  readonly build: (current: (StoredAlloc & Indexed) | undefined, read: Reader) => StoredAlloc;
  /** Further writes in the same transaction, given the allocation before and after (an `alloc-failure` evaluation). */
  readonly also?: (tx: Txn, next: StoredAlloc, previous: (StoredAlloc & Indexed) | undefined) => void;
}

const failed = (allocId: string, volumeId: string, why: string, code: 'bad_request' | 'conflict' = 'conflict') =>
  new CairnError(code, `alloc "${allocId}" failed to claim volume "${volumeId}": ${why}`);

/**
 * The claims allocation `a` takes, checked against `read` (module doc; reference/sched.md §4.4
 * and the reference scheduler's CSI feasibility checks). @throws 400 `alloc "<a>" failed to
 * claim volume "<v>": volume not found`; 409 `… CSI plugin "<p>" is missing from node
 * "<n>"`, `… is unhealthy on node "<n>"`, `… node "<n>" has reached the maximum allowable
 * number of attached volumes`; the errors of {@link claimVolume}.
 */
function plan(deps: SchedDeps, a: StoredAlloc, requests: readonly ClaimRequest[], read: Reader): Planned[] {
  // Volumes of each plugin this allocation attaches to its node beyond those claimed there:
  // they count against the node's `MaxVolumes` before any is written (the reference's CSI
  // volume checker counts the group's own requests the same way).
  const attaching = new Map<string, number>();
  return requests.map((request) => {
    const vol = read.get<StoredVolume>(T.csiVolumes, request.key);
    if (!vol) throw failed(a.ID, request.volumeId, 'volume not found', 'bad_request');
    const plugin = read.get<CsiPluginDoc>(T.csiPlugins, vol.PluginID);
    const onNode = plugin?.Nodes[a.NodeID];
    if (!onNode) throw failed(a.ID, vol.ID, `CSI plugin "${vol.PluginID}" is missing from node "${a.NodeID}"`);
    if (!onNode.Healthy) throw failed(a.ID, vol.ID, `CSI plugin "${vol.PluginID}" is unhealthy on node "${a.NodeID}"`);
    requireRoom(vol, { allocId: a.ID, nodeId: a.NodeID, plugin }, read, attaching.get(vol.PluginID) ?? 0);
    if (!claimedOnNode(vol, a.NodeID)) attaching.set(vol.PluginID, (attaching.get(vol.PluginID) ?? 0) + 1);
    const claim: ClaimDoc = {
      AllocationID: a.ID,
      NodeID: a.NodeID,
      ExternalNodeID: onNode.NodeInfo?.ID ?? '',
      Mode: request.mode,
      AccessMode: request.accessMode,
      AttachmentMode: request.attachmentMode,
      State: 'taken',
    };
    claimVolume(vol, claim, volumeHealth(plugin, vol));
    const publish = pluginHas(deps, vol.PluginID, 'SupportsAttachDetach') && !claimedOnNode(vol, a.NodeID);
    return { request, claim, publish };
  });
}

/**
 * Throws unless node `nodeId` has room for one more volume of `vol`'s plugin: the node
 * plugin's `MaxVolumes` (0: no limit) counts the volumes of that plugin claimed there, `vol`
 * itself excepted when it is already claimed there, plus `pending` more (the allocation's
 * earlier volumes of that plugin, planned but not written yet). Checked when a claim is
 * planned (with `pending`) and again inside the write, against the claims written so far
 * (this allocation's other volumes, and allocations written meanwhile on the same node, which
 * hold other volume locks).
 * @throws 409 `alloc "<a>" failed to claim volume "<v>": node "<n>" has reached the maximum allowable number of attached volumes (<max>)`.
 */
function requireRoom(
  vol: StoredVolume,
  { allocId, nodeId, plugin }: { allocId: string; nodeId: string; plugin: CsiPluginDoc | undefined },
  read: Reader,
  pending = 0,
): void {
  const max = plugin?.Nodes[nodeId]?.NodeInfo?.MaxVolumes ?? 0;
  if (max <= 0 || claimedOnNode(vol, nodeId)) return;
  const attached = pending + read.list<StoredVolume>(T.csiVolumes).filter((v) => v.PluginID === vol.PluginID && claimedOnNode(v, nodeId)).length;
  if (attached >= max) throw failed(allocId, vol.ID, `node "${nodeId}" has reached the maximum allowable number of attached volumes (${max})`);
}

/**
 * Why allocation `a` could not claim its CSI volumes on its node now, or undefined when it
 * could: the checks of {@link writeAllocation} (plugin healthy on the node, `MaxVolumes`,
 * access mode and free claims) without writing or calling a plugin. The scheduler's
 * feasibility check (scheduler/place.ts).
 */
export function claimRefusal(deps: SchedDeps, a: StoredAlloc, read: Reader): Error | undefined {
  try {
    plan(deps, a, claimRequests(a), read);
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

/** ControllerPublishVolume of each planned claim that publishes; on a failure the ones done are unpublished again. */
async function publishAll(deps: SchedDeps, planned: readonly Planned[]): Promise<Planned[]> {
  const done: Planned[] = [];
  try {
    for (const p of planned.filter((x) => x.publish)) {
      const vol = deps.state.get<StoredVolume>(T.csiVolumes, p.request.key)!;
      const { client } = requireController(deps, vol.PluginID, 'SupportsAttachDetach');
      await pluginCall(
        `alloc "${p.claim.AllocationID}" failed to claim volume "${vol.ID}": plugin "${vol.PluginID}" could not publish it to node "${p.claim.NodeID}"`,
        () =>
          client.controllerPublishVolume({
            volumeId: vol.ExternalID || vol.ID,
            nodeId: p.claim.ExternalNodeID,
            volumeCapability: volumeCapability(p.claim.AccessMode, p.claim.AttachmentMode, vol.MountOptions),
            readonly: p.claim.Mode === 'read',
            secrets: vol.Secrets ?? undefined,
            volumeContext: vol.Context ?? undefined,
          }),
      );
      done.push(p);
    }
    return done;
  } catch (err) {
    await unpublishUnclaimed(deps, done);
    throw err;
  }
}

/** Unpublishes what {@link publishAll} published for a claim that was then not written (unless another claim holds the node). */
async function unpublishUnclaimed(deps: SchedDeps, published: readonly Planned[]): Promise<void> {
  for (const p of published) {
    const vol = deps.state.get<StoredVolume>(T.csiVolumes, p.request.key);
    if (!vol || claimedOnNode(vol, p.claim.NodeID)) continue;
    await unpublishVolume(deps, vol, p.claim).catch((err: unknown) => deps.plugins.log.warn({ err, volume: vol.ID }, 'CSI: undoing a publish failed'));
  }
}

/**
 * ControllerUnpublishVolume of `vol` from the node of `claim` (its `ExternalNodeID`).
 * @throws as {@link requireController} (`PUBLISH_UNPUBLISH_VOLUME`); the plugin's failure.
 */
export async function unpublishVolume(deps: SchedDeps, vol: StoredVolume, claim: Pick<ClaimDoc, 'NodeID' | 'ExternalNodeID'>): Promise<void> {
  const { client } = requireController(deps, vol.PluginID, 'SupportsAttachDetach');
  await pluginCall(`plugin "${vol.PluginID}" could not unpublish volume "${vol.ID}" from node "${claim.NodeID}"`, () =>
    client.controllerUnpublishVolume(vol.ExternalID || vol.ID, claim.ExternalNodeID, vol.Secrets ?? undefined),
  );
}

/**
 * Writes allocation `o.id` as `o.build` makes it, with the claims it takes or releases (module
 * doc), in one write labelled `o.label`; resolves with the stored allocation and the index.
 * @throws what `o.build` throws; the claim errors of {@link plan}; 503 / 4xx / 502 for a
 *   failed publish (nothing written).
 */
export async function writeAllocation(deps: SchedDeps, o: AllocationWrite): Promise<{ result: StoredAlloc & Indexed; index: number }> {
  const requests = claimRequests(o.build(deps.state.get<StoredAlloc>(T.allocs, o.id), deps.state));
  return deps.volumeLocks.with([`\0alloc/${o.id}`, ...requests.map((r) => r.key)], async () => {
    const current = deps.state.get<StoredAlloc>(T.allocs, o.id);
    const next = o.build(current, deps.state);
    const claiming = !allocTerminal(next) && (!current || allocTerminal(current));
    const releasing = allocTerminal(next) && current !== undefined && !allocTerminal(current);
    const planned = claiming ? plan(deps, next, requests, deps.state) : [];
    const published = await publishAll(deps, planned);
    const released: { key: string; claim: ClaimDoc }[] = [];
    let written: { result: StoredAlloc & Indexed; index: number };
    try {
      written = await deps.state.txn((tx) => {
        const previous = tx.get<StoredAlloc>(T.allocs, o.id);
        const stored = tx.put<StoredAlloc>(T.allocs, o.id, o.build(previous, tx));
        o.also?.(tx, stored, previous);
        for (const p of planned) {
          const vol = tx.get<StoredVolume>(T.csiVolumes, p.request.key);
          if (!vol) throw failed(o.id, p.request.volumeId, 'volume not found', 'bad_request');
          const plugin = tx.get<CsiPluginDoc>(T.csiPlugins, vol.PluginID);
          requireRoom(vol, { allocId: o.id, nodeId: p.claim.NodeID, plugin }, tx);
          tx.put(T.csiVolumes, p.request.key, claimVolume(vol, p.claim, volumeHealth(plugin, vol)));
        }
        if (releasing) {
          for (const r of requests) {
            const vol = tx.get<StoredVolume>(T.csiVolumes, r.key);
            const claim = vol && liveClaims(vol).find((c) => c.AllocationID === o.id);
            if (!vol || !claim) continue;
            const unpublish = pluginHas(deps, vol.PluginID, 'SupportsAttachDetach') && claim.ExternalNodeID !== '' && !claimedOnNode(vol, claim.NodeID, o.id);
            tx.put(T.csiVolumes, r.key, releaseClaim(vol, o.id, unpublish));
            if (unpublish) released.push({ key: r.key, claim });
          }
        }
        return stored;
      }, o.label);
    } catch (err) {
      await unpublishUnclaimed(deps, published);
      throw err;
    }
    for (const r of released) await finishUnpublish(deps, r.key, r.claim);
    return written;
  });
}

/**
 * Unpublishes the released `claim` of volume `key` and drops its past claim (a write labelled
 * `CSIVolumeClaim`); a failure is logged and the past claim kept for a later detach.
 */
async function finishUnpublish(deps: SchedDeps, key: string, claim: ClaimDoc): Promise<void> {
  const vol = deps.state.get<StoredVolume>(T.csiVolumes, key);
  if (!vol?.PastClaims[claim.AllocationID]) return;
  const log = deps.plugins.log;
  if (!optionalController(deps, vol.PluginID, 'SupportsAttachDetach')) {
    log.warn({ volume: vol.ID, node: claim.NodeID }, 'CSI: no healthy controller to unpublish a released volume; detach it later');
    return;
  }
  try {
    await unpublishVolume(deps, vol, claim);
    await deps.state.txn((tx) => {
      const now = tx.get<StoredVolume>(T.csiVolumes, key);
      if (now) tx.put(T.csiVolumes, key, dropPastClaims(now, [claim.AllocationID]));
    }, LABEL.csiVolumeClaim);
  } catch (err) {
    log.warn({ err, volume: vol.ID, node: claim.NodeID }, 'CSI: unpublishing a released volume failed; detach it later');
  }
}
