/**
 * One secrets server: its seal state and, while unsealed, its core. Sealed = no core
 * and no key in memory; every request that needs the core answers 503. When the core opens
 * and closes under active/standby is ha/node-ha.ts.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { CairnError } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import { json, type Backend } from '../../kernel/store/index.js';
import { BUILD, VERSION } from '../../kernel/version/index.js';
import { AuditBroker } from './audit/broker.js';
import { SecretsCore, type CoreEngines } from './core.js';
import { secretsMetrics } from './metrics.js';
import { NodeHaRole, type LeaderStatus, type NodeHa } from './ha/node-ha.js';
import type { ChangeFeed } from './ha/perf-standby.js';
import { LeaseExpiryLoop } from './lease/expiry-loop.js';
import { EnginePeriodicLoop } from './mounts/periodic.js';
import { NotingBackend, ReadOnlyBackend } from './ha/storage-guard.js';
import { ROOT_NAMESPACE } from './namespace/registry.js';
import { SealManager, type InitResult } from './seal/seal.js';
import type { HaStatusNode } from './ha/nodes.js';

/** Options of {@link SecretsNode.open}. */
export interface SecretsNodeOptions {
  readonly backend: Backend;
  /** The engine registry each core it opens uses (engines.ts `CORE_ENGINES`). */
  readonly engines: CoreEngines;
  readonly log: Logger;
  readonly clock?: () => Date;
  /** Reported as `storage_type` (`sqlite`, later `postgresql`). */
  readonly storageType?: string;
  /**
   * Managed mode (spec 000 "Authentication" 6): initialisation creates the `admin`
   * namespace and the root token belongs to it, so a request without a namespace lands
   * in the root namespace, which no token can reach, and fails with 403.
   */
  readonly managedNamespaces?: boolean;
  /**
   * Active/standby (`storage "postgresql" { ha_enabled }`): the lock this server must
   * hold to be active. Without it the server is always active.
   */
  readonly ha?: NodeHa;
  /**
   * The storage's change feed (PostgreSQL): the commit index of `X-Secrets-Index`, and
   * what keeps a performance standby's caches current. Absent (SQLite): no state header.
   */
  readonly changeFeed?: ChangeFeed;
  /**
   * An HA standby serves reads itself from a read-only core (a performance standby, the
   * default when there is a change feed); `false` = `disable_performance_standby = true`:
   * a plain standby that forwards everything.
   */
  readonly performanceStandby?: boolean;
  /** This server's API address (`api_addr`, else its first listener's URL), for `sys/ha-status` without HA. */
  readonly apiAddress?: () => string;
}

/** The 503 of every request that needs an unsealed server (spec 000 "Errors"). */
const sealedError = () => new CairnError('unavailable', 'secrets service is sealed');

/** Identity of the cluster, created at initialisation, kept behind the barrier. */
export interface ClusterInfo {
  readonly name: string;
  readonly id: string;
}

/** A secrets server: seal state plus the core while unsealed. */
export class SecretsNode {
  private current: SecretsCore | undefined;
  private cluster: ClusterInfo | undefined;
  /** When the core opens and closes under HA, the standby core, `sys/leader` and `sys/ha-status` (ha/node-ha.ts). */
  private readonly ha: NodeHaRole;
  /** The lease expiry loop and the engines' background work: run only while this server's core is the active one. */
  private activeLoops: readonly (LeaseExpiryLoop | EnginePeriodicLoop)[] = [];

  /** This server's metrics (metrics.ts): served by `sys/metrics`. */
  readonly metrics: ServiceMetrics;
  /** This server's audit devices (audit/): loaded by each core it opens, closed when sealed. */
  readonly audit: AuditBroker;

  private constructor(
    readonly seal: SealManager,
    private readonly o: SecretsNodeOptions,
  ) {
    this.metrics = secretsMetrics(this, o.backend);
    this.audit = new AuditBroker(o.log);
    this.ha = new NodeHaRole({
      seal,
      log: o.log,
      ha: o.ha,
      changeFeed: o.changeFeed,
      performanceStandby: o.performanceStandby,
      apiAddress: o.apiAddress,
      now: () => this.now(),
      activeCore: () => this.current,
      openCore: () => this.openCore(),
      openReadOnlyCore: () => this.openReadOnlyCore(),
      dropCore: () => this.dropCore(),
      stopActiveLoops: () => this.stopActiveLoops(),
    });
  }

  /** Opens the node sealed. */
  static async open(o: SecretsNodeOptions): Promise<SecretsNode> {
    return new SecretsNode(await SealManager.load(o.backend, { storageType: o.storageType ?? 'sqlite', version: VERSION, buildDate: BUILD.date }), o);
  }

  /**
   * The core serving requests here: the active server's, or a performance standby's
   * read-only one; undefined while sealed or a plain standby.
   */
  get core(): SecretsCore | undefined {
    return this.current ?? this.ha.standbyCore;
  }

  /** The active server's core (writable), or undefined. */
  get activeCore(): SecretsCore | undefined {
    return this.current;
  }

  /** {@link core}; throws the 503 sealed error when there is none. */
  requireCore(): SecretsCore {
    const core = this.core;
    if (!core) throw sealedError();
    return core;
  }

  /** Cluster name and id while a core is open. */
  get clusterInfo(): ClusterInfo | undefined {
    return this.core && this.cluster;
  }

  /** A standby serving reads itself: its read-only core is loaded and kept current (health 473). */
  get performanceStandby(): boolean {
    return this.ha.performanceStandby;
  }

  /** A performance standby's applied change index (ha/perf-standby.ts); 0 otherwise. */
  get appliedIndex(): number {
    return this.ha.appliedIndex;
  }

  /** The commit index covering every write acknowledged to this server (`X-Secrets-Index`); undefined without a change feed. */
  get commitIndex(): number | undefined {
    return this.o.changeFeed?.commitIndex;
  }

  /** Whether active/standby is on (`ha_enabled`). */
  get haEnabled(): boolean {
    return this.ha.enabled;
  }

  /** An HA standby: see {@link NodeHaRole.standby}. */
  get standby(): boolean {
    return this.ha.standby;
  }

  /** Holds the HA lock but the core is not open yet (a few milliseconds after taking over). */
  get activating(): boolean {
    return this.ha.activating;
  }

  /** The key standbys sign the client's address with when forwarding (ha/forwarded-for.ts); undefined while sealed. */
  get forwardingKey(): Buffer | undefined {
    return this.seal.unsealedStorage?.deriveKey('request forwarding');
  }

  /** The active server's address as the leader row says (`''` when unknown). */
  get leaderAddress(): string {
    return this.ha.leaderAddress;
  }

  /** Re-reads the leader row now (after a forward to the active server was refused); no-op without HA. @throws the database's error. */
  async refreshLeader(): Promise<void> {
    await this.ha.refreshLeader();
  }

  /** The `sys/leader` body. */
  leaderStatus(): LeaderStatus {
    return this.ha.leaderStatus();
  }

  /** The `sys/ha-status` nodes: see {@link NodeHaRole.haStatus}. @throws the database's error reading the standbys' echoes. */
  async haStatus(): Promise<HaStatusNode[]> {
    return this.ha.haStatus();
  }

  /** Gives the HA lock up and closes what the active core's engines hold open (the service is closing). */
  async stopHa(): Promise<void> {
    await this.ha.stop();
    await this.current?.resources.closeAll();
  }

  /** A write of this server was refused by the fence: see {@link NodeHaRole.stepDown}. */
  stepDown(reason: string): void {
    this.ha.stepDown(reason);
  }

  /** The current time from the injected clock. */
  now(): Date {
    return this.o.clock?.() ?? new Date();
  }

  /**
   * `sys/init`: creates the keys and a root token, and stays sealed (reference/secrets.md
   * §3.1). `beforeStore`: see {@link SealManager.initialize}. Errors: see {@link SealManager.initialize}.
   */
  async initialize(
    shares: number,
    threshold: number,
    beforeStore?: (result: InitResult) => void | Promise<void>,
  ): Promise<InitResult & { root_token: string }> {
    const result = await this.seal.initialize(shares, threshold, beforeStore);
    for (const k of result.keys.slice(0, threshold)) await this.seal.submitShare(k);
    const core = await this.openCore();
    const home = this.o.managedNamespaces ? await core.namespaces.create(ROOT_NAMESPACE, 'admin', {}) : ROOT_NAMESPACE;
    const root = await core.tokens.create({ policies: ['root'], path: 'auth/token/root', displayName: 'root', now: this.now(), namespaceId: home.id });
    this.sealNow();
    return { ...result, root_token: root.id };
  }

  /** `sys/unseal`: adds a share; opens the core when the threshold is reached. */
  async unseal(share: string): Promise<void> {
    if (!(await this.seal.submitShare(share)) || this.current) return;
    if (this.ha.enabled) this.ha.start();
    else await this.openCore();
  }

  /** `sys/seal`: drops the core and the keys. */
  sealNow(): void {
    this.ha.beforeSeal();
    this.dropCore();
    this.audit.close();
    this.seal.seal();
    this.ha.afterSeal();
  }

  /** Drops the active core; its loops stop and what its engines hold open closes, in the background. */
  private dropCore(): void {
    const core = this.current;
    void this.stopActiveLoops().then(() => core?.resources.closeAll());
    this.current = undefined;
  }

  /** Opens the active core: writable, each write noted for the request's state header. */
  private async openCore(): Promise<SecretsCore> {
    const storage = new NotingBackend(this.seal.unsealedStorage!);
    let cluster = json.decode<ClusterInfo>(await storage.get('core/cluster-info'));
    if (!cluster) {
      const id = randomUUID();
      cluster = { id, name: `cairn-cluster-${id.slice(0, 8)}` };
      await storage.put('core/cluster-info', json.encode(cluster));
    }
    this.cluster = cluster;
    this.current = await SecretsCore.open({
      backend: storage,
      engines: this.o.engines,
      log: this.o.log,
      clock: this.o.clock,
      metrics: this.metrics,
      audit: this.audit,
      haStatus: () => this.ha.haStatus(),
    });
    // Leader-only work: the active core revokes due leases and runs the engines' periodic work (a standby's loops never run).
    await this.stopActiveLoops();
    this.activeLoops = [new LeaseExpiryLoop(this.current.leases, this.o.log), new EnginePeriodicLoop(this.current, this.o.log)];
    for (const loop of this.activeLoops) loop.start();
    return this.current;
  }

  /** Stops the active server's loops (stepping down, sealing, closing); waits for rounds in progress. */
  private async stopActiveLoops(): Promise<void> {
    const loops = this.activeLoops;
    this.activeLoops = [];
    await Promise.all(loops.map((l) => l.stop()));
  }

  /** A performance standby's core: the same storage read-only (every write throws ReadOnlyStorageError). */
  private async openReadOnlyCore(): Promise<SecretsCore> {
    const storage = new ReadOnlyBackend(this.seal.unsealedStorage!);
    const cluster = json.decode<ClusterInfo>(await storage.get('core/cluster-info'));
    if (!cluster) throw new Error('the cluster identity is not stored yet; the active server writes it');
    this.cluster = cluster;
    return SecretsCore.open({ backend: storage, engines: this.o.engines, log: this.o.log, clock: this.o.clock, metrics: this.metrics, audit: this.audit });
  }
}
