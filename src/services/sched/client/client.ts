/**
 * The client agent (reference/sched-workloads.md "Client agent"; issue 19 scope 3): it
 * fingerprints the host, registers the node (`PUT /v1/node/register`), heartbeats (`POST
 * /v1/node/:id/status`) at the TTL the servers answer, re-registers when they forgot the
 * node, watches the node's allocations with a blocking query (`GET
 * /v1/node/:id/allocations`), runs the new ones (alloc-runner.ts), stops those whose
 * `DesiredStatus` becomes `stop`/`evict`, and reports their `ClientStatus` and `TaskStates`
 * (`POST /v1/allocation/:id/client-status`). Every call after the registration carries the
 * node's `SecretID` as its token.
 *
 * On start it stops the task processes a previous run of the agent left (client-state.ts) and
 * runs the allocations that should still run again. On close it kills its tasks' processes
 * without reporting (the servers' view stays until it comes back, or the node's heartbeat TTL
 * runs out).
 *
 * @module
 */
import { rmSync } from 'node:fs';
import type { Logger } from '../../../kernel/log/logger.js';
import { clientTerminal } from '../alloc.js';
import { AllocRunner, type AllocReport, type ClientAlloc } from './alloc-runner.js';
import type { AllocTemplateOptions } from './alloc-task-hooks.js';
import { DEFAULT_CLIENT_TEMPLATE_CONFIG } from './template-config.js';
import { RestartPermits, type PermitReply } from './templates/restart-permit.js';
import { createTemplateSource } from './templates/sources/index.js';
import { loadNodeIdentity, TaskProcessFile, type NodeIdentity } from './client-state.js';
import type { ClientConfig } from './config.js';
import type { VolumeMounter } from './csi-mounter.js';
import { signalGroup } from './drivers.js';
import { fingerprint, type Fingerprint } from './fingerprint.js';
import type { NodeVars } from './interpolate.js';
import { ServerApi, ServerError } from './server-api.js';
import { advertisedHost } from './services/node-address.js';
import { ServiceRegistrar } from './services/discovery.js';
import { replacedElsewhere, type PreviousAlloc } from './services/replaced-alloc.js';
import { defaultDiscovery } from './config.js';
import type { SignedIdentity } from './identities.js';

/** Heartbeat TTL assumed while the servers answer none (`HeartbeatTTL` 0): the reference's 10 s minimum. */
const DEFAULT_HEARTBEAT_TTL_MS = 10_000;
/** Pause before retrying a failed call to the servers, in ms. */
const RETRY_MS = 1_000;
/** Period of the allocation status reports, in ms: the reference client's `allocSyncIntv`. */
const REPORT_BATCH_MS = 200;
/** Allocation status reports in flight at once (well under the servers' 100 connections per client address). */
const REPORT_CONCURRENCY = 8;
/** Blocking wait of the allocation watch. */
const WATCH_WAIT = '60s';

/** What the client is given. */
export interface SchedClientOptions {
  readonly config: ClientConfig;
  readonly nodeName: string;
  readonly datacenter: string;
  /** `host:port` this agent's HTTP API is reached at (the node's `HTTPAddr`; the default server). */
  readonly selfAddress: () => string;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Mounts allocations' CSI volumes (csi-mounter.ts), given the client; absent: none are mounted. */
  readonly mounter?: (client: SchedClient) => VolumeMounter;
  /**
   * A client-only agent's CSI node plugins as `CSINodePlugins` (csi/plugins.ts
   * `reportedNodes`), sent in every registration; the client registers again when they
   * change (checked at each heartbeat). Absent: the servers' own registry reports them.
   */
  readonly csiNodePlugins?: () => Record<string, unknown>;
}

/** `next`, carrying the `DeploymentStatus` of the report `prev` it replaces when it has none (the health is reported once). */
function withHealthOf(prev: AllocReport | undefined, next: AllocReport): AllocReport {
  return prev?.DeploymentStatus && !next.DeploymentStatus ? { ...next, DeploymentStatus: prev.DeploymentStatus } : next;
}

/** A running client. */
export class SchedClient {
  readonly identity: NodeIdentity;
  private readonly api: ServerApi;
  private readonly runners = new Map<string, AllocRunner>();
  private readonly processes: TaskProcessFile;
  private readonly stopping = new AbortController();
  private heartbeatMs = DEFAULT_HEARTBEAT_TTL_MS / 2;
  private loops: Promise<void>[] = [];
  /** Reports waiting to be sent, per allocation (the newest wins), their order, and which are in flight. */
  private readonly pending = new Map<string, AllocReport>();
  private readonly queue = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly sending = new Set<string>();
  private registered: Promise<void> | undefined;
  private readonly mounter: VolumeMounter | undefined;
  /** The `CSINodePlugins` of the last registration (JSON), to see when they change. */
  private reportedPlugins = '';
  /** Registers the allocations' services in the discovery agent (services/discovery.ts). */
  private readonly registrar: ServiceRegistrar;
  /** The node as its tasks' `${...}` see it (interpolate.ts): from the last fingerprint. */
  private nodeVars: NodeVars;

  constructor(private readonly o: SchedClientOptions) {
    this.identity = loadNodeIdentity(o.config.stateDir);
    this.processes = new TaskProcessFile(o.config.stateDir);
    this.api = new ServerApi(() => (o.config.servers.length > 0 ? o.config.servers : [o.selfAddress()]));
    this.mounter = o.mounter?.(this);
    this.registrar = new ServiceRegistrar({ settings: o.config.consul ?? defaultDiscovery(), nodeId: this.identity.ID, log: o.log });
    this.nodeVars = this.varsOf(fingerprint(o.config));
  }

  /** What `${attr.*}`, `${meta.*}` and `${node.*}` resolve to on this node. */
  private varsOf(fp: Fingerprint): NodeVars {
    const c = this.o.config;
    return {
      attributes: fp.Attributes,
      meta: c.meta,
      node: {
        'unique.id': this.identity.ID,
        'unique.name': this.o.nodeName,
        datacenter: this.o.datacenter,
        class: c.nodeClass,
        pool: c.nodePool,
      },
    };
  }

  /** One core's MHz (`cpu.frequency` of the last fingerprint; 0 when unknown): task CPU stats are given against it. */
  get cpuMhz(): number {
    return Number(this.nodeVars.attributes['cpu.frequency']) || 0;
  }

  /** The node's ID. */
  get nodeId(): string {
    return this.identity.ID;
  }

  /** `client.alloc_dir`: where the allocation directories are. */
  get allocRoot(): string {
    return this.o.config.allocDir;
  }

  /**
   * `method path` to the servers with the node's `SecretID` as the token (the client-only
   * agent's volume reads, csi-mounter.ts). @throws as {@link ServerApi.call}.
   */
  async callServers<T>(method: string, path: string): Promise<T> {
    return (await this.api.call<T>(method, path, { token: this.identity.SecretID, signal: this.stopping.signal })).body;
  }

  /** The runner of allocation `id` on this client, if it runs here. */
  runner(id: string): AllocRunner | undefined {
    return this.runners.get(id);
  }

  /** Stops leftover task processes, then registers and starts the heartbeat and the allocation watch (in the background). */
  start(): void {
    for (const r of this.processes.leftovers()) {
      this.o.log.info({ pid: r.pid }, 'client: stopping a task process the previous agent run left');
      signalGroup(r.pid, 'SIGKILL');
    }
    this.processes.clear();
    // With a `consul` block the registrations of a previous run are reconciled at once; without
    // one the default agent is reached only when an allocation has a service.
    if (this.o.config.consul) this.registrar.start();
    this.loops = [this.heartbeatLoop(), this.watchLoop()];
  }

  /** Stops the loops and kills every task's processes (SIGKILL, no report). */
  async close(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.flushTimer);
    for (const runner of this.runners.values()) runner.forceKill();
    await Promise.allSettled(this.loops);
    await Promise.allSettled([...this.runners.values()].map((r) => r.done));
    // The tasks are dead: so are their services.
    await this.registrar.close();
  }

  /** The registration body (fingerprint.ts) with status `ready`. */
  private registration(): Record<string, unknown> {
    const c = this.o.config;
    const fp = fingerprint(c);
    this.nodeVars = this.varsOf(fp);
    const plugins = this.o.csiNodePlugins?.();
    this.reportedPlugins = JSON.stringify(plugins ?? null);
    return {
      Node: {
        ID: this.identity.ID,
        SecretID: this.identity.SecretID,
        Name: this.o.nodeName,
        Datacenter: this.o.datacenter,
        NodeClass: c.nodeClass,
        NodePool: c.nodePool,
        HTTPAddr: this.o.selfAddress(),
        Attributes: fp.Attributes,
        NodeResources: fp.NodeResources,
        ReservedResources: fp.ReservedResources,
        Drivers: fp.Drivers,
        Meta: c.meta,
        // None: absent (the stored node shows null), as a node without CSI plugins in the reference.
        ...(plugins && Object.keys(plugins).length > 0 && { CSINodePlugins: plugins }),
        Status: 'ready',
      },
    };
  }

  /** Registers until it succeeds (or the client stops); one attempt at a time. */
  private register(): Promise<void> {
    this.registered ??= (async () => {
      for (;;) {
        try {
          const token = this.o.config.token ?? this.identity.SecretID;
          let r;
          try {
            r = await this.api.call<{ HeartbeatTTL?: number }>('PUT', '/v1/node/register', { token, body: this.registration(), signal: this.stopping.signal });
          } catch (err) {
            // A node known with this secret re-registers with it when the configured token is refused.
            if (!(err instanceof ServerError) || err.status !== 403 || token === this.identity.SecretID) throw err;
            r = await this.api.call<{ HeartbeatTTL?: number }>('PUT', '/v1/node/register', {
              token: this.identity.SecretID,
              body: this.registration(),
              signal: this.stopping.signal,
            });
          }
          this.setTtl(r.body?.HeartbeatTTL);
          this.o.log.info({ node: this.identity.ID }, 'client: node registered');
          return;
        } catch (err) {
          if (this.stopping.signal.aborted) return;
          this.o.log.warn({ err: (err as Error).message }, 'client: registration failed; retrying');
          await this.sleep(RETRY_MS);
        }
      }
    })().finally(() => (this.registered = undefined));
    return this.registered;
  }

  /** `HeartbeatTTL` is in ns (a Go duration); the client heartbeats at half of it. */
  private setTtl(ttlNs: number | undefined): void {
    const ttlMs = ttlNs && ttlNs > 0 ? ttlNs / 1e6 : DEFAULT_HEARTBEAT_TTL_MS;
    this.heartbeatMs = Math.max(100, ttlMs / 2);
  }

  private async heartbeatLoop(): Promise<void> {
    await this.register();
    while (!this.stopping.signal.aborted) {
      await this.sleep(this.heartbeatMs);
      if (this.stopping.signal.aborted) return;
      // The node plugins' health or facts changed: the servers learn it from a registration, as the reference's node update.
      if (this.o.csiNodePlugins && JSON.stringify(this.o.csiNodePlugins()) !== this.reportedPlugins) await this.register();
      try {
        const r = await this.api.call<{ HeartbeatTTL?: number }>('POST', `/v1/node/${this.identity.ID}/status`, {
          token: this.identity.SecretID,
          body: { Status: 'ready' },
          signal: this.stopping.signal,
        });
        this.setTtl(r.body?.HeartbeatTTL);
      } catch (err) {
        if (this.stopping.signal.aborted) return;
        if (err instanceof ServerError && (err.status === 404 || err.status === 403)) await this.register();
        else this.o.log.warn({ err: (err as Error).message }, 'client: heartbeat failed');
      }
    }
  }

  private async watchLoop(): Promise<void> {
    await this.register();
    let index = 0;
    while (!this.stopping.signal.aborted) {
      try {
        const r = await this.api.call<ClientAlloc[]>('GET', `/v1/node/${this.identity.ID}/allocations?index=${index}&wait=${WATCH_WAIT}`, {
          token: this.identity.SecretID,
          signal: this.stopping.signal,
        });
        // An index that went backwards (a restored state) starts over.
        index = r.index < index ? 0 : r.index;
        this.reconcile(r.body ?? []);
      } catch (err) {
        if (this.stopping.signal.aborted) return;
        if (err instanceof ServerError && (err.status === 404 || err.status === 403)) await this.register();
        else this.o.log.warn({ err: (err as Error).message }, 'client: allocation watch failed');
        index = 0;
        await this.sleep(RETRY_MS);
      }
    }
  }

  /**
   * What the tasks' template hooks need (client/templates/): a source per task reading the
   * discovery agent of the `consul` block with the task's discovery token (the consul hook's),
   * else the client's own token as the reference's templates did before workload identities;
   * the secrets service of the `vault` block with the task's secrets token (the vault hook's);
   * the client's `template` settings; and the job-wide restart permits asked with the node's
   * secret.
   */
  private templateOptions(): AllocTemplateOptions {
    const settings = this.o.config.template ?? DEFAULT_CLIENT_TEMPLATE_CONFIG;
    const consul = this.o.config.consul ?? defaultDiscovery();
    const address = /^https?:\/\//.test(consul.address) ? consul.address : `http://${consul.address}`;
    const vault = this.o.config.vault;
    return {
      source: (resources, persistDir) =>
        createTemplateSource({
          discovery: { address, token: () => resources.discoveryToken ?? consul.token },
          // Secrets only with the task's own token (the vault hook's): the client has none to lend.
          ...(vault && { secrets: { address: vault.address, token: () => resources.secretsToken, namespace: vault.namespace } }),
          settings,
          log: this.o.log,
          persistDir,
        }),
      wait: settings.wait,
      permits: (allocId) =>
        new RestartPermits(
          async (method) =>
            (
              await this.api.call<PermitReply>(method, `/v1/allocation/${allocId}/restart-permit`, {
                token: this.identity.SecretID,
                signal: this.stopping.signal,
              })
            ).body,
          { log: this.o.log },
        ),
    };
  }

  /** Starts new allocations, passes updates to running ones, forgets (and removes the directory of) those the servers dropped. */
  private reconcile(allocs: readonly ClientAlloc[]): void {
    const seen = new Set<string>();
    for (const a of allocs) {
      seen.add(a.ID);
      const runner = this.runners.get(a.ID);
      if (runner) {
        runner.update(a);
        continue;
      }
      // Finished before (or never to run): nothing to do here.
      if (clientTerminal(a) || a.DesiredStatus !== 'run') continue;
      const resumed = a.ClientStatus === 'running' || (a.TaskStates !== null && Object.keys(a.TaskStates).length > 0);
      const started = new AllocRunner({
        alloc: a,
        allocRoot: this.o.config.allocDir,
        datacenter: this.o.datacenter,
        node: this.nodeVars,
        drivers: this.o.config.drivers,
        resumed,
        now: this.o.now,
        report: (id, rep) => this.report(id, rep),
        onPid: (id, task, pid) => this.processes.set(id, task, pid),
        mounter: this.mounter,
        discovery: { registrar: this.registrar, nodeId: this.identity.ID, nodeAddress: advertisedHost(this.o.selfAddress()) },
        signIdentities: async (id, requests) =>
          (
            await this.api.call<{ SignedIdentities: SignedIdentity[] }>('POST', `/v1/allocation/${id}/identities`, {
              token: this.identity.SecretID,
              body: { Identities: requests },
              signal: this.stopping.signal,
            })
          ).body.SignedIdentities,
        ...(this.o.config.vault && { vault: this.o.config.vault }),
        templates: this.templateOptions(),
        log: this.o.log,
      });
      this.runners.set(a.ID, started);
      if (a.PreviousAllocation && started.registersServices) void this.removeReplaced(a.PreviousAllocation);
    }
    for (const [id, runner] of this.runners) {
      if (seen.has(id)) continue;
      this.runners.delete(id);
      void runner.stop().then(() => rmSync(runner.dir.root, { recursive: true, force: true }));
    }
  }

  /**
   * Removes the registrations of allocation `previousId`, which the allocation starting here
   * replaces, when it ran on another node and ended there (lost with its client:
   * services/replaced-alloc.ts). Read with the node's secret (the servers admit the node of
   * its replacement); a failure is logged.
   */
  private async removeReplaced(previousId: string): Promise<void> {
    let prev: PreviousAlloc;
    try {
      prev = await this.callServers<PreviousAlloc>('GET', `/v1/allocation/${encodeURIComponent(previousId)}`);
    } catch (err) {
      if (!this.stopping.signal.aborted) this.o.log.warn({ alloc: previousId, err: (err as Error).message }, 'client: reading the replaced allocation failed');
      return;
    }
    if (replacedElsewhere(prev, this.identity.ID)) await this.registrar.removeReplaced(prev.ID);
  }

  /**
   * Queues `rep` for allocation `id`. Reports are sent every {@link REPORT_BATCH_MS} (the
   * reference client's allocation sync interval), so the quick succession of a start
   * (`Received`, `Task Setup`, `Started`) is one write; per allocation one request is in flight
   * and the newest report is sent next, and at most {@link REPORT_CONCURRENCY} are in flight in
   * all (the servers cap connections per client address). A report's `DeploymentStatus`
   * (made once: alloc-runner.ts) goes on in the newer report that replaces it.
   */
  private report(id: string, rep: AllocReport): void {
    this.pending.set(id, withHealthOf(this.pending.get(id), rep));
    this.flushSoon();
  }

  /** Arms the timer that moves the waiting reports to the send queue. */
  private flushSoon(): void {
    if (this.flushTimer || this.stopping.signal.aborted) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      for (const id of this.pending.keys()) if (!this.sending.has(id)) this.queue.add(id);
      this.pump();
    }, REPORT_BATCH_MS);
  }

  /** Starts sending queued reports while fewer than {@link REPORT_CONCURRENCY} are in flight. */
  private pump(): void {
    while (this.sending.size < REPORT_CONCURRENCY && this.queue.size > 0) {
      const id = this.queue.values().next().value!;
      this.queue.delete(id);
      const rep = this.pending.get(id);
      if (!rep) continue;
      this.pending.delete(id);
      this.sending.add(id);
      void this.send(id, rep).finally(() => {
        this.sending.delete(id);
        // A newer report arrived meanwhile: it goes with the next flush.
        if (this.pending.has(id)) this.flushSoon();
        this.pump();
      });
    }
  }

  /** Sends one report, retrying until it is taken, the allocation is gone (404), a newer report waits, or the client stops. */
  private async send(id: string, rep: AllocReport): Promise<void> {
    for (;;) {
      try {
        await this.api.call('POST', `/v1/allocation/${id}/client-status`, { token: this.identity.SecretID, body: rep, signal: this.stopping.signal });
        return;
      } catch (err) {
        if (this.stopping.signal.aborted || (err instanceof ServerError && err.status === 404)) return;
        this.o.log.warn({ alloc: id, err: (err as Error).message }, 'client: allocation update failed; retrying');
        const newer = this.pending.get(id);
        if (newer) {
          this.pending.set(id, withHealthOf(rep, newer));
          return;
        }
        await this.sleep(RETRY_MS);
      }
    }
  }

  /** Waits `ms`, or less when the client stops. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.stopping.signal;
      if (signal.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
