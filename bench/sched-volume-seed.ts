/**
 * The scheduler volume bench's server-side helpers, run inside the server process
 * (bench/child.ts `sched`): a hostpath CSI plugin beside the agent, volume rows written
 * straight into the agent's state in batches (so 100,000 volumes exist without 100,000 plugin
 * calls), and volumes made in the plugin for register runs.
 */
import { csiClient, startHostpathPlugin, type HostpathPlugin } from '../src/kernel/csi/index.js';
import type { SchedAgent } from '../src/services/sched/agent.js';
import type { CsiPluginConfig } from '../src/services/sched/config.js';
import type { CsiVolumeDoc } from '../src/services/sched/csi/volume.js';
import { LABEL, T } from '../src/services/sched/state.js';

/** ID of the bench's CSI plugin. */
const BENCH_PLUGIN_ID = 'hostpath';

/** The scheduler node the bench's plugin serves (registered by {@link registerBenchNode}). */
const BENCH_NODE_ID = '0be0c400-0000-4000-8000-000000000001';

/** Zero-padded so that ID order is numeric order: `bench-vol-000042`. */
export const seededVolumeId = (i: number): string => `bench-vol-${String(i).padStart(6, '0')}`;

/** Tier of seeded volume `i`: every 4th is `gold` (the filter the bench lists by selects 25 %). */
const seededTier = (i: number): string => (i % 4 === 0 ? 'gold' : i % 4 === 1 ? 'silver' : 'bronze');

/** A started plugin and the `plugin` block the agent needs for it. */
export interface BenchPlugin {
  readonly plugin: HostpathPlugin;
  readonly config: CsiPluginConfig;
}

/** Starts a hostpath plugin (monolith, default capabilities) on `socket` with its volumes under `root`. */
export async function startBenchPlugin(socket: string, root: string): Promise<BenchPlugin> {
  const plugin = await startHostpathPlugin({ socket, root, nodeId: 'bench-csi-node' });
  return { plugin, config: { id: BENCH_PLUGIN_ID, socket, type: 'monolith', nodeId: BENCH_NODE_ID } };
}

/**
 * Registers {@link BENCH_NODE_ID} through `PUT /v1/node/register` with `token` and runs a
 * plugin probe round, so the plugin is healthy with one controller and one node.
 * @throws Error `bench node registration: HTTP <status>: <text>`.
 */
export async function registerBenchNode(agent: SchedAgent, token: string): Promise<void> {
  const res = await fetch(`${agent.url}/v1/node/register`, {
    method: 'PUT',
    headers: { 'X-Sched-Token': token, 'content-type': 'application/json' },
    body: JSON.stringify({
      Node: { ID: BENCH_NODE_ID, SecretID: BENCH_NODE_ID, Datacenter: 'dc1', Name: 'bench', Status: 'ready', Attributes: { 'kernel.name': 'linux' } },
    }),
  });
  if (res.status !== 200) throw new Error(`bench node registration: HTTP ${res.status}: ${await res.text()}`);
  await agent.plugins.probeNow();
}

/** A stored volume row as register would write it for seeded volume `i` (plugin health fields from the bench plugin). */
function volumeDoc(i: number, nowNs: number): CsiVolumeDoc {
  const id = seededVolumeId(i);
  return {
    ID: id,
    Name: id,
    ExternalID: `ext-${id}`,
    Namespace: 'default',
    PluginID: BENCH_PLUGIN_ID,
    Provider: 'hostpath.csi.cairn.dev',
    ProviderVersion: '0.1.0',
    ControllerRequired: true,
    Topologies: [{ 'topology.cairn.dev/node': 'bench-csi-node' }],
    RequestedTopologies: null,
    AccessMode: '',
    AttachmentMode: '',
    MountOptions: { FsType: 'ext4', MountFlags: null },
    Secrets: null,
    Parameters: { tier: seededTier(i), team: `team-${i % 50}` },
    Context: null,
    Capacity: 1 << 30,
    RequestedCapacityMin: 1 << 30,
    RequestedCapacityMax: 0,
    RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }],
    CloneID: '',
    SnapshotID: '',
    ReadClaims: {},
    WriteClaims: {},
    PastClaims: {},
    CreateTime: nowNs,
    ModifyTime: nowNs,
  };
}

/** What {@link seedVolumes} did. */
export interface SeedResult {
  readonly volumes: number;
  readonly batches: number;
  /** Wall time of all the writes, in ms. */
  readonly elapsedMs: number;
}

/**
 * Writes `count` volume rows ({@link seededVolumeId} 0 … count−1, namespace `default`, plugin
 * {@link BENCH_PLUGIN_ID}) into the agent's state, `batch` per transaction (label
 * `CSIVolumeRegistered`, as register writes them), one transaction after the other.
 */
export async function seedVolumes(agent: SchedAgent, count: number, batch: number): Promise<SeedResult> {
  const start = performance.now();
  const nowNs = Date.now() * 1e6;
  let batches = 0;
  for (let from = 0; from < count; from += batch) {
    const to = Math.min(count, from + batch);
    await agent.state.txn((tx) => {
      for (let i = from; i < to; i++) tx.put(T.csiVolumes, `default.${seededVolumeId(i)}`, volumeDoc(i, nowNs));
    }, LABEL.csiVolumeRegister);
    batches++;
  }
  return { volumes: count, batches, elapsedMs: performance.now() - start };
}

/**
 * Makes `count` volumes in the plugin on `socket` (`CreateVolume`, names `bench-ext-<i>`,
 * 16 at a time) and resolves with their external IDs, in order.
 */
export async function makePluginVolumes(socket: string, count: number): Promise<string[]> {
  const client = csiClient(socket);
  try {
    const ids: string[] = new Array(count);
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const v = await client.createVolume({
          name: `bench-ext-${i}`,
          volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER', accessType: { mount: { fsType: '', mountFlags: [] } } }],
        });
        ids[i] = v.volumeId;
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, count) }, worker));
    return ids;
  } finally {
    client.close();
  }
}
