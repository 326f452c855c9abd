/**
 * CSI volumes on the client (reference/sched-workloads.md "Client agent"; issue 19 scope 4):
 * before an allocation that claims CSI volumes starts its tasks, each volume is staged
 * (`NodeStageVolume` under `<state_dir>/csi/<plugin>/staging/…`, only when the node plugin
 * has `STAGE_UNSTAGE_VOLUME`) and published (`NodePublishVolume` to the per-allocation
 * target `<state_dir>/csi/<plugin>/per-alloc/<alloc id>/<volume>/…`) through the plugin's
 * node service on this node; the task runner then links the target at each task's
 * `VolumeMount.Destination` (alloc-runner.ts). When the allocation's tasks are done it is
 * unpublished, and unstaged once no other allocation of this client uses the volume. The
 * claims themselves are taken and released by the servers, as before.
 *
 * Where the volume and the node plugin come from is the caller's ({@link MountSources}): a
 * client beside a server reads the volume from the agent's state and the node endpoint from
 * its plugin registry ({@link localSources}); a client-only agent reads the volume from the
 * servers over HTTP with its node secret and uses its own node plugins (agent.ts).
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CsiClient, CsiFullClient } from '../../../kernel/csi/index.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { claimRequests } from '../csi/claims.js';
import { volumeCapability } from '../csi/controller.js';
import type { CsiPlugins } from '../csi/plugins.js';
import { volumeKey, type StoredVolume } from '../csi/volume.js';
import { T } from '../state.js';
import { ServerError } from './server-api.js';

/** What the alloc runner asks of the volume mounts. */
export interface VolumeMounter {
  /**
   * Stages and publishes the CSI volumes of `alloc` (its `Volumes`: name → request) and
   * returns each request name's published path. @throws {Error} naming the volume when it is
   * unknown, its plugin has no healthy node endpoint here, or a plugin call fails.
   */
  mount(alloc: { ID: string; Namespace: string; Name: string; Volumes: Readonly<Record<string, unknown>> | null }): Promise<Record<string, string>>;
  /** Unpublishes what {@link mount} published for `allocId`, and unstages volumes no other allocation here uses; failures are logged. */
  unmount(allocId: string): Promise<void>;
}

/** One published volume of an allocation. */
interface Published {
  readonly volume: Pick<StoredVolume, 'ID' | 'ExternalID'>;
  readonly client: CsiFullClient;
  readonly target: string;
  readonly staging: string | undefined;
}

/** Where the mounter finds a volume and the node plugin to stage it with. */
export interface MountSources {
  /** The volume `id` of namespace `ns` (what mounting needs: IDs, plugin, mount options, secrets, context); undefined when unknown. @throws when it cannot be read. */
  volume(
    ns: string,
    id: string,
  ): Promise<Pick<StoredVolume, 'ID' | 'Namespace' | 'ExternalID' | 'PluginID' | 'MountOptions' | 'Secrets' | 'Context'> | undefined>;
  /** A healthy node endpoint of plugin `pluginId` on this client's node: its client and whether it stages; undefined when there is none. */
  nodeEndpoint(pluginId: string): { client: CsiClient; stages: boolean } | undefined;
}

/** The sources of a client beside a server: the agent's state and CSI plugin registry, for the client's node `nodeId()`. */
export function localSources(state: StateStore, plugins: CsiPlugins, nodeId: () => string): MountSources {
  return {
    volume: async (ns, id) => state.get<StoredVolume>(T.csiVolumes, volumeKey(ns, id)),
    nodeEndpoint: (pluginId) => plugins.nodeEndpoint(pluginId, nodeId()),
  };
}

/**
 * What {@link remoteSources} needs of the client (client.ts `SchedClient` has it): its node's ID
 * and a call to the servers with the node secret. Named here, not imported, so that the
 * client and its mounter do not import each other.
 */
export interface NodeServerCaller {
  readonly nodeId: string;
  callServers<T>(method: string, path: string): Promise<T>;
}

/**
 * The sources of a client-only agent: volumes read from the servers with the node secret
 * (`GET /v1/node/<node>/volume/csi/<id>`, routes/node-volumes.ts; 404: unknown or not claimed
 * here), node endpoints from the agent's own plugin registry (its `plugin` blocks).
 */
export function remoteSources(client: NodeServerCaller, plugins: CsiPlugins): MountSources {
  return {
    volume: async (ns, id) => {
      try {
        return await client.callServers<StoredVolume>(
          'GET',
          `/v1/node/${client.nodeId}/volume/csi/${encodeURIComponent(id)}?namespace=${encodeURIComponent(ns)}`,
        );
      } catch (err) {
        if (err instanceof ServerError && err.status === 404) return undefined;
        throw err;
      }
    },
    nodeEndpoint: (pluginId) => plugins.nodeEndpoint(pluginId, client.nodeId),
  };
}

/** The mounter of an agent's client: where volumes and node plugins are found, and the directory of the mounts. */
export function csiMounter(o: { sources: MountSources; root: string; log: { warn(o: object, m: string): void } }): VolumeMounter {
  const byAlloc = new Map<string, Published[]>();
  /** Allocations of this client using each staged path. */
  const stagedBy = new Map<string, Set<string>>();
  return {
    async mount(alloc) {
      const paths: Record<string, string> = {};
      const requests = claimRequests(alloc);
      if (requests.length === 0) return paths;
      const done: Published[] = [];
      byAlloc.set(alloc.ID, done);
      const names = Object.entries((alloc.Volumes ?? {}) as Record<string, { Type: string; Source: string; PerAlloc: boolean }>);
      for (const r of requests) {
        const vol = await o.sources.volume(alloc.Namespace, r.volumeId);
        if (!vol) throw new Error(`volume "${r.volumeId}": not found`);
        const node = o.sources.nodeEndpoint(vol.PluginID);
        if (!node) throw new Error(`volume "${vol.ID}": CSI plugin "${vol.PluginID}" has no healthy node endpoint on this node`);
        const client = node.client as CsiFullClient;
        const usage = `${r.mode === 'read' ? 'ro' : 'rw'}-${r.attachmentMode}-${r.accessMode}`;
        const capability = volumeCapability(r.accessMode, r.attachmentMode, vol.MountOptions);
        const volumeId = vol.ExternalID || vol.ID;
        let staging: string | undefined;
        if (node.stages) {
          staging = join(o.root, vol.PluginID, 'staging', vol.Namespace, vol.ID, usage);
          mkdirSync(staging, { recursive: true, mode: 0o700 });
          await client.nodeStageVolume({
            volumeId,
            stagingTargetPath: staging,
            volumeCapability: capability,
            secrets: vol.Secrets ?? undefined,
            volumeContext: vol.Context ?? undefined,
          });
          let users = stagedBy.get(staging);
          if (!users) stagedBy.set(staging, (users = new Set()));
          users.add(alloc.ID);
        }
        const target = join(o.root, vol.PluginID, 'per-alloc', alloc.ID, vol.ID, usage);
        mkdirSync(join(target, '..'), { recursive: true, mode: 0o700 });
        await client.nodePublishVolume({
          volumeId,
          targetPath: target,
          volumeCapability: capability,
          readonly: r.mode === 'read',
          stagingTargetPath: staging,
          secrets: vol.Secrets ?? undefined,
          volumeContext: vol.Context ?? undefined,
        });
        done.push({ volume: vol, client, target, staging });
        for (const [name, req] of names) {
          const id = req.PerAlloc ? `${req.Source}[${/\[(\d+)\]$/.exec(alloc.Name)?.[1] ?? '0'}]` : req.Source;
          if (req.Type === 'csi' && id === r.volumeId) paths[name] = target;
        }
      }
      return paths;
    },
    async unmount(allocId) {
      const done = byAlloc.get(allocId) ?? [];
      byAlloc.delete(allocId);
      for (const p of done) {
        const volumeId = p.volume.ExternalID || p.volume.ID;
        try {
          await p.client.nodeUnpublishVolume(volumeId, p.target);
          if (p.staging === undefined) continue;
          const users = stagedBy.get(p.staging);
          users?.delete(allocId);
          if (users && users.size > 0) continue;
          stagedBy.delete(p.staging);
          await p.client.nodeUnstageVolume(volumeId, p.staging);
        } catch (err) {
          o.log.warn({ alloc: allocId, volume: p.volume.ID, err: (err as Error).message }, 'client: CSI unpublish/unstage failed');
        }
      }
    },
  };
}
