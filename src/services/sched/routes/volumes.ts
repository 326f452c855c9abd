/**
 * CSI volumes (spec 002 "CSI volumes", reference/sched.md §4.1–§4.9). `?namespace=` (default
 * `default`) names the volume's namespace; the volume ID in the path is the full ID.
 *
 * ```text
 * GET    /v1/volumes?type=csi&namespace=&node_id=&plugin_id=&prefix=&per_page=&next_token=&filter=
 *                                              csi-list-volume   stubs, paged     (blocking)
 * PUT    /v1/volumes                           csi-write-volume  register (body names the volumes)
 * GET    /v1/volume/csi/:volume_id             csi-read-volume   the volume       (blocking)
 * PUT    /v1/volume/csi/:volume_id             csi-write-volume  register
 * DELETE /v1/volume/csi/:volume_id?force=      csi-write-volume  deregister
 * PUT    /v1/volume/csi/:volume_id/create      csi-write-volume  create
 * DELETE /v1/volume/csi/:volume_id/delete      csi-write-volume  delete (X-Sched-CSI-Secrets)
 * DELETE /v1/volume/csi/:volume_id/detach?node=  csi-write-volume  detach
 * ```
 *
 * Register and create are csi/volume-register.ts; deregister, delete and detach
 * csi/volume-remove.ts; the shapes csi/volume.ts. Reads never show secrets.
 *
 * @module
 */
import { ALL_NAMESPACES, type NamespaceCapability } from '../acl/index.js';
import { volumeLookup } from '../csi/lookup.js';
import { registerAccess, RegisterVolumesBody, registerVolumes, type RegisterOptions } from '../csi/volume-register.js';
import { deleteVolume, deregisterAccess, deregisterVolume, detachAccess, detachVolume, removeAccess } from '../csi/volume-remove.js';
import { liveClaims, renderVolume, volumeFilterDatum, volumeKey, volumeStub, type StoredVolume } from '../csi/volume.js';
import type { CsiPluginDoc } from '../csi/plugin-doc.js';
import { Type } from '@sinclair/typebox';
import { PUBLIC, type ApiQuery, type Public } from '../../../kernel/http/index.js';
import { ANY_CALLER, type SchedAccess, type SchedOperation, type SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, type SchedReply } from '../http.js';
import { compileListFilter, nextTokenHeader, paginate } from '../paginate.js';
import { PAGED_QUERY, PREFIX_QUERY, queryHexPrefix, queryPerPage, queryPrefix } from '../request.js';
import { DEFAULT_NAMESPACE, T } from '../state.js';

/** Capabilities any of which lets a token list volumes (spec 002: `csi-list-volume`; the reference also takes these others, reference/sched.md §4.8). */
export const VOLUME_LIST_CAPABILITIES: readonly NamespaceCapability[] = ['csi-list-volume', 'csi-read-volume', 'csi-mount-volume', 'list-jobs'];
/** Capabilities any of which lets a token read a volume (spec 002: `csi-read-volume`; reference/sched.md §4.8). */
const VOLUME_READ_CAPABILITIES: readonly NamespaceCapability[] = ['csi-read-volume', 'csi-mount-volume', 'read-job'];

/**
 * `GET /v1/volumes` (spec 002 "Endpoints", reference/sched.md §1.7, §4.8): `[]` without
 * `type`; `type=csi` lists the stubs of the volumes in `?namespace=` (`*`: every namespace the
 * token may list) in `<namespace>.<id>` order, narrowed by `node_id` (volumes claimed by an
 * allocation on a node with that ID prefix), `plugin_id` (plugin ID prefix), `prefix` (volume
 * ID prefix) and `filter` (over the full volume as read, csi/volume.ts `volumeFilterDatum`;
 * only volumes the token may list are evaluated, so a filter error never comes from a volume
 * of another namespace), paged by `per_page` / `next_token`
 * with `X-Sched-NextToken`. @throws 400 `unsupported volume type "<t>": only "csi" is
 * supported`, odd hex prefixes, a bad `per_page`, filter errors; 403 without a list
 * capability in a named namespace.
 */
/**
 * Who may list volumes: without `?type=` anyone (the list is empty, as the reference's);
 * else a volume-list capability in `?namespace=`, or for `*` any caller, the list showing
 * the namespaces where it has one. @throws 400 `unsupported volume type "<t>": only "csi" is supported`.
 */
function listAccess(ctx: Ctx): SchedAccess | Public {
  const type = ctx.query.get('type') ?? '';
  if (type === '') return PUBLIC;
  if (type !== 'csi') throw schedBadRequest(`unsupported volume type "${type}": only "csi" is supported`);
  const ns = ctx.query.get('namespace') || DEFAULT_NAMESPACE;
  return ns === ALL_NAMESPACES ? ANY_CALLER : { namespace: ns, anyOf: VOLUME_LIST_CAPABILITIES };
}

/** The query parameters of the volume list. */
const LIST_QUERY: ApiQuery = {
  type: Type.String({ description: '`csi` (required for a non-empty list).' }),
  node_id: Type.String({ description: 'Only volumes claimed on nodes whose ID starts with this (an even number of hex characters).' }),
  plugin_id: Type.String({ description: 'Only volumes of plugins whose ID starts with this.' }),
  ...PREFIX_QUERY,
  ...PAGED_QUERY,
};

async function listVolumes(ctx: Ctx): Promise<SchedReply> {
  if ((ctx.query.get('type') ?? '') === '') return { body: [] };
  const who = ctx.caller;
  const ns = ctx.query.get('namespace') || DEFAULT_NAMESPACE;
  const nodeId = queryHexPrefix(ctx, 'node_id', { uuid: true }).toLowerCase();
  const pluginId = queryHexPrefix(ctx, 'plugin_id');
  const prefix = queryPrefix(ctx);
  const perPage = queryPerPage(ctx);
  const filter = compileListFilter(ctx.query.get('filter'));
  const { state } = ctx.deps;
  const index = state.tableIndex(T.csiVolumes, T.csiPlugins);
  const look = volumeLookup(state);
  const listable = new Map<string, boolean>();
  const mayList = (n: string) => {
    let ok = listable.get(n);
    if (ok === undefined) listable.set(n, (ok = who.authorizer.allowNamespaceAnyOf(n, VOLUME_LIST_CAPABILITIES)));
    return ok;
  };
  const nextToken = ctx.query.get('next_token') ?? '';
  // Rows are keyed `<namespace>.<id>`, the paging token: the scan starts at the later of the
  // token and the namespace's first key, so a deep page costs what the first one does.
  const nsStart = ns === ALL_NAMESPACES ? '' : volumeKey(ns, '');
  function* candidates(): Generator<StoredVolume> {
    for (const v of state.scan<StoredVolume>(T.csiVolumes, nextToken > nsStart ? nextToken : nsStart)) {
      if (ns !== ALL_NAMESPACES && v.Namespace !== ns) return;
      // Before the filter: a filter must not evaluate (and fail on) volumes the token may not list.
      if (ns === ALL_NAMESPACES && !mayList(v.Namespace)) continue;
      if (!v.PluginID.startsWith(pluginId) || !v.ID.startsWith(prefix)) continue;
      if (nodeId !== '' && !liveClaims(v).some((c) => c.NodeID.toLowerCase().startsWith(nodeId))) continue;
      yield v;
    }
  }
  const page = paginate({
    items: candidates(),
    tokenOf: (v) => volumeKey(v.Namespace, v.ID),
    perPage,
    nextToken,
    filter,
    filterOn: (v) => volumeFilterDatum(v, look),
  });
  const body = page.items.map((v) => volumeStub(v, state.get<CsiPluginDoc>(T.csiPlugins, v.PluginID)));
  return { body, index, headers: nextTokenHeader(page.nextToken) };
}

/**
 * `GET /v1/volume/csi/:volume_id`: the volume as read (csi/volume.ts `renderVolume`);
 * `X-Sched-Index` the highest of the volume, plugin and allocation tables. @throws 404
 * `volume not found`; 403 without `csi-read-volume` in the namespace.
 */
/** A volume-read capability in `?namespace=`. */
const readAccess = (ctx: Ctx): SchedAccess => ({ namespace: ctx.query.get('namespace') || DEFAULT_NAMESPACE, anyOf: VOLUME_READ_CAPABILITIES });

/** The operation registering (or creating) the body's volumes. */
const register = (o: (ctx: Ctx) => RegisterOptions): SchedOperation => ({
  access: (ctx) => registerAccess(o(ctx))(ctx),
  body: RegisterVolumesBody,
  handle: (ctx) => registerVolumes(ctx, o(ctx)),
});

async function readVolume(ctx: Ctx): Promise<SchedReply> {
  const ns = ctx.query.get('namespace') || DEFAULT_NAMESPACE;
  const { state } = ctx.deps;
  const v = state.get<StoredVolume>(T.csiVolumes, volumeKey(ns, ctx.params.id!));
  if (!v) throw schedNotFound('volume not found');
  return { body: renderVolume(v, volumeLookup(state)), index: state.tableIndex(T.csiVolumes, T.csiPlugins, T.allocs) };
}

/** Routes of this file (see the module doc). */
export const volumeRoutes: readonly SchedRoute[] = [
  {
    pattern: 'volumes',
    synopsis: 'List CSI volumes (?type=csi) as stubs, paged and filtered; register volumes named in the body',
    blocking: [T.csiVolumes, T.csiPlugins],
    methods: {
      GET: { access: listAccess, query: LIST_QUERY, handle: listVolumes },
      PUT: register(() => ({ create: false })),
      POST: register(() => ({ create: false })),
    },
  },
  {
    pattern: 'volume/csi/:id',
    synopsis: 'Read, register or deregister a CSI volume',
    blocking: [T.csiVolumes, T.csiPlugins, T.allocs],
    methods: {
      GET: { access: readAccess, handle: readVolume },
      PUT: register((ctx) => ({ create: false, pathId: ctx.params.id! })),
      DELETE: {
        access: deregisterAccess,
        query: { force: Type.Boolean({ description: 'Deregister even while allocations claim it.' }) },
        handle: deregisterVolume,
      },
    },
  },
  {
    pattern: 'volume/csi/:id/create',
    synopsis: 'Create a CSI volume in its plugin and register it (needs CREATE_DELETE_VOLUME)',
    methods: { PUT: register((ctx) => ({ create: true, pathId: ctx.params.id! })) },
  },
  {
    pattern: 'volume/csi/:id/delete',
    synopsis: 'Delete a CSI volume in its plugin and deregister it (needs CREATE_DELETE_VOLUME; X-Sched-CSI-Secrets)',
    methods: { DELETE: { access: removeAccess, handle: deleteVolume } },
  },
  {
    pattern: 'volume/csi/:id/detach',
    synopsis: 'Detach a CSI volume from a node (?node=; needs PUBLISH_UNPUBLISH_VOLUME)',
    methods: {
      DELETE: { access: detachAccess, query: { node: Type.String({ description: 'Required: the node ID to detach it from.' }) }, handle: detachVolume },
    },
  },
];
