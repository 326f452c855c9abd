/**
 * The agent's own node: the services and checks registered with it (`/agent/...`), kept
 * across restarts and synced to the catalog (issue 16 scope 3; reference/mesh-catalog.md
 * "Agent"). The checks run in check-runner.ts, the sync loop is anti-entropy.ts:
 *
 * - the agent owns its node's entries: each change is pushed to the catalog at once, and
 *   a full sync every `syncIntervalMs` (60 s, with jitter of up to a tenth) repairs what
 *   the catalog lost or gained behind its back (a catalog deregistration of an agent
 *   service is undone; a service registered in the catalog for this node is removed);
 * - besides its local entries the agent keeps its node itself, the node check
 *   `serfHealth` ("Serf Health Status", passing while it runs) and the `consul` service,
 *   named as the reference so clients that look for them keep working;
 * - a check's status change is synced at once, an output-only change at most every
 *   `checkUpdateIntervalMs` (check-runner.ts);
 * - a service whose check stays `critical` for its `DeregisterCriticalServiceAfter`
 *   (at least `deregisterMinMs`, 1 min) is removed by a reaper running every
 *   `reapIntervalMs` (30 s).
 *
 * A sync writes only what differs (catalog/register.ts `putIfChanged`), so the periodic
 * one wakes no blocking query when nothing changed. An agent that may not write the state
 * (a follower on shared PostgreSQL storage) compares its node's entries in its copy of the
 * state with its own and sends what differs to the leader as the reference's agents do:
 * `PUT /v1/catalog/register` and `/deregister` calls, with `acl.tokens.agent`
 * ({@link LocalAgentOptions.sendToLeader}).
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { NODE_MAINT_CHECK_ID, SERVICE_MAINT_PREFIX, type CheckDoc, type CheckStatus, type ServiceDoc } from '../catalog/model.js';
import { AntiEntropy } from './anti-entropy.js';
import { CheckRunner } from './check-runner.js';
import type { LocalCheck, ServiceRegistration } from './definition.js';
import type { LocalStore } from './persist.js';
import { selfEntries, type NodeEntries, type SendToLeader } from './sync.js';

/** Options of {@link LocalAgent}. */
export interface LocalAgentOptions {
  readonly state: StateStore;
  readonly log: Logger;
  readonly nodeName: string;
  readonly nodeId: string;
  readonly datacenter: string;
  /** The node's address (known once the HTTP API listens). */
  readonly address: () => string;
  /** The HTTP API's port (the `consul` service's port). */
  readonly port: () => number;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Full sync period in ms; default 60 s. */
  readonly syncIntervalMs?: number;
  /** Reaper period in ms; default 30 s. */
  readonly reapIntervalMs?: number;
  /** Smallest `DeregisterCriticalServiceAfter` honoured, in ms; default 60 s. */
  readonly deregisterMinMs?: number;
  /**
   * Sends a catalog write (`path` under `/v1/`, JSON `body`) to the leader, when this agent
   * follows a shared state. @throws when the leader is unknown or refuses it.
   */
  readonly sendToLeader?: SendToLeader;
  /**
   * How long, in ms, a check output change that keeps the status may wait before it is
   * written to the catalog (the reference's `check_update_interval`); default 5 min.
   */
  readonly checkUpdateIntervalMs?: number;
  /** Keeps the definitions across restarts (persist.ts); absent: memory only. */
  readonly store?: LocalStore;
}

const MAINT_DEFAULT_SERVICE = 'Maintenance mode is enabled for this service, but no reason was provided. This is a default message.';
const MAINT_DEFAULT_NODE = 'Maintenance mode is enabled for this node, but no reason was provided. This is a default message.';

/** The agent's local state; see the module doc. */
export class LocalAgent {
  private readonly services = new Map<string, ServiceDoc>();
  private readonly checks: CheckRunner;
  private readonly sync: AntiEntropy;
  private reapTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: LocalAgentOptions) {
    this.checks = new CheckRunner({
      nodeName: o.nodeName,
      now: o.now,
      checkUpdateIntervalMs: o.checkUpdateIntervalMs,
      serviceOf: (id) => this.services.get(id),
      onChange: () => this.requestSync(),
    });
    this.sync = new AntiEntropy({
      state: o.state,
      log: o.log,
      now: o.now,
      syncIntervalMs: o.syncIntervalMs,
      sendToLeader: o.sendToLeader,
      entries: () => this.desired(),
    });
  }

  /** The node name. */
  get nodeName(): string {
    return this.o.nodeName;
  }

  /** The node's ID (a UUID kept in the data directory). */
  get nodeId(): string {
    return this.o.nodeId;
  }

  /**
   * Restores the kept definitions (each check with its status as registered; its runs
   * start). @throws when they cannot be read or decrypted.
   */
  restore(): void {
    const kept = this.o.store?.load();
    for (const s of kept?.services ?? []) this.services.set(s.ID, s);
    for (const c of kept?.checks ?? []) this.checks.put(c);
  }

  /** Starts the periodic sync and the reaper, and syncs now. */
  start(): void {
    this.reapTimer = setInterval(() => this.reap(), this.o.reapIntervalMs ?? 30_000);
    this.reapTimer.unref();
    this.sync.start();
  }

  /** Stops every timer and waits for a sync in flight. */
  async close(): Promise<void> {
    clearInterval(this.reapTimer);
    this.checks.close();
    await this.sync.close();
  }

  /** The local services by ID. */
  listServices(): ServiceDoc[] {
    return [...this.services.values()];
  }

  /** Local service `id`. */
  service(id: string): ServiceDoc | undefined {
    return this.services.get(id);
  }

  /** The local checks as documents (current status and output). */
  listChecks(): CheckDoc[] {
    return this.checks.docs();
  }

  /** Local check `id` as a document. */
  check(id: string): CheckDoc | undefined {
    return this.checks.doc(id);
  }

  /**
   * Adds or replaces a service with its checks. Checks of the service not in `reg` stay
   * unless `replaceExistingChecks` (`?replace-existing-checks`).
   */
  addService(reg: ServiceRegistration, replaceExistingChecks: boolean): void {
    const id = reg.service.ID;
    this.services.set(id, reg.service);
    if (replaceExistingChecks) {
      const keep = new Set(reg.checks.map((c) => c.doc.CheckID));
      for (const { doc } of this.checks.definitions())
        if (doc.ServiceID === id && !keep.has(doc.CheckID) && !doc.CheckID.startsWith(SERVICE_MAINT_PREFIX)) this.checks.drop(doc.CheckID);
    }
    for (const c of reg.checks) this.checks.put(c);
    this.changed();
  }

  /** Removes service `id` with its checks; false when there is none. */
  removeService(id: string): boolean {
    if (!this.services.delete(id)) return false;
    for (const { doc } of this.checks.definitions()) if (doc.ServiceID === id) this.checks.drop(doc.CheckID);
    this.changed();
    return true;
  }

  /** Adds or replaces a check (its service must be local). */
  addCheck(c: LocalCheck): void {
    this.checks.put(c);
    this.changed();
  }

  /** Removes check `id`; false when there is none. */
  removeCheck(id: string): boolean {
    if (!this.checks.has(id)) return false;
    this.checks.drop(id);
    this.changed();
    return true;
  }

  /**
   * Sets a TTL check's status (`/agent/check/pass|warn|fail|update`), restarting its TTL.
   * Output past 4 KiB is cut (`… (captured 4096 of N bytes)`).
   * @returns false when `id` is not a TTL check of this agent.
   */
  updateTtl(id: string, status: CheckStatus, output: string): boolean {
    return this.checks.updateTtl(id, status, output);
  }

  /** Turns maintenance of service `id` on (a critical `_service_maintenance:<id>` check) or off. false: no such service. */
  serviceMaintenance(id: string, enable: boolean, reason: string): boolean {
    const s = this.services.get(id);
    if (!s) return false;
    const cid = `${SERVICE_MAINT_PREFIX}${id}`;
    if (enable) this.putMaintenance(cid, 'Service Maintenance Mode', reason || MAINT_DEFAULT_SERVICE, id);
    else if (this.checks.has(cid)) this.checks.drop(cid);
    this.changed();
    return true;
  }

  /** Turns node maintenance (a critical `_node_maintenance` check) on or off. */
  nodeMaintenance(enable: boolean, reason: string): void {
    if (enable) this.putMaintenance(NODE_MAINT_CHECK_ID, 'Node Maintenance Mode', reason || MAINT_DEFAULT_NODE, '');
    else if (this.checks.has(NODE_MAINT_CHECK_ID)) this.checks.drop(NODE_MAINT_CHECK_ID);
    this.changed();
  }

  /** A definition changed: keep the definitions, then sync. A failure to keep them is logged (the change stands in memory). */
  private changed(): void {
    try {
      this.o.store?.save({ services: [...this.services.values()], checks: this.checks.definitions() });
    } catch (err) {
      this.o.log.error({ err }, "could not keep the agent's service and check definitions");
    }
    this.requestSync();
  }

  /**
   * Pushes the local state to the catalog soon (coalesced with a sync in flight; nothing
   * before {@link start}); see anti-entropy.ts.
   */
  requestSync(): void {
    this.sync.request();
  }

  /** The node's entries as this agent owns them (checks filled with their service's name and tags, as the catalog stores them). */
  private desired(): NodeEntries {
    const self = selfEntries({ name: this.o.nodeName, id: this.o.nodeId, address: this.o.address(), datacenter: this.o.datacenter, port: this.o.port() });
    return {
      node: self.node,
      services: [...self.services, ...this.services.values()],
      checks: [...self.checks, ...this.checks.syncDocs()],
    };
  }

  private putMaintenance(id: string, name: string, notes: string, serviceId: string): void {
    this.checks.put({
      doc: {
        Node: this.o.nodeName,
        CheckID: id,
        Name: name,
        Status: 'critical',
        Notes: notes,
        Output: '',
        ServiceID: serviceId,
        ServiceName: '',
        ServiceTags: [],
        Type: 'maintenance',
        Interval: '',
        Timeout: '',
        Definition: {},
      },
      deregisterAfterMs: 0,
    });
  }

  /** Removes services whose check has been critical for its `DeregisterCriticalServiceAfter`. */
  private reap(): void {
    const now = this.o.now();
    const min = this.o.deregisterMinMs ?? 60_000;
    for (const { def, since } of this.checks.critical()) {
      const after = def.deregisterAfterMs;
      const sid = def.doc.ServiceID;
      if (after <= 0 || sid === '') continue;
      if (now - since >= Math.max(after, min) && this.removeService(sid)) {
        this.o.log.info({ service: sid, check: def.doc.CheckID }, 'removed a service whose check stayed critical past DeregisterCriticalServiceAfter');
      }
    }
  }
}
