/**
 * Test fixture for the scheduler's CSI endpoints: real hostpath CSI plugins (kernel
 * `startHostpathPlugin`) on unix sockets in a temp dir, an agent whose `plugin` blocks name
 * them (monolith endpoints serving one registered scheduler node, ready for placements) and
 * whose plugin clients record the secrets they send (optionally logging to a given logger),
 * and small callers, among them jobs whose group claims CSI volumes (`placeWith`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  csiClient,
  startHostpathPlugin,
  type ControllerCapability,
  type CsiClient,
  type CsiFullClient,
  type HostpathPlugin,
} from '../../src/kernel/csi/index.js';
import type { Logger } from '../../src/kernel/log/logger.js';
import type { CsiPluginConfig } from '../../src/services/sched/config.js';
import type { Evaluation } from '../../src/services/sched/jobs/types.js';
import { call, ROOT, startAgent, type Reply, type TestAgent } from './helpers.js';
import { allocsOf, group, job, putJob, settled, type AllocView } from './workloads.js';

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
  /** The scheduler node every plugin serves: registered `ready` with 8000 MHz, 16 GiB and `raw_exec`, secret {@link NODE_SECRET}. */
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

/** The `SecretID` of the fixture's node: what its client would report allocation statuses with. */
const NODE_SECRET = 'node-secret';

/**
 * Starts `plugins` (monolith hostpath endpoints, each with its own root) and an agent that
 * probes them every `probeMs` (default 100 ms), then registers the node they serve (ready for
 * placements, see {@link CsiFixture.nodeId}; no client runs there, so its allocations stay
 * `pending` until a test reports for them, and its heartbeat TTL is an hour so it never goes
 * `down` meanwhile) and waits for a probe round so its CSI maps are written.
 */
export async function startCsi(plugins: readonly PluginSpec[], o: { probeMs?: number; log?: Logger } = {}): Promise<CsiFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'csi-'));
  const nodeId = randomUUID();
  const running = new Map<string, HostpathPlugin>();
  const clients: CsiFullClient[] = [];
  const socket = (id: string) => join(dir, `${id}.sock`);
  const csiNode = (id: string) => `hp-${id}-node`;
  const start = async (s: PluginSpec) => {
    running.set(
      s.id,
      await startHostpathPlugin({
        socket: socket(s.id),
        root: join(dir, `root-${s.shareRoot ?? s.id}`),
        nodeId: csiNode(s.id),
        capabilities: s.capabilities,
        maxVolumesPerNode: s.maxVolumesPerNode,
      }),
    );
  };
  for (const s of plugins) await start(s);
  const config: CsiPluginConfig[] = plugins.map((s) => ({ id: s.id, socket: socket(s.id), type: 'monolith', nodeId }));
  const sent: CsiFixture['sent'] = [];
  const agent = await startAgent(
    { plugins: config, pluginProbeIntervalMs: o.probeMs ?? 100, heartbeatTtlMs: 3_600_000 },
    { csiConnect: (path) => recording(csiClient(path), sent), log: o.log },
  );
  const req: CsiFixture['req'] = (method, path, r = {}) =>
    call(agent.url, method, path, { token: r.token === null ? undefined : (r.token ?? ROOT), body: r.body, headers: r.headers });
  const reg = await req('PUT', '/v1/node/register', {
    body: {
      Node: {
        ID: nodeId,
        SecretID: NODE_SECRET,
        Datacenter: 'dc1',
        Name: 'csi-node',
        Status: 'ready',
        Attributes: { 'os.name': 'linux', 'driver.raw_exec': '1' },
        NodeResources: { Cpu: { CpuShares: 8000 }, Memory: { MemoryMB: 16384 } },
      },
    },
  });
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
        const secrets =
          at !== undefined ? args[at] : (args.find((a) => typeof a === 'object' && a !== null && 'secrets' in a) as { secrets?: unknown } | undefined)?.secrets;
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

/** Creates volume `id` of `plugin` through `PUT /v1/volume/csi/:id/create` (`over` merged into the body, `query` appended) and asserts 200. */
export async function createVolume(
  f: CsiFixture,
  id: string,
  plugin: string,
  { over = {}, query = '' }: { over?: Record<string, unknown>; query?: string } = {},
): Promise<Reply> {
  const r = await f.req('PUT', `/v1/volume/csi/${id}/create${query}`, { body: volumeBody(id, plugin, over) });
  assert.equal(r.status, 200, r.text);
  return r;
}

/** What {@link placeWith} left. */
export interface Placement {
  /** The job registered. */
  readonly jobId: string;
  /** The register's evaluation, finished. */
  readonly evaluation: Evaluation;
  /** The job's allocations as `GET /v1/allocation/:id` shows them, in index order ([] when none was placed). */
  readonly allocs: AllocView[];
  /**
   * Why the group could not be placed: the keys of its `FailedTGAllocs` `ConstraintFiltered`,
   * such as `volume "db": volume max claims reached` (the claim refusals of
   * src/services/sched/csi/alloc-claims.ts without their `alloc "<id>" failed to claim ` prefix); [] when none.
   */
  readonly refused: string[];
}

/**
 * Registers a job (`o.job`, default a fresh `csi-<8 hex>` ID; `o.type`, default `batch`, so
 * an allocation reported `complete` stays and counts) of one group `group` of `o.count`
 * (default 1) allocations, one `raw_exec` task of 10 MHz and 10 MiB, whose group `Volumes`
 * are `volumes` (name → request fields over `{Type: csi, Source: <name>, AccessMode:
 * single-node-writer, AttachmentMode: file-system}`), and no reschedules (a `failed`
 * allocation stays failed). Waits for the register's evaluation. When something could not be
 * placed the job is purged (its placed allocations stop and release their claims) and the
 * purge's evaluation waited for, so its blocked evaluation never places it later; `o.keep`
 * leaves it registered and blocked instead. A claim refused only at the plan's write (a
 * controller's failed publish) leaves `refused` empty and the evaluation's `BlockedEval` set.
 */
export async function placeWith(
  f: CsiFixture,
  volumes: Record<string, Record<string, unknown>>,
  o: { job?: string; type?: 'batch' | 'service'; count?: number; keep?: boolean } = {},
): Promise<Placement> {
  const jobId = o.job ?? `csi-${randomUUID().slice(0, 8)}`;
  const requests = Object.fromEntries(
    Object.entries(volumes).map(([name, v]) => [
      name,
      {
        Name: name,
        Type: 'csi',
        Source: name,
        ReadOnly: false,
        AccessMode: 'single-node-writer',
        AttachmentMode: 'file-system',
        MountOptions: null,
        PerAlloc: false,
        ...v,
      },
    ]),
  );
  const count = o.count ?? 1;
  const tg = group('group', count, {
    cpu: 10,
    memory: 10,
    over: {
      Volumes: requests as never,
      ReschedulePolicy: { Attempts: 0, Interval: 0, Delay: 0, DelayFunction: 'constant', MaxDelay: 0, Unlimited: false },
    },
  });
  const evaluation = await settled(f.agent, await putJob(f.agent, job(jobId, [tg], { Type: o.type ?? 'batch' })));
  const index = (a: AllocView) => Number(/\[(\d+)\]$/.exec(a.Name)?.[1] ?? 0);
  const allocs = (await allocsOf(f.url, jobId)).sort((a, b) => index(a) - index(b));
  const refused = Object.keys(evaluation.FailedTGAllocs?.group?.ConstraintFiltered ?? {});
  if (allocs.length < count && !o.keep) {
    const purge = await f.req('DELETE', `/v1/job/${jobId}?purge=true`);
    assert.equal(purge.status, 200, purge.text);
    await settled(f.agent, purge.json.EvalID);
  }
  return { jobId, evaluation, allocs, refused };
}

/** {@link placeWith} that asserts every allocation was placed and returns the first (index 0). */
export async function allocWith(f: CsiFixture, volumes: Record<string, Record<string, unknown>>, o: Parameters<typeof placeWith>[2] = {}): Promise<AllocView> {
  const p = await placeWith(f, volumes, o);
  assert.equal(p.allocs.length, o.count ?? 1, `placed ${p.allocs.length}; refused: ${JSON.stringify(p.refused)}`);
  return p.allocs[0]!;
}

/** {@link placeWith} that asserts nothing was placed (the job is purged) and returns the reasons (`refused`). */
export async function refusedWith(f: CsiFixture, volumes: Record<string, Record<string, unknown>>, o: Parameters<typeof placeWith>[2] = {}): Promise<string[]> {
  const p = await placeWith(f, volumes, o);
  assert.deepEqual(p.allocs, [], 'nothing placed');
  return p.refused;
}

/** Reports allocation `id` `status` (`running`, `complete`, `failed`, …) as the fixture node's client does: `client-status` with the node's secret; asserts 200. */
export async function report(f: CsiFixture, id: string, status: string): Promise<void> {
  const r = await f.req('POST', `/v1/allocation/${id}/client-status`, { token: NODE_SECRET, body: { ClientStatus: status } });
  assert.equal(r.status, 200, r.text);
}
