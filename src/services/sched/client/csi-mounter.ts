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
 * @module
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CsiFullClient } from '../../../kernel/csi/index.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { claimRequests } from '../csi/claims.js';
import { volumeCapability } from '../csi/controller.js';
import type { CsiPlugins } from '../csi/plugins.js';
import type { StoredVolume } from '../csi/volume.js';
import { T } from '../state.js';

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
  readonly volume: StoredVolume;
  readonly client: CsiFullClient;
  readonly target: string;
  readonly staging: string | undefined;
}

/** The mounter of an agent's client: its state (volumes), its CSI plugin registry and the node it is. */
export function csiMounter(o: { state: StateStore; plugins: CsiPlugins; nodeId: () => string; root: string; log: { warn(o: object, m: string): void } }): VolumeMounter {
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
        const vol = o.state.get<StoredVolume>(T.csiVolumes, r.key);
        if (!vol) throw new Error(`volume "${r.volumeId}": not found`);
        const node = o.plugins.nodeEndpoint(vol.PluginID, o.nodeId());
        if (!node) throw new Error(`volume "${vol.ID}": CSI plugin "${vol.PluginID}" has no healthy node endpoint on this node`);
        const client = node.client as CsiFullClient;
        const usage = `${r.mode === 'read' ? 'ro' : 'rw'}-${r.attachmentMode}-${r.accessMode}`;
        const capability = volumeCapability(r.accessMode, r.attachmentMode, vol.MountOptions);
        const volumeId = vol.ExternalID || vol.ID;
        let staging: string | undefined;
        if (node.stages) {
          staging = join(o.root, vol.PluginID, 'staging', vol.Namespace, vol.ID, usage);
          mkdirSync(staging, { recursive: true, mode: 0o700 });
          await client.nodeStageVolume({ volumeId, stagingTargetPath: staging, volumeCapability: capability, secrets: vol.Secrets ?? undefined, volumeContext: vol.Context ?? undefined });
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
