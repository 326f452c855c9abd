/**
 * External volumes and snapshots, passed through to a plugin's controller (spec 002
 * "Endpoints", reference/sched.md §4.10). `plugin_id` is a plugin ID or a prefix naming one
 * plugin (spec 002's hex-prefix rule applies); the plugin's own paging tokens travel in the
 * body's `NextToken`.
 *
 * ```text
 * GET        /v1/volumes/external?plugin_id=&per_page=&next_token=   csi-list-volume   LIST_VOLUMES
 * POST|PUT   /v1/volumes/snapshot   {"Snapshots": [...]}              csi-write-volume  CREATE_DELETE_SNAPSHOT
 * DELETE     /v1/volumes/snapshot?plugin_id=&snapshot_id=            csi-write-volume  CREATE_DELETE_SNAPSHOT
 * GET        /v1/volumes/snapshot?plugin_id=&per_page=&next_token=   csi-list-volume   LIST_SNAPSHOTS
 * ```
 *
 * The GETs are blocking on the plugin table (spec 002 marks them blocking; what they list
 * lives in the plugin). The reference answers an unknown plugin and a missing capability 500;
 * here they are 400 naming the plugin or the capability.
 *
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import type { CsiSnapshot } from '../../../kernel/csi/index.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { requireController } from '../csi/controller.js';
import { pluginCall } from '../csi/plugin-error.js';
import type { CsiPluginDoc } from '../csi/plugin-doc.js';
import { csiSecretsHeader, mergeSecrets } from '../csi/secrets.js';
import { volumeKey, type StoredVolume } from '../csi/volume.js';
import { schedBadRequest, writeReply, type SchedReply } from '../http.js';
import { queryHexPrefix, queryPerPage, requireInput, requireQuery } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { withBody, type ApiQuery } from '../../../kernel/http/index.js';
import { DEFAULT_NAMESPACE, T } from '../state.js';
import { VOLUME_LIST_CAPABILITIES } from './volumes.js';
import { decodeGoStruct } from '../go-struct.js';

/** The request's `?namespace=` (default `default`). */
const namespaceOf = (ctx: Ctx) => ctx.query.get('namespace') || DEFAULT_NAMESPACE;
/** Listing: a volume-list capability in `?namespace=`. */
const LIST = (ctx: Ctx): SchedAccess => ({ namespace: namespaceOf(ctx), anyOf: VOLUME_LIST_CAPABILITIES });
/** Snapshot writes: `csi-write-volume` in `?namespace=`. */
const WRITE = (ctx: Ctx): SchedAccess => ({ namespace: namespaceOf(ctx), anyOf: ['csi-write-volume'] });

/** The `plugin_id` query parameter ({@link pluginOf}). */
const PLUGIN_QUERY: ApiQuery = { plugin_id: Type.String({ description: 'Required: the plugin ID, or a prefix of one plugin’s ID.' }) };

/** The query parameters of the plugin-paged lists (spec 002 "Limits": `per_page` required). */
const PLUGIN_PAGE_QUERY: ApiQuery = {
  ...PLUGIN_QUERY,
  per_page: Type.Integer({ minimum: 1, description: 'Required: the page size.' }),
  next_token: Type.String({ description: 'The `NextToken` of the previous page.' }),
};

/**
 * The plugin `?plugin_id=` names: its ID, else the one plugin whose ID starts with it.
 * @throws 400 `missing plugin_id: …`, an odd hex prefix, `no such plugin "<p>"`, `plugin_id "<p>" matches several plugins: a, b`.
 */
function pluginOf(ctx: Ctx): CsiPluginDoc {
  requireQuery(ctx, 'plugin_id', 'this endpoint needs the plugin ID');
  const id = queryHexPrefix(ctx, 'plugin_id');
  const exact = ctx.deps.state.get<CsiPluginDoc>(T.csiPlugins, id);
  if (exact) return exact;
  const matches = ctx.deps.state.list<CsiPluginDoc>(T.csiPlugins).filter((p) => p.ID.startsWith(id));
  if (matches.length === 0) throw schedBadRequest(`no such plugin "${id}"`);
  if (matches.length > 1) throw schedBadRequest(`plugin_id "${id}" matches several plugins: ${matches.map((p) => p.ID).join(', ')}`);
  return matches[0]!;
}

/** A snapshot as the list shows it (spec 002 "Snapshot" list item). */
function snapshotItem(s: CsiSnapshot, pluginId: string): Record<string, unknown> {
  return {
    ID: s.snapshotId,
    ExternalSourceVolumeID: s.sourceVolumeId,
    SizeBytes: s.sizeBytes,
    CreateTime: s.creationTime,
    IsReady: s.readyToUse,
    PluginID: pluginId,
    Parameters: null,
  };
}

/**
 * `GET /v1/volumes/external`: one page of the plugin's `ListVolumes` (`per_page` entries at
 * most, from `next_token`): `{"Volumes": [{ExternalID, CapacityBytes, VolumeContext, CloneID,
 * SnapshotID, PublishedExternalNodeIDs, IsAbnormal, Status}], "NextToken": "<plugin token>"}`.
 * On a follower of a shared state, forwarded to the leader (it drives the plugins).
 * @throws 400 `missing plugin_id: …`, `missing per_page: …`, `plugin "<p>" does not support LIST_VOLUMES`; 503; 403;
 *   500 `No cluster leader`.
 */
async function listExternal(ctx: Ctx): Promise<SchedReply> {
  const plugin = pluginOf(ctx);
  const perPage = queryPerPage(ctx, true);
  const { client } = requireController(ctx.deps, plugin.ID, 'SupportsListVolumes');
  const page = await pluginCall(`plugin "${plugin.ID}" could not list volumes`, () =>
    client.listVolumes({ maxEntries: perPage, startingToken: ctx.query.get('next_token') || undefined }),
  );
  const volumes = page.entries.slice(0, perPage).map((e) => ({
    ExternalID: e.volume.volumeId,
    CapacityBytes: e.volume.capacityBytes,
    VolumeContext: e.volume.volumeContext,
    CloneID: e.volume.contentSource?.volumeId ?? '',
    SnapshotID: e.volume.contentSource?.snapshotId ?? '',
    PublishedExternalNodeIDs: e.publishedNodeIds,
    IsAbnormal: e.condition?.abnormal ?? false,
    Status: e.condition?.message ?? '',
  }));
  return { body: { Volumes: volumes, NextToken: page.nextToken }, index: ctx.deps.state.tableIndex(T.csiPlugins) };
}

/** One snapshot definition of a create body. */
interface SnapshotSpec {
  readonly SourceVolumeID: string;
  readonly PluginID: string;
  readonly Name: string;
  readonly Secrets: Record<string, string> | null;
  readonly Parameters: Record<string, string> | null;
}

/** The body of a snapshot create (the reference's `structs.CSISnapshotCreateRequest`; each snapshot decoded by {@link createSnapshots}). */
const CreateBody = Go.struct('structs.CSISnapshotCreateRequest', {
  Snapshots: Go.any('[{"SourceVolumeID", "PluginID"?, "Name", "Secrets"?, "Parameters"?}] (structs.CSISnapshot)'),
});

/**
 * `POST|PUT /v1/volumes/snapshot`: body `{"Snapshots": [{SourceVolumeID, PluginID?, Name,
 * Secrets, Parameters}]}`; each source is a registered volume of `?namespace=`, the plugin
 * defaults to the volume's; `CreateSnapshot` of the volume's external ID with its secrets under
 * the body's. All are checked before the first is made; if one fails, those made are deleted.
 * Replies `{"Snapshots": [{ID, ExternalSourceVolumeID, SourceVolumeID, PluginID, Name,
 * SizeBytes, CreateTime, IsReady: false, Parameters}]}` (spec 002: `IsReady` false in the
 * creation response). @throws 400 `missing snapshot definition`, `snapshot <i>: missing
 * SourceVolumeID` / `missing Name`, `no such volume "<v>"`, `plugin "<p>" does not support
 * CREATE_DELETE_SNAPSHOT`; 503; the plugin's failure; 403.
 */
async function createSnapshots(ctx: Ctx, input: Static<typeof CreateBody> | undefined): Promise<SchedReply> {
  const ns = namespaceOf(ctx);
  const body = requireInput(input);
  // Each snapshot is decoded on its own, as its texts name `structs.CSISnapshot`.
  if (body.Snapshots !== null && !Array.isArray(body.Snapshots))
    throw schedBadRequest('json: cannot unmarshal into Go struct field structs.CSISnapshotCreateRequest.Snapshots of type []*structs.CSISnapshot');
  const specs = ((body.Snapshots ?? []) as unknown[])
    .filter((s) => s !== null)
    .map(
      (s) =>
        decodeGoStruct(s, 'structs.CSISnapshot', {
          SourceVolumeID: 'string',
          PluginID: 'string',
          Name: 'string',
          Secrets: 'map',
          Parameters: 'map',
        }) as unknown as SnapshotSpec,
    );
  if (specs.length === 0) throw schedBadRequest('missing snapshot definition');
  const plan = specs.map((s, i) => {
    if (s.SourceVolumeID === '') throw schedBadRequest(`snapshot ${i}: missing SourceVolumeID`);
    if (s.Name === '') throw schedBadRequest(`snapshot ${i}: missing Name`);
    const vol = ctx.deps.state.get<StoredVolume>(T.csiVolumes, volumeKey(ns, s.SourceVolumeID));
    if (!vol) throw schedBadRequest(`no such volume "${s.SourceVolumeID}"`);
    const pluginId = s.PluginID || vol.PluginID;
    return { s, vol, pluginId, client: requireController(ctx.deps, pluginId, 'SupportsCreateDeleteSnapshot').client };
  });
  const made: { snap: CsiSnapshot; p: (typeof plan)[number] }[] = [];
  try {
    for (const p of plan) {
      const snap = await pluginCall(`plugin "${p.pluginId}" could not snapshot volume "${p.vol.ID}"`, () =>
        p.client.createSnapshot({
          sourceVolumeId: p.vol.ExternalID || p.vol.ID,
          name: p.s.Name,
          secrets: mergeSecrets(p.vol.Secrets, p.s.Secrets ?? undefined),
          parameters: p.s.Parameters ?? undefined,
        }),
      );
      made.push({ snap, p });
    }
  } catch (err) {
    for (const { snap, p } of made)
      await p.client.deleteSnapshot(snap.snapshotId, mergeSecrets(p.vol.Secrets, p.s.Secrets ?? undefined)).catch(() => undefined);
    throw err;
  }
  const snapshots = made.map(({ snap, p }) => ({
    ID: snap.snapshotId,
    ExternalSourceVolumeID: snap.sourceVolumeId,
    SourceVolumeID: p.vol.ID,
    PluginID: p.pluginId,
    Name: p.s.Name,
    SizeBytes: snap.sizeBytes,
    CreateTime: snap.creationTime,
    IsReady: false,
    Parameters: p.s.Parameters,
  }));
  return writeReply(ctx.deps.state.tableIndex(T.csiVolumes), { Snapshots: snapshots });
}

/**
 * `DELETE /v1/volumes/snapshot?plugin_id=&snapshot_id=`: the plugin's `DeleteSnapshot` with the
 * `X-Sched-CSI-Secrets` secrets. Empty reply. @throws 400 `missing plugin_id: …`, `missing
 * snapshot_id: …`, `plugin "<p>" does not support CREATE_DELETE_SNAPSHOT`; 503; the plugin's failure; 403.
 */
async function deleteSnapshot(ctx: Ctx): Promise<SchedReply> {
  const plugin = pluginOf(ctx);
  const id = requireQuery(ctx, 'snapshot_id', 'this endpoint needs the snapshot ID');
  const { client } = requireController(ctx.deps, plugin.ID, 'SupportsCreateDeleteSnapshot');
  await pluginCall(`plugin "${plugin.ID}" could not delete snapshot "${id}"`, () => client.deleteSnapshot(id, csiSecretsHeader(ctx)));
  return writeReply(ctx.deps.state.tableIndex(T.csiVolumes));
}

/**
 * `GET /v1/volumes/snapshot?plugin_id=&per_page=&next_token=`: one page of the plugin's
 * `ListSnapshots` with the `X-Sched-CSI-Secrets` secrets: `{"Snapshots": [{ID,
 * ExternalSourceVolumeID, SizeBytes, CreateTime, IsReady, PluginID, Parameters}], "NextToken"}`.
 * On a follower of a shared state, forwarded to the leader (it drives the plugins).
 * @throws 400 `missing plugin_id: …`, `missing per_page: …`, `plugin "<p>" does not support LIST_SNAPSHOTS`; 503; 403;
 *   500 `No cluster leader`.
 */
async function listSnapshots(ctx: Ctx): Promise<SchedReply> {
  const plugin = pluginOf(ctx);
  const perPage = queryPerPage(ctx, true);
  const { client } = requireController(ctx.deps, plugin.ID, 'SupportsListSnapshots');
  const page = await pluginCall(`plugin "${plugin.ID}" could not list snapshots`, () =>
    client.listSnapshots({ maxEntries: perPage, startingToken: ctx.query.get('next_token') || undefined, secrets: csiSecretsHeader(ctx) }),
  );
  const snapshots = page.entries.slice(0, perPage).map((s) => snapshotItem(s, plugin.ID));
  return { body: { Snapshots: snapshots, NextToken: page.nextToken }, index: ctx.deps.state.tableIndex(T.csiPlugins) };
}

/** Routes of this file (see the module doc). */
export const volumeSnapshotRoutes: readonly SchedRoute[] = [
  {
    pattern: 'volumes/external',
    synopsis: 'List the volumes a plugin holds, registered or not (needs LIST_VOLUMES; per_page required)',
    blocking: [T.csiPlugins],
    // Only the leader drives the CSI plugins (csi/plugins.ts): a follower asks it.
    methods: { GET: { access: LIST, forward: 'leader', query: PLUGIN_PAGE_QUERY, handle: listExternal } },
  },
  {
    pattern: 'volumes/snapshot',
    synopsis: 'Create, delete and list CSI snapshots (CREATE_DELETE_SNAPSHOT, LIST_SNAPSHOTS)',
    blocking: [T.csiPlugins],
    methods: {
      GET: { access: LIST, forward: 'leader', query: PLUGIN_PAGE_QUERY, handle: listSnapshots },
      POST: withBody(CreateBody, { access: WRITE, handle: createSnapshots }),
      PUT: withBody(CreateBody, { access: WRITE, handle: createSnapshots }),
      DELETE: {
        access: WRITE,
        query: { ...PLUGIN_QUERY, snapshot_id: Type.String({ description: 'Required: the snapshot to delete.' }) },
        handle: deleteSnapshot,
      },
    },
  },
];
