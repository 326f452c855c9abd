/**
 * CSI plugins (reference/sched.md §4.1, §4.11), read from the `csi-plugins` rows the plugin
 * registry writes (csi/plugins.ts):
 *
 * ```text
 * GET /v1/plugins?type=csi&prefix=    plugin:list   stubs in ID order   (blocking on csi-plugins)
 * GET /v1/plugin/csi/:id              plugin:read   the plugin          (blocking on csi-plugins)
 * ```
 *
 * Without `type` the list is `[]`, as the reference; a `type` other than `csi` is 400 (the
 * reference answers 200 with an empty body).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SchedRoute } from '../access.js';
import { schedBadRequest, schedNotFound } from '../http.js';
import { pluginStub, renderPlugin, type CsiPluginDoc } from '../csi/plugin-doc.js';
import { PREFIX_QUERY, queryPrefix } from '../request.js';
import { T } from '../state.js';

/** Routes of this file (see the module doc). */
export const pluginRoutes: readonly SchedRoute[] = [
  {
    pattern: 'plugins',
    synopsis: 'List CSI plugins as stubs; ?type=csi (required for a non-empty list), ?prefix= (ID prefix)',
    blocking: [T.csiPlugins],
    methods: {
      /** Stubs in ID order; `[]` without `type`; 400 `unsupported plugin type "<t>": only "csi" is supported`; 403 without `plugin:list`. */
      GET: {
        access: { plugin: 'list' },
        query: { type: Type.String({ description: '`csi` (required for a non-empty list).' }), ...PREFIX_QUERY },
        handle: async (ctx) => {
          const type = ctx.query.get('type') ?? '';
          const index = ctx.deps.state.tableIndex(T.csiPlugins);
          if (type === '') return { body: [], index };
          if (type !== 'csi') throw schedBadRequest(`unsupported plugin type "${type}": only "csi" is supported`);
          const prefix = queryPrefix(ctx);
          const plugins = ctx.deps.state.list<CsiPluginDoc>(T.csiPlugins).filter((p) => p.ID.startsWith(prefix));
          return { body: plugins.map(pluginStub), index };
        },
      },
    },
  },
  {
    pattern: 'plugin/csi/:id',
    synopsis: 'Read a CSI plugin: its controllers and nodes with their health and capabilities',
    blocking: [T.csiPlugins],
    methods: {
      /** The plugin, `X-Sched-Index` its ModifyIndex; 404 `plugin not found`; 403 without `plugin:read`. */
      GET: {
        access: { plugin: 'read' },
        handle: async (ctx) => {
          const p = ctx.deps.state.get<CsiPluginDoc>(T.csiPlugins, ctx.params.id!);
          if (!p) throw schedNotFound('plugin not found');
          return { body: renderPlugin(p), index: p.ModifyIndex };
        },
      },
    },
  },
];
