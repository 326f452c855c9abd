/**
 * The client's side of the discovery agent beside it (reference/integration.md §2, §8.1;
 * the reference client's Consul service client): every registration of the allocations
 * this client runs goes through the agent's public HTTP API with the SDK's `MeshClient`
 * (`consul { address, token }` of the agent configuration), and nothing is left behind:
 *
 * - registrations are keyed by allocation and owned by this client node: their IDs start
 *   with `_cairn-task-<alloc ID>` and their `Meta["cairn-node-id"]` is this node's ID
 *   (registration.ts);
 * - the client reconciles at start and every `reconcileIntervalMs` (30 s): it removes the
 *   agent's registrations with its prefix and its node ID that no allocation it runs holds
 *   (those of allocations stopped while it was down, or of a previous run), and registers
 *   again those the agent lost; a registration of another node is never touched, so two
 *   clients sharing one agent never remove each other's;
 * - every {@link LIVENESS_REFRESH_MS} it passes each registration's liveness TTL check
 *   (`<service ID>-alive`, TTL {@link LIVENESS_TTL}): when the client dies (`kill -9`) its
 *   instances turn critical within the TTL, and the agent removes them after the check's
 *   `DeregisterCriticalServiceAfter` (`consul.deregister_critical_service_after`, 1 m by
 *   default) unless the client comes back first, whose reconcile then removes those of
 *   allocations it no longer runs at once;
 * - a registration the agent does not take (unreachable, or refusing it) is retried after
 *   1 s, then twice as long each time up to 30 s, until it is (reference/integration.md
 *   §8.3), and its allocation's task events say so once (alloc-services.ts);
 * - it reads the agent's checks every second for the checks watched by `check_restart` and
 *   by the deployment health (client/deployment-health.ts), skipping a check that has not
 *   run yet (no output): its initial status, also after the agent restored it on coming
 *   back, is no result of the task's.
 *
 * @module
 */
import type { Logger } from '../../../../kernel/log/logger.js';
import { MeshApiError, MeshClient, type MeshCheckStatus } from '../../../../sdk/index.js';
import { LIVENESS_REFRESH_MS, META_NODE, SERVICE_ID_PREFIX, type Registration } from './registration.js';
import { removeAllocInstances } from './replaced-alloc.js';

/** Reconcile period in ms (the reference's Consul sync runs every 30 s). */
const RECONCILE_MS = 30_000;
/** First and longest pause before registering again what the agent could not take, in ms (doubling between). */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** How often the watched checks' statuses are read, in ms (the reference's check watcher polls every second). */
const WATCH_POLL_MS = 1_000;
/** Liveness passes in flight at once. */
const CONCURRENCY = 8;
/** How long closing waits for the deregistrations, in ms. */
const CLOSE_WAIT_MS = 2_000;

/** The `consul { … }` settings the registrar uses. */
export interface DiscoverySettings {
  /** `host:port` or `http(s)://host:port` of the discovery agent. */
  readonly address: string;
  /** ACL token with `service:write` on the services, `agent:read` and `node:read`. */
  readonly token?: string;
  /** `DeregisterCriticalServiceAfter` of the liveness checks (Go duration; default `1m`). */
  readonly deregisterCriticalServiceAfter: string;
  /** `service_auth_method`: where service identities log in; absent: `cairn-workloads`. */
  readonly serviceAuthMethod?: string;
  /** `task_auth_method`: where tasks' `consul_default` logs in; absent: `cairn-workloads`. */
  readonly taskAuthMethod?: string;
}

/** Options of {@link ServiceRegistrar}. */
export interface ServiceRegistrarOptions {
  readonly settings: DiscoverySettings;
  /** This client's node ID. */
  readonly nodeId: string;
  readonly log: Logger;
  /** Reconcile period in ms; default 30 s. */
  readonly reconcileIntervalMs?: number;
}

/** Told once, with the error's text, when a registration fails (again only after it succeeded). */
export type RegistrationFailed = (message: string) => void;

/** A watched check's status as the agent has it. */
export type CheckWatcher = (status: MeshCheckStatus) => void;

/** Runs `work` over `items`, at most {@link CONCURRENCY} at once. */
async function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** The client's registrations in the discovery agent (see the module doc). */
export class ServiceRegistrar {
  private readonly mesh: MeshClient;
  private readonly regs = new Map<string, Registration>();
  /** The watchers of each watched check, by check ID (check_restart and the deployment health may watch one check). */
  private readonly watchers = new Map<string, Set<CheckWatcher>>();
  /** The pending timer of each loop, by loop name. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;
  private started = false;
  private reconciling: Promise<void> | undefined;
  /** The last request in flight per registration ID: a deregistration never overtakes the registration before it. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Who is told of a registration's failure, by registration ID. */
  private readonly onFailure = new Map<string, RegistrationFailed>();
  /**
   * Registrations whose last attempt failed, retried with backoff ({@link retrySoon}), and
   * how: `unreachable` (no answer) or `refused` (the agent answered an error).
   */
  private readonly failing = new Map<string, 'unreachable' | 'refused'>();
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: ServiceRegistrarOptions) {
    this.mesh = new MeshClient({ address: o.settings.address, token: o.settings.token, timeoutMs: 10_000 });
  }

  /** The discovery agent settings (registration.ts reads the liveness check's deregister time). */
  get settings(): DiscoverySettings {
    return this.o.settings;
  }

  /** Reconciles now, then starts the reconcile, liveness and check watch loops (once; the first registration starts them too). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.reconcile();
    this.every('reconcile', this.o.reconcileIntervalMs ?? RECONCILE_MS, () => this.reconcile());
    this.every('liveness', LIVENESS_REFRESH_MS, () => this.refreshLiveness());
    this.every('watch', WATCH_POLL_MS, () => this.pollWatched());
  }

  /**
   * Registers `reg` (kept, so reconcile registers it again if the agent loses it). A failure
   * (the agent unreachable or refusing) is not thrown: it is logged and told to `onFailure`
   * once, and the registration is retried after 1 s, then twice as long each time up to
   * 30 s, until it is taken (reference/integration.md §8.3: retry with backoff, never give up).
   */
  register(reg: Registration, onFailure?: RegistrationFailed): Promise<void> {
    this.start();
    this.regs.set(reg.id, reg);
    if (onFailure) this.onFailure.set(reg.id, onFailure);
    else this.onFailure.delete(reg.id);
    return this.inOrder(reg.id, () => this.put(reg));
  }

  /** Deregisters registration `id` (already gone: nothing). Failures are logged; reconcile removes it later. */
  async deregister(id: string): Promise<void> {
    this.failing.delete(id);
    this.onFailure.delete(id);
    const reg = this.regs.get(id);
    if (!reg || !this.regs.delete(id)) return;
    await this.inOrder(id, async () => {
      try {
        await this.mesh.agent.deregisterService(id, { token: reg.token });
      } catch (err) {
        if (err instanceof MeshApiError && err.status === 404) return;
        this.o.log.warn({ service: id, err: (err as Error).message }, 'client: service deregistration failed; the next reconcile removes it');
      }
    });
  }

  /** Runs `op` after the requests already in flight for registration `id`. */
  private inOrder(id: string, op: () => Promise<void>): Promise<void> {
    const run = (this.inFlight.get(id) ?? Promise.resolve()).then(op);
    this.inFlight.set(id, run);
    void run.finally(() => {
      if (this.inFlight.get(id) === run) this.inFlight.delete(id);
    });
    return run;
  }

  /** Reports a script check's result to its TTL check; failures are logged. */
  async updateTtl(checkId: string, status: MeshCheckStatus, output: string): Promise<void> {
    try {
      await this.mesh.agent.updateTtl(checkId, status, output);
    } catch (err) {
      this.o.log.warn({ check: checkId, err: (err as Error).message }, 'client: script check update failed');
    }
  }

  /** Calls `watcher` with check `checkId`'s status about every second (beside the check's other watchers); the returned function stops it. */
  watch(checkId: string, watcher: CheckWatcher): () => void {
    const set = this.watchers.get(checkId) ?? new Set<CheckWatcher>();
    set.add(watcher);
    this.watchers.set(checkId, set);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(checkId) === set) this.watchers.delete(checkId);
    };
  }

  /**
   * Removes this node's registrations that no allocation holds and registers again what the
   * agent lost (module doc). One at a time; failures are logged and retried next period.
   */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      try {
        const listed = await this.mesh.agent.services();
        const stale = Object.values(listed).filter((s) => s.ID.startsWith(SERVICE_ID_PREFIX) && s.Meta?.[META_NODE] === this.o.nodeId && !this.regs.has(s.ID));
        for (const s of stale) {
          // Registered meanwhile (an allocation resuming after a restart): it stays.
          if (this.regs.has(s.ID)) continue;
          this.o.log.info({ service: s.ID }, 'client: removing a registration of an allocation this client no longer runs');
          await this.mesh.agent.deregisterService(s.ID).catch(() => undefined);
        }
        const lost = [...this.regs.values()].filter((r) => !(r.id in listed));
        await eachLimited(lost, (r) => this.put(r));
      } catch (err) {
        if (!this.closed) this.o.log.warn({ err: (err as Error).message }, 'client: reconciling the discovery agent failed');
      }
    })().finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /**
   * Removes the registrations of allocation `allocId`, which another client ran and which
   * ended there (replaced-alloc.ts: the caller checked that), from this agent and the
   * catalog. Failures are logged, not thrown: the agent's `deregister_critical_service_after`
   * removes them later.
   */
  async removeReplaced(allocId: string): Promise<void> {
    try {
      const ids = await removeAllocInstances(this.mesh, allocId);
      if (ids.length > 0) this.o.log.info({ alloc: allocId, services: ids }, 'client: removed the registrations of the lost allocation this one replaces');
    } catch (err) {
      if (!this.closed) this.o.log.warn({ alloc: allocId, err: (err as Error).message }, 'client: removing the registrations of a replaced allocation failed');
    }
  }

  /** Stops the loops and deregisters every registration (the client's tasks die with it), waiting at most 2 s. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    clearTimeout(this.retryTimer);
    const ids = [...this.regs.keys()];
    const all = eachLimited(ids, (id) => this.deregister(id));
    await Promise.race([all, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
    await this.mesh.close();
  }

  private async put(reg: Registration): Promise<void> {
    try {
      await this.mesh.agent.registerService(reg.body, { replaceExistingChecks: true, token: reg.token });
      this.failing.delete(reg.id);
    } catch (err) {
      // Closed, or deregistered meanwhile: nothing to retry.
      if (this.closed || this.regs.get(reg.id) !== reg) return;
      const message = (err as Error).message;
      const first = !this.failing.has(reg.id);
      this.failing.set(reg.id, err instanceof MeshApiError ? 'refused' : 'unreachable');
      if (first) {
        this.o.log.warn({ service: reg.id, err: message }, 'client: service registration failed; retrying with backoff');
        this.onFailure.get(reg.id)?.(message);
      }
      this.retrySoon();
    }
  }

  /**
   * Registers the failing registrations again after the current backoff (1 s, doubling up to
   * 30 s while attempts fail, back to 1 s once all are taken); one timer at a time.
   */
  private retrySoon(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(async () => {
      const due = [...this.failing.keys()].map((id) => this.regs.get(id)).filter((r): r is Registration => r !== undefined);
      await eachLimited(due, (r) => this.inOrder(r.id, () => (this.regs.get(r.id) === r ? this.put(r) : Promise.resolve())));
      this.retryTimer = undefined;
      this.retryMs = this.failing.size > 0 ? Math.min(this.retryMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
      if (this.failing.size > 0) this.retrySoon();
    }, this.retryMs);
    this.retryTimer.unref();
  }

  /** Runs `work` every `ms` after the previous run ended, until closed. */
  private every(loop: string, ms: number, work: () => Promise<void>): void {
    const tick = () => {
      const t = setTimeout(async () => {
        await work();
        if (!this.closed) tick();
      }, ms);
      t.unref();
      this.timers.set(loop, t);
    };
    tick();
  }

  /**
   * Passes every liveness check; a registration the agent lost (404) is registered again at
   * once, unless the agent refused it last time (left to the backoff): a 404 says an agent
   * that could not be reached answers again.
   */
  private async refreshLiveness(): Promise<void> {
    await eachLimited([...this.regs.values()], async (r) => {
      try {
        await this.mesh.agent.passTtl(r.aliveCheckId);
      } catch (err) {
        if (err instanceof MeshApiError && err.status === 404 && this.regs.get(r.id) === r && this.failing.get(r.id) !== 'refused') await this.put(r);
      }
    });
  }

  private async pollWatched(): Promise<void> {
    if (this.watchers.size === 0) return;
    try {
      const checks = await this.mesh.agent.checks();
      for (const [id, set] of this.watchers) {
        const c = checks[id];
        // A check with no output has not run since the agent (re)registered it (an agent
        // back from an outage restores its checks at their initial status): its status says
        // nothing of the task yet (reference/integration.md §8.3, no healthy task stopped by an outage).
        if (c && c.Output !== '') for (const w of [...set]) w(c.Status as MeshCheckStatus);
      }
    } catch (err) {
      if (!this.closed) this.o.log.debug({ err: (err as Error).message }, 'client: reading the watched checks failed');
    }
  }
}
