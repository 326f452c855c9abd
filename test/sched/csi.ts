/**
 * Test fixture for the scheduler's CSI endpoints: real hostpath CSI plugins (kernel
 * `startHostpathPlugin`) on unix sockets in a temp dir, an agent whose `plugin` blocks name
 * them (monolith endpoints serving one registered scheduler node) and whose plugin clients
 * record the secrets they send (optionally logging to a given logger), and small callers.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csiClient, startHostpathPlugin, type ControllerCapability, type CsiClient, type CsiFullClient, type HostpathPlugin } from '../../src/kernel/csi/index.js';
import type { Logger } from '../../src/kernel/log/logger.js';
import type { CsiPluginConfig } from '../../src/services/sched/config.js';
import { call, ROOT, startAgent, type Reply, type TestAgent } from './helpers.js';

/**
 * One plugin to start: its ID, the controller capabilities it serves (default: the hostpath
 * defaults), and `shareRoot`: the ID of a plugin whose root (so whose volumes) it shares.
 */
export interface PluginSpec {
  readonly id: string;
  readonly capabilities?: readonly ControllerCapability[];
  readonly maxVolumesPerNode?: number;
  readonly shareRoot?: string;
}

/** A running fixture. */
export interface CsiFixture {
  readonly agent: TestAgent;
  readonly url: string;
  /** The scheduler node (registered) every plugin serves. */
  readonly nodeId: string;
  readonly dir: string;
  /** Running plugins by ID. */
  readonly plugins: Map<string, HostpathPlugin>;
  /** Socket path of plugin `id`. */
  socket(id: string): string;
  /** The plugin's own node ID of plugin `id` (its NodeGetInfo). */
  csiNode(id: string): string;
  /** A CSI client of plugin `id` (closed by `stop`). */
  client(id: string): CsiFullClient;
  /** Every plugin call the agent made that carried secrets, oldest first: the CSI method and the secrets sent. */
  readonly sent: { readonly method: string; readonly secrets: Readonly<Record<string, string>> }[];
  /** Restarts plugin `id` (stopped or not) with `spec`. */
  restart(spec: PluginSpec): Promise<void>;
  /** `method path` with the management token (or `token`; null: none), JSON `body`, extra `headers`. */
  req(method: string, path: string, o?: { body?: unknown; token?: string | null; headers?: Record<string, string> }): Promise<Reply>;
  stop(): Promise<void>;
}

/**
 * Starts `plugins` (monolith hostpath endpoints, each with its own root) and an agent that
 * probes them every `probeMs` (default 100 ms), then registers the node they serve and waits
 * for a probe round so its CSI maps are written.
 */
export async function startCsi(plugins: readonly PluginSpec[], o: { probeMs?: number; log?: Logger } = {}): Promise<CsiFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'csi-'));
  const nodeId = randomUUID();
  const running = new Map<string, HostpathPlugin>();
  const clients: CsiFullClient[] = [];
  const socket = (id: string) => join(dir, `${id}.sock`);
  const csiNode = (id: string) => `hp-${id}-node`;
  const start = async (s: PluginSpec) => {
    running.set(s.id, await startHostpathPlugin({ socket: socket(s.id), root: join(dir, `root-${s.shareRoot ?? s.id}`), nodeId: csiNode(s.id), capabilities: s.capabilities, maxVolumesPerNode: s.maxVolumesPerNode }));
  };
  for (const s of plugins) await start(s);
  const config: CsiPluginConfig[] = plugins.map((s) => ({ id: s.id, socket: socket(s.id), type: 'monolith', nodeId }));
  const sent: CsiFixture['sent'] = [];
  const agent = await startAgent({ plugins: config, pluginProbeIntervalMs: o.probeMs ?? 100 }, { csiConnect: (path) => recording(csiClient(path), sent), log: o.log });
  const req: CsiFixture['req'] = (method, path, r = {}) =>
    call(agent.url, method, path, { token: r.token === null ? undefined : (r.token ?? ROOT), body: r.body, headers: r.headers });
  const reg = await req('PUT', '/v1/node/register', { body: { Node: { ID: nodeId, SecretID: 'node-secret', Datacenter: 'dc1', Name: 'csi-node', Attributes: { 'os.name': 'linux' } } } });
  assert.equal(reg.status, 200, reg.text);
  await agent.plugins.probeNow();
  return {
    agent,
    url: agent.url,
    nodeId,
    dir,
    plugins: running,
    sent,
    socket,
    csiNode,
    client: (id) => {
      const c = csiClient(socket(id));
      clients.push(c);
      return c;
    },
    restart: async (s) => {
      await running.get(s.id)?.close();
      await start(s);
    },
    req,
    stop: async () => {
      for (const c of clients) c.close();
      await agent.stop();
      for (const p of running.values()) await p.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where each client method carries its secrets: an argument's `secrets` field, or the argument at this position. */
const SECRETS_AT: Readonly<Record<string, number>> = { deleteVolume: 1, deleteSnapshot: 1, controllerUnpublishVolume: 2 };

/** `client` (the real one) that also records the secrets of each call into `sent`. */
function recording(client: CsiClient, sent: CsiFixture['sent']): CsiClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const at = SECRETS_AT[String(prop)];
        const secrets = at !== undefined ? args[at] : (args.find((a) => typeof a === 'object' && a !== null && 'secrets' in a) as { secrets?: unknown } | undefined)?.secrets;
        if (secrets) sent.push({ method: String(prop), secrets: secrets as Record<string, string> });
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** A register body of one volume `id` of plugin `plugin` (extra fields from `over`). */
export function volumeBody(id: string, plugin: string, over: Record<string, unknown> = {}): { Volumes: Record<string, unknown>[] } {
  return {
    Volumes: [
      {
        ID: id,
        Name: id,
        PluginID: plugin,
        RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }],
        ...over,
      },
    ],
  };
}

/** Creates volume `id` through `PUT /v1/volume/csi/:id/create` and asserts 200. */
export async function createVolume(f: CsiFixture, id: string, plugin: string, over: Record<string, unknown> = {}, query = ''): Promise<Reply> {
  const r = await f.req('PUT', `/v1/volume/csi/${id}/create${query}`, { body: volumeBody(id, plugin, over) });
  assert.equal(r.status, 200, r.text);
  return r;
}

/** Creates an allocation on the fixture's node with CSI volume requests `volumes` (name → request); returns the reply. */
export function allocWith(f: CsiFixture, volumes: Record<string, Record<string, unknown>>, over: Record<string, unknown> = {}): Promise<Reply> {
  const requests = Object.fromEntries(Object.entries(volumes).map(([name, v]) => [name, { Type: 'csi', AccessMode: 'single-node-writer', AttachmentMode: 'file-system', ...v }]));
  return f.req('PUT', '/v1/allocation', { body: { Allocation: { NodeID: f.nodeId, JobID: 'job', TaskGroup: 'group', Volumes: requests, ...over } } });
}
