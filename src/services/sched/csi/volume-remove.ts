/**
 * Deregister, delete and detach of a CSI volume (spec 002 "States and transitions" and
 * "Errors"; reference/sched.md §4.9). The volume is `:volume_id` in `?namespace=` (default
 * `default`); each needs `namespace:csi-write-volume` there. "In use" is a live read or write
 * claim (claims.ts); the reference answers these failures 500, here a missing volume is 404
 * and a volume in use 409 (reference/README.md rule 3).
 *
 * - deregister (`?force=`): refused while in use; with `force=true` the claims of terminal
 *   allocations (and of allocations that no longer exist) drop at once, and it is still
 *   refused while any claiming allocation is not terminal. No plugin call: the volume is not
 *   detached. Label `CSIVolumeDeregistered`.
 * - delete: refused while in use; needs `CREATE_DELETE_VOLUME`; the plugin's `DeleteVolume`
 *   with the stored secrets under those of `X-Sched-CSI-Secrets`, then deregister.
 * - detach (`?node=` required): refused while an allocation on that node claims it; needs
 *   `PUBLISH_UNPUBLISH_VOLUME`; the plugin's `ControllerUnpublishVolume` for that node, then
 *   the node's past claims drop (label `CSIVolumeClaim`).
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';
import { parseGoBool } from '../../../kernel/util/go-bool.js';
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import type { SchedAccess } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { requireQuery } from '../request.js';
import { DEFAULT_NAMESPACE, LABEL, T } from '../state.js';
import { unpublishVolume } from './alloc-claims.js';
import { claimedOnNode, dropPastClaims } from './claims.js';
import { requireController } from './controller.js';
import { pluginCall } from './plugin-error.js';
import type { CsiPluginDoc } from './plugin-doc.js';
import { csiSecretsHeader, mergeSecrets } from './secrets.js';
import { liveClaims, volumeInUse, volumeKey, type StoredVolume } from './volume.js';

const volumeNotFound = (id: string) => schedNotFound(`volume not found: ${id}`);
const inUse = (id: string, why = '') => new CairnError('conflict', `volume in use: ${id}${why}`);

const namespaceOf = (ctx: Ctx) => ctx.query.get('namespace') || DEFAULT_NAMESPACE;

/** The volume of the request, its key, and the lock held around `fn`. */
async function withVolume(ctx: Ctx, fn: (key: string, id: string) => Promise<SchedReply>): Promise<SchedReply> {
  const id = ctx.params.id!;
  const key = volumeKey(namespaceOf(ctx), id);
  return ctx.deps.volumeLocks.with([key], () => fn(key, id));
}

/** Who may deregister, delete or detach the volume: `csi-write-volume` in its namespace. */
export function removeAccess(ctx: Ctx): SchedAccess {
  return { namespace: namespaceOf(ctx), anyOf: ['csi-write-volume'] };
}

/** `?force=` of a deregister. @throws 400 `invalid force value`. */
function forceOf(ctx: Ctx): boolean {
  const raw = ctx.query.get('force');
  const force = raw === null || raw === '' ? false : parseGoBool(raw);
  if (force === undefined) throw schedBadRequest('invalid force value');
  return force;
}

/** {@link removeAccess} of a deregister, after the 400 of a bad `?force=`, which the reference answers first. */
export function deregisterAccess(ctx: Ctx): SchedAccess {
  forceOf(ctx);
  return removeAccess(ctx);
}

/** {@link removeAccess} of a detach, after the 400 of a missing `?node=`, which the reference answers first. */
export function detachAccess(ctx: Ctx): SchedAccess {
  requireQuery(ctx, 'node', 'detach requires node ID');
  return removeAccess(ctx);
}

/**
 * `DELETE /v1/volume/csi/:volume_id?force=` (module doc). Empty reply with `X-Sched-Index`.
 * @throws 400 `invalid force value`; 404 `volume not found: <id>`; 409 `volume in use:
 *   <id>`, with force `volume in use: <id>: allocation "<a>" is not terminal`.
 */
export function deregisterVolume(ctx: Ctx): Promise<SchedReply> {
  const force = forceOf(ctx);
  return withVolume(ctx, async (key, id) => {
    const { index } = await ctx.deps.state.txn((tx) => {
      const vol = tx.get<StoredVolume>(T.csiVolumes, key);
      if (!vol) throw volumeNotFound(id);
      if (volumeInUse(vol)) {
        if (!force) throw inUse(id);
        const running = liveClaims(vol).find((c) => {
          const a = tx.get<StoredAlloc>(T.allocs, c.AllocationID);
          return a !== undefined && !allocTerminal(a);
        });
        if (running) throw inUse(id, `: allocation "${running.AllocationID}" is not terminal`);
      }
      tx.delete(T.csiVolumes, key);
    }, LABEL.csiVolumeDeregister);
    return writeReply(index);
  });
}

/**
 * `DELETE /v1/volume/csi/:volume_id/delete` (module doc). Empty reply with `X-Sched-Index`.
 * @throws 404 `volume not found: <id>`; 409 `volume in use: <id>`; 400 `plugin "<p>" does not
 *   support CREATE_DELETE_VOLUME`; 503 no healthy controller; the plugin's failure.
 */
export function deleteVolume(ctx: Ctx): Promise<SchedReply> {
  const secrets = csiSecretsHeader(ctx);
  return withVolume(ctx, async (key, id) => {
    const vol = ctx.deps.state.get<StoredVolume>(T.csiVolumes, key);
    if (!vol) throw volumeNotFound(id);
    if (volumeInUse(vol)) throw inUse(id);
    const { client } = requireController(ctx.deps, vol.PluginID, 'SupportsCreateDelete');
    await pluginCall(`plugin "${vol.PluginID}" could not delete volume "${id}"`, () =>
      client.deleteVolume(vol.ExternalID || vol.ID, mergeSecrets(vol.Secrets, secrets)),
    );
    const { index } = await ctx.deps.state.txn((tx) => {
      tx.delete(T.csiVolumes, key);
    }, LABEL.csiVolumeDeregister);
    return writeReply(index);
  });
}

/**
 * `DELETE /v1/volume/csi/:volume_id/detach?node=<node ID>` (module doc). Empty reply with
 * `X-Sched-Index`. @throws 400 `missing node: detach requires node ID`; 404 `volume not
 * found: <id>`; 409 `volume in use: <id>: claimed by an allocation on node "<n>"`; 400
 * `plugin "<p>" does not support PUBLISH_UNPUBLISH_VOLUME`, `no node plugin of "<p>" is
 * known on node "<n>"`; 503; the plugin's failure.
 */
export function detachVolume(ctx: Ctx): Promise<SchedReply> {
  const node = requireQuery(ctx, 'node', 'detach requires node ID');
  return withVolume(ctx, async (key, id) => {
    const vol = ctx.deps.state.get<StoredVolume>(T.csiVolumes, key);
    if (!vol) throw volumeNotFound(id);
    if (claimedOnNode(vol, node)) throw inUse(id, `: claimed by an allocation on node "${node}"`);
    requireController(ctx.deps, vol.PluginID, 'SupportsAttachDetach');
    const past = Object.values(vol.PastClaims).filter((c) => c.NodeID === node);
    const external =
      past.find((c) => c.ExternalNodeID !== '')?.ExternalNodeID ?? ctx.deps.state.get<CsiPluginDoc>(T.csiPlugins, vol.PluginID)?.Nodes[node]?.NodeInfo?.ID;
    if (!external) throw schedBadRequest(`no node plugin of "${vol.PluginID}" is known on node "${node}"`);
    await unpublishVolume(ctx.deps, vol, { NodeID: node, ExternalNodeID: external });
    const { index } = await ctx.deps.state.txn((tx) => {
      const now = tx.get<StoredVolume>(T.csiVolumes, key);
      if (now && past.length > 0)
        tx.put(
          T.csiVolumes,
          key,
          dropPastClaims(
            now,
            past.map((c) => c.AllocationID),
          ),
        );
    }, LABEL.csiVolumeClaim);
    return writeReply(index);
  });
}
