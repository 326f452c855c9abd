/**
 * The agent's CSI plugin registry (reference/sched.md §4.11, §4.12; issue 7 scope 1): one
 * client per configured `plugin "<id>"` endpoint, fingerprinted (GetPluginInfo,
 * GetPluginCapabilities, ControllerGetCapabilities for controllers, NodeGetInfo and
 * NodeGetCapabilities for nodes, Probe) at start and then every `intervalMs`, and a
 * `csi-plugins` row per plugin ID built from the answers (plugin-doc.ts). The row and the
 * `CSIControllerPlugins` / `CSINodePlugins` maps of the registered nodes the endpoints serve
 * are written only when something changed, in a write labelled `NodeRegistration` (the
 * reference's clients report plugins in their node registration, so its CSIPlugin events
 * carry that type: reference/sched.md §3.4). Rows of plugin IDs no longer configured are
 * deleted at start (label `NodeDeregistration`), unless client-only agents reported nodes of
 * them: the entries of nodes no endpoint here serves are theirs (csi/node-report.ts) and kept.
 *
 * On a client-only agent (`writes: false`) the registry only fingerprints its node plugins;
 * the client sends {@link CsiPlugins.reportedNodes} in its node registration, as the
 * reference's clients do.
 *
 * Routes reach a healthy controller's client through {@link CsiPlugins.controller}.
 *
 * Servers of one region sharing a state on PostgreSQL (`storage "postgresql"`): only the
 * leader drives the plugins (the agent starts the registry when it leads and stops it when
 * it steps down), because the rows and node maps are state writes and because volume
 * operations, which call the controllers, run on the leader (followers forward them). So
 * every server should configure the same `plugin` blocks: whichever leads then fingerprints
 * and serves them all. A follower's registry has no healthy endpoint.
 *
 * @module
 */
import { DEFAULT_CSI_CALL_TIMEOUT_MS, type CsiClient } from '../../../kernel/csi/index.js';
import type { Logger } from '../../../kernel/log/logger.js';
import type { Indexed, StateStore, Txn } from '../../../kernel/store/index.js';
import { formatTime } from '../../../kernel/util/duration.js';
import type { CsiPluginConfig } from '../config.js';
import { LABEL, T, type NodeDoc } from '../state.js';
import { controllerInfo, csiInfo, pluginDoc, type ControllerInfoDoc, type CsiInfoDoc, type CsiPluginDoc, type Fingerprint } from './plugin-doc.js';

/** Default probe period: 10 s. */
const DEFAULT_PLUGIN_PROBE_INTERVAL_MS = 10_000;
/** Longest a fingerprint of one endpoint may take before the endpoint counts as unhealthy: 5 s. */
const PLUGIN_FINGERPRINT_TIMEOUT_MS = 5_000;

/** Options of {@link CsiPlugins}. */
export interface CsiPluginsOptions {
  readonly state: StateStore;
  readonly plugins: readonly CsiPluginConfig[];
  /** Opens a client on a plugin socket (kernel `csiClient`). */
  readonly connect: (socket: string) => CsiClient;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Node key of endpoints without `node_id` (the agent's name). */
  readonly defaultNodeId: string;
  /** Probe period in ms; default {@link DEFAULT_PLUGIN_PROBE_INTERVAL_MS}. */
  readonly intervalMs?: number;
  /**
   * False on a client-only agent: rounds only fingerprint (no state writes); the client
   * reports its node endpoints in its node registration ({@link CsiPlugins.reportedNodes}),
   * and the servers write them (csi/node-report.ts). Default true.
   */
  readonly writes?: boolean;
}

/** A healthy controller endpoint of a plugin: its client and capabilities. */
export interface ControllerHandle {
  readonly client: CsiClient;
  readonly info: ControllerInfoDoc;
}

/** One configured endpoint and what its last fingerprint found. */
interface Endpoint {
  readonly config: CsiPluginConfig;
  /** Scheduler node ID it serves (`node_id`, else the agent's name). */
  readonly nodeKey: string;
  /** Replaced by a fresh one after a failed fingerprint, so a restarted plugin is found at the next round (not after the channel's reconnect backoff). */
  client: CsiClient;
  readonly controller: boolean;
  readonly node: boolean;
  /** Last successful fingerprint; kept while the endpoint is unreachable. */
  fingerprint?: Fingerprint;
  healthy: boolean;
  description: string;
}

const withoutIndexes = (d: object): string => {
  const { CreateIndex: _c, ModifyIndex: _m, ...rest } = d as Indexed & Record<string, unknown>;
  return JSON.stringify(rest);
};

/** See the module doc. `start()` (again after `stop()`, on a new leader), `close()` at the end. */
export class CsiPlugins {
  private readonly endpoints: Endpoint[];
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Between start() and stop(): rounds run and write. */
  private active = false;
  /** Bumped by every start(), so a round of an earlier start does not schedule the next. */
  private generation = 0;
  /** Replaced clients, each closed once its calls' deadline has passed (or at close). */
  private readonly retired = new Map<CsiClient, NodeJS.Timeout>();
  /** The agent's logger (plugin health changes; claim bookkeeping failures). */
  readonly log: Logger;

  constructor(private readonly o: CsiPluginsOptions) {
    this.log = o.log;
    this.intervalMs = o.intervalMs ?? DEFAULT_PLUGIN_PROBE_INTERVAL_MS;
    this.endpoints = o.plugins.map((config) => ({
      config,
      nodeKey: config.nodeId ?? o.defaultNodeId,
      client: o.connect(config.socket),
      controller: config.type !== 'node',
      node: config.type !== 'controller',
      healthy: false,
      description: 'not fingerprinted yet',
    }));
  }

  /**
   * Fingerprints every endpoint once, writes the rows (and removes those of unconfigured IDs),
   * then probes every interval until {@link stop}. No-op when started or closed.
   */
  async start(): Promise<void> {
    if (this.active || this.closed) return;
    this.active = true;
    const generation = ++this.generation;
    await this.round(true);
    this.schedule(generation);
  }

  /**
   * Stops probing and waits for a round in progress; every endpoint counts as unhealthy
   * until the next {@link start} (a server that stepped down drives no plugin).
   */
  async stop(): Promise<void> {
    this.active = false;
    clearTimeout(this.timer);
    await this.running;
    for (const e of this.endpoints) {
      e.healthy = false;
      e.description = 'not driven by this server (it is not the leader)';
    }
  }

  /** Runs one probe round now (after the one in progress, if any) and resolves when its rows are written. */
  probeNow(): Promise<void> {
    return this.round(false);
  }

  /** A healthy controller endpoint of plugin `id` with its capabilities, or undefined. */
  controller(id: string): ControllerHandle | undefined {
    const e = this.endpoints.find((x) => x.config.id === id && x.controller && x.healthy && x.fingerprint?.controller);
    return e && { client: e.client, info: controllerInfo(e.fingerprint!.controller!) };
  }

  /**
   * A healthy node endpoint of plugin `id` serving scheduler node `nodeKey`: its client and
   * whether it stages volumes (`STAGE_UNSTAGE_VOLUME`); undefined when there is none (the
   * client agent's volume mounts, client/csi-mounter.ts).
   */
  nodeEndpoint(id: string, nodeKey: string): { client: CsiClient; stages: boolean } | undefined {
    const e = this.endpoints.find((x) => x.config.id === id && x.node && x.nodeKey === nodeKey && x.healthy && x.fingerprint?.node);
    return e && { client: e.client, stages: e.fingerprint!.node!.capabilities.includes('STAGE_UNSTAGE_VOLUME') };
  }

  /** Does a configured endpoint of this registry serve scheduler node `nodeKey`? (Then this registry, not the node's registration, writes its plugin entries.) */
  servesNode(nodeKey: string): boolean {
    return this.endpoints.some((e) => e.nodeKey === nodeKey);
  }

  /**
   * The `CSINodePlugins` a client-only agent reports for node `nodeKey` (the reference's
   * `structs.CSIInfo` per plugin ID; `UpdateTime` empty: the servers stamp it): one entry per
   * node or monolith endpoint, from its last fingerprint and health.
   */
  reportedNodes(nodeKey: string): Record<string, CsiInfoDoc> {
    const out: Record<string, CsiInfoDoc> = {};
    for (const e of this.endpoints) {
      if (!e.node || e.nodeKey !== nodeKey) continue;
      out[e.config.id] = csiInfo({ pluginId: e.config.id, role: 'node', fingerprint: e.fingerprint, healthy: e.healthy, description: e.description });
    }
    return out;
  }

  /** Stops probing, waits for a round in progress, closes every client. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
    for (const e of this.endpoints) e.client.close();
    for (const [c, t] of this.retired) {
      clearTimeout(t);
      c.close();
    }
    this.retired.clear();
  }

  private schedule(generation: number): void {
    if (!this.active || generation !== this.generation) return;
    this.timer = setTimeout(() => {
      void this.round(false).finally(() => this.schedule(generation));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Runs a round after the one in progress (rounds never overlap). */
  private round(first: boolean): Promise<void> {
    // Never rejects: a failed round is logged, and later rounds still run.
    const run = async () => {
      // Stopped (stepped down, closing) before this round ran: it would write as a follower.
      if (!this.active) return;
      try {
        await Promise.all(this.endpoints.map((e) => this.fingerprint(e)));
        if (this.o.writes !== false) await this.write(first);
      } catch (err) {
        this.o.log.error({ err }, 'CSI plugins: a probe round failed');
      }
    };
    const next = (this.running ?? Promise.resolve()).then(run);
    this.running = next;
    return next;
  }

  /**
   * Asks endpoint `e` everything a fingerprint needs; a failure or a timeout makes it
   * unhealthy, keeping the last good answers, and gives it a new client.
   */
  private async fingerprint(e: Endpoint): Promise<void> {
    const c = e.client;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PLUGIN_FINGERPRINT_TIMEOUT_MS} ms`)), PLUGIN_FINGERPRINT_TIMEOUT_MS);
    });
    try {
      const asked = (async () => {
        const info = await c.getPluginInfo();
        const capabilities = await c.getPluginCapabilities();
        const controller = e.controller ? await c.controllerGetCapabilities() : undefined;
        const node = e.node ? { info: await c.nodeGetInfo(), capabilities: await c.nodeGetCapabilities() } : undefined;
        const ready = await c.probe();
        return { fingerprint: { info, capabilities, controller, node }, ready };
      })();
      const { fingerprint, ready } = await Promise.race([asked, timeout]);
      e.fingerprint = fingerprint;
      e.healthy = ready;
      e.description = ready ? 'healthy' : 'plugin not ready';
    } catch (err) {
      if (e.healthy) this.o.log.warn({ plugin: e.config.id, socket: e.config.socket, err }, 'CSI plugin became unhealthy');
      e.healthy = false;
      e.description = `plugin unreachable: ${(err as Error).message}`;
      // Calls a request started on the old client (a CreateVolume, say) may still finish:
      // close it only once their deadline has passed, so the plugin's answer is not lost.
      this.retired.set(
        c,
        setTimeout(() => {
          this.retired.delete(c);
          c.close();
        }, DEFAULT_CSI_CALL_TIMEOUT_MS + 1000).unref(),
      );
      e.client = this.o.connect(e.config.socket);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Writes the plugin rows and node maps that differ from the stored ones, in one write. */
  private async write(first: boolean): Promise<void> {
    const nowIso = formatTime(new Date(this.o.now()));
    const ids = [...new Set(this.endpoints.map((e) => e.config.id))];
    const local = new Set(this.endpoints.map((e) => e.nodeKey));
    // Node entries a client-only agent reported in its registration (csi/node-report.ts): of a
    // node no endpoint here serves, whose registration reported the plugin.
    const reported = (tx: Txn, id: string, m: Readonly<Record<string, CsiInfoDoc>> | undefined) =>
      Object.fromEntries(
        Object.entries(m ?? {}).filter(([k]) => {
          const node = local.has(k) ? undefined : tx.get<NodeDoc>(T.nodes, k);
          return node?.CSIReported === true && node.CSINodePlugins?.[id] !== undefined;
        }),
      );
    await this.o.state.txn((tx) => {
      const entries = new Map<string, { controllers: Record<string, CsiInfoDoc>; nodes: Record<string, CsiInfoDoc> }>();
      for (const id of ids) {
        const old = tx.get<CsiPluginDoc>(T.csiPlugins, id);
        const controllers: Record<string, CsiInfoDoc> = {};
        const nodes: Record<string, CsiInfoDoc> = reported(tx, id, old?.Nodes);
        for (const e of this.endpoints.filter((x) => x.config.id === id)) {
          const info = (role: 'controller' | 'node', was: CsiInfoDoc | undefined) =>
            stamped(csiInfo({ pluginId: id, role, fingerprint: e.fingerprint, healthy: e.healthy, description: e.description }), was, nowIso);
          if (e.controller) controllers[e.nodeKey] = info('controller', old?.Controllers[e.nodeKey]);
          if (e.node) nodes[e.nodeKey] = info('node', old?.Nodes[e.nodeKey]);
        }
        entries.set(id, { controllers, nodes });
        const doc = pluginDoc(id, controllers, nodes);
        if (!old || withoutIndexes(old) !== JSON.stringify(doc)) tx.put<CsiPluginDoc>(T.csiPlugins, id, doc);
      }
      this.writeNodes(tx, entries);
    }, LABEL.nodeRegister);
    if (!first) return;
    await this.o.state.txn((tx) => {
      for (const p of tx.list<CsiPluginDoc>(T.csiPlugins)) {
        if (ids.includes(p.ID)) continue;
        // A plugin only client-only agents report keeps their entries.
        const nodes = reported(tx, p.ID, p.Nodes);
        if (Object.keys(nodes).length === 0) tx.delete(T.csiPlugins, p.ID);
        else if (Object.keys(p.Controllers).length > 0 || Object.keys(nodes).length !== Object.keys(p.Nodes).length)
          tx.put<CsiPluginDoc>(T.csiPlugins, p.ID, pluginDoc(p.ID, {}, nodes));
      }
    }, LABEL.nodeDeregister);
  }

  /** Sets each served, registered node's `CSIControllerPlugins` / `CSINodePlugins[<plugin ID>]` where it differs. */
  private writeNodes(tx: Txn, entries: Map<string, { controllers: Record<string, CsiInfoDoc>; nodes: Record<string, CsiInfoDoc> }>): void {
    for (const key of new Set(this.endpoints.map((e) => e.nodeKey))) {
      const node = tx.get<NodeDoc>(T.nodes, key);
      if (!node) continue;
      const controllers: Record<string, unknown> = { ...node.CSIControllerPlugins };
      const nodes: Record<string, unknown> = { ...node.CSINodePlugins };
      for (const [id, e] of entries) {
        if (e.controllers[key]) controllers[id] = e.controllers[key];
        if (e.nodes[key]) nodes[id] = e.nodes[key];
      }
      const c = Object.keys(controllers).length > 0 ? controllers : null;
      const n = Object.keys(nodes).length > 0 ? nodes : null;
      if (JSON.stringify(c) !== JSON.stringify(node.CSIControllerPlugins ?? null) || JSON.stringify(n) !== JSON.stringify(node.CSINodePlugins ?? null)) {
        tx.put<NodeDoc>(T.nodes, key, { ...node, CSIControllerPlugins: c, CSINodePlugins: n });
      }
    }
  }
}

/** `info` with the stored `was.UpdateTime` when nothing else changed, else stamped `nowIso`. */
function stamped(info: CsiInfoDoc, was: CsiInfoDoc | undefined, nowIso: string): CsiInfoDoc {
  if (was && JSON.stringify({ ...was, UpdateTime: '' }) === JSON.stringify(info)) return was;
  return { ...info, UpdateTime: nowIso };
}
