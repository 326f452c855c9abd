/**
 * `GET /v1/node/:id/volume/csi/:volume?namespace=` (Cairn extension for the reference's
 * `CSIVolume.Get` RPC, which its clients call with their node secret before staging a
 * volume): what a client-only agent needs to stage and publish a CSI volume through its own
 * node plugin (client/csi-mounter.ts): the volume's IDs, plugin, mount options (unredacted),
 * secrets and context. The public volume read (routes/volumes.ts) never shows secrets, so
 * the client cannot use it.
 *
 * Authorised only by node `:id`'s own `SecretID` (node-secret.ts), and only for a volume an
 * allocation on that node claims: a node reads the secrets of nothing else.
 *
 * @module
 */
import { liveClaims, volumeKey, type StoredVolume } from '../csi/volume.js';
import type { SchedRoute } from '../access.js';
import { schedNotFound } from '../http.js';
import { T } from '../state.js';

/** Routes of this file. */
export const nodeVolumeRoutes: readonly SchedRoute[] = [
  {
    pattern: 'node/:id/volume/csi/:volume',
    synopsis: "Read a CSI volume claimed on a node, with its secrets, for that node's client (Cairn extension; the reference uses RPC)",
    methods: {
      /**
       * `{ID, Namespace, ExternalID, PluginID, MountOptions, Secrets, Context}` of volume
       * `:volume` in `?namespace=` (default `default`). @throws 404 `volume not found` when it
       * does not exist or no live claim of it is on node `:id`.
       */
      GET: {
        access: (ctx) => ({ secretOf: { node: ctx.params.id! } }),
        handle: async (ctx) => {
          const nodeId = ctx.params.id!;
          const ns = ctx.query.get('namespace') || 'default';
          const v = ctx.deps.state.get<StoredVolume>(T.csiVolumes, volumeKey(ns, ctx.params.volume!));
          if (!v || !liveClaims(v).some((c) => c.NodeID === nodeId)) throw schedNotFound('volume not found');
          return {
            body: {
              ID: v.ID,
              Namespace: v.Namespace,
              ExternalID: v.ExternalID,
              PluginID: v.PluginID,
              MountOptions: v.MountOptions,
              Secrets: v.Secrets,
              Context: v.Context,
            },
            index: v.ModifyIndex,
          };
        },
      },
    },
  },
];
