/**
 * One secrets server: its seal state and, while unsealed, its core. Sealed = no core
 * and no key in memory; every request that needs the core answers 503.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { CairnError } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import { json, type Backend } from '../../kernel/store/index.js';
import { BUILD, VERSION } from '../../kernel/version/index.js';
import { AuditBroker } from './audit/broker.js';
import { SecretsCore, type CoreEngines } from './core.js';
import { secretsMetrics } from './metrics.js';
import { PerformanceStandby, type ChangeFeed } from './ha/perf-standby.js';
import { LeaseExpiryLoop } from './lease/expiry-loop.js';
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

/** The HA side of a node: the lock (kernel/store/pg-lock.ts), which publishes this server's addresses when it takes over. */
export interface NodeHa {
  readonly lock: {
    readonly isActive: boolean;
    readonly leader: { readonly leaderAddress: string; readonly clusterAddress: string } | undefined;
    start(events: { onActive(term: number): void | Promise<void>; onStandby(reason: string): void }): void;
    stop(): Promise<void>;
    /** Reads who is active from the database now (a forward to the old active server was refused). */
    refreshLeader(): Promise<void>;
    /** While active: the standbys that echoed since it took the lock (kernel/store/pg-ha-echo.ts). */
    standbys?(): Promise<ReadonlyArray<{ hostname: string; apiAddress: string; clusterAddress: string; version: string; lastEcho: Date }>>;
  };
}

/**
 * The `sys/leader` body (reference: `ha_enabled`, `is_self`, addresses, `active_time`;
 * Vault Enterprise adds `performance_standby` and `performance_standby_last_remote_wal`,
 * here the standby's applied change index).
 */
export interface LeaderStatus {
  readonly ha_enabled: boolean;
  readonly is_self: boolean;
  readonly active_time: string;
  readonly leader_address: string;
  readonly leader_cluster_address: string;
  readonly performance_standby: boolean;
  readonly performance_standby_last_remote_wal: number;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** The 503 of every request that needs an unsealed server (spec 000 "Errors"). */
export const sealedError = () => new CairnError('unavailable', 'secrets service is sealed');

/** Identity of the cluster, created at initialisation, kept behind the barrier. */
export interface ClusterInfo {
  readonly name: string;
  readonly id: string;
}

/** A secrets server: seal state plus the core while unsealed. */
export class SecretsNode {
  private current: SecretsCore | undefined;
  private cluster: ClusterInfo | undefined;
  private activeSince: Date | undefined;
  private haStarted = false;
  /** The read-only core while a performance standby. */
  private perf: PerformanceStandby | undefined;
  /** The lease expiry loop: runs only while this server's core is the active one. */
  private leaseExpiry: LeaseExpiryLoop | undefined;

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
    return this.current ?? this.perf?.core;
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
    return this.standby && this.perf?.core !== undefined;
  }

  /** A performance standby's applied change index (ha/perf-standby.ts); 0 otherwise. */
  get appliedIndex(): number {
    return this.perf?.appliedIndex ?? 0;
  }

  /** The commit index covering every write acknowledged to this server (`X-Secrets-Index`); undefined without a change feed. */
  get commitIndex(): number | undefined {
    return this.o.changeFeed?.commitIndex;
  }

  /** Whether active/standby is on (`ha_enabled`). */
  get haEnabled(): boolean {
    return this.o.ha !== undefined;
  }

  /**
   * An HA standby: unsealed, but not serving: another server holds the lock (or none is
   * known yet), or this one just took it and its core is still opening ({@link activating}).
   */
  get standby(): boolean {
    return this.o.ha !== undefined && !this.seal.sealed && !(this.o.ha.lock.isActive && this.current !== undefined);
  }

  /** Holds the HA lock but the core is not open yet (a few milliseconds after taking over). */
  get activating(): boolean {
    return this.o.ha !== undefined && !this.seal.sealed && this.o.ha.lock.isActive && this.current === undefined;
  }

  /** The key standbys sign the client's address with when forwarding (ha/forwarded-for.ts); undefined while sealed. */
  get forwardingKey(): Buffer | undefined {
    return this.seal.unsealedStorage?.deriveKey('request forwarding');
  }

  /** The active server's address as the leader row says (`''` when unknown). */
  get leaderAddress(): string {
    return this.o.ha?.lock.leader?.leaderAddress ?? '';
  }

  /** Re-reads the leader row now (after a forward to the active server was refused); no-op without HA. @throws the database's error. */
  async refreshLeader(): Promise<void> {
    await this.o.ha?.lock.refreshLeader();
  }

  /** The `sys/leader` body. */
  leaderStatus(): LeaderStatus {
    const lock = this.o.ha?.lock;
    const self = lock !== undefined && lock.isActive && !this.seal.sealed && this.current !== undefined;
    const perf = this.performanceStandby;
    return {
      ha_enabled: lock !== undefined,
      is_self: self,
      active_time: self && this.activeSince ? this.activeSince.toISOString() : ZERO_TIME,
      leader_address: lock?.leader?.leaderAddress ?? '',
      leader_cluster_address: lock?.leader?.clusterAddress ?? '',
      performance_standby: perf,
      performance_standby_last_remote_wal: perf ? this.appliedIndex : 0,
    };
  }

  /**
   * The `sys/ha-status` nodes: this server (the active one: only it answers that path)
   * first, then the standbys it heard from since it became active, by API address
   * (reference: `sys/ha-status`). Without HA: this server alone.
   * @throws the database's error reading the standbys' echoes.
   */
  async haStatus(): Promise<HaStatusNode[]> {
    const lock = this.o.ha?.lock;
    const self: HaStatusNode = {
      hostname: hostname(),
      api_address: lock?.leader?.leaderAddress ?? this.o.apiAddress?.() ?? '',
      cluster_address: lock?.leader?.clusterAddress ?? '',
      active_node: true,
      last_echo: null,
      version: VERSION,
    };
    const standbys = (await lock?.standbys?.()) ?? [];
    return [
      self,
      ...standbys.map((s) => ({
        hostname: s.hostname,
        api_address: s.apiAddress,
        cluster_address: s.clusterAddress,
        active_node: false,
        last_echo: s.lastEcho.toISOString(),
        version: s.version,
      })),
    ];
  }

  /** Gives the HA lock up (the service is closing). */
  async stopHa(): Promise<void> {
    this.haStarted = false;
    this.stopPerf();
    await this.stopLeaseExpiry();
    await this.o.ha?.lock.stop();
  }

  /**
   * A write of this server was refused by the fence: another server is active now. Stops
   * serving as the active one at once and takes part in the lock again (the lock may not
   * have noticed yet: its connection can outlive the term it held).
   */
  stepDown(reason: string): void {
    const ha = this.o.ha;
    if (!ha || !this.haStarted || this.current === undefined) return;
    this.o.log.warn({ reason }, 'HA: a write was refused by the fence; stepping down to standby');
    this.becomeStandby();
    this.haStarted = false;
    void ha.lock.stop().then(() => {
      if (!this.seal.sealed) this.startHa(ha);
    });
  }

  /** The current time from the injected clock. */
  now(): Date {
    return this.o.clock?.() ?? new Date();
  }

  /**
   * `sys/init`: creates the keys and a root token, and stays sealed (reference/secrets.md
   * §3.1). `beforeStore`: see {@link SealManager.initialize}. Errors: see {@link SealManager.initialize}.
   */
  async initialize(shares: number, threshold: number, beforeStore?: (result: InitResult) => void | Promise<void>): Promise<InitResult & { root_token: string }> {
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
    if (this.o.ha) this.startHa(this.o.ha);
    else await this.openCore();
  }

  /**
   * Unsealed with HA: a standby until the lock is ours, then the core opens (the active
   * server); losing the lock drops the core at once and waits again (the keys stay, as
   * in the reference's step-down).
   */
  private startHa(ha: NodeHa): void {
    if (this.haStarted) return;
    this.haStarted = true;
    this.startPerf();
    ha.lock.start({
      onActive: async () => {
        try {
          if (this.seal.sealed) return;
          // The standby's caches may miss a change still on its way: the active core starts from storage.
          this.stopPerf();
          this.seal.unsealedStorage?.invalidate();
          await this.openCore();
          this.activeSince = this.now();
        } catch (err) {
          this.o.log.error({ err: (err as Error).message }, 'HA: cannot open the core after taking the lock');
        }
      },
      onStandby: () => this.becomeStandby(),
    });
  }

  /** Drops the active core; a performance standby again when configured. */
  private becomeStandby(): void {
    void this.stopLeaseExpiry();
    this.current = undefined;
    this.activeSince = undefined;
    if (!this.seal.sealed) this.startPerf();
  }

  /** Opens the read-only core kept current from the change feed (performance standby), when configured. */
  private startPerf(): void {
    const feed = this.o.changeFeed;
    const barrier = this.seal.unsealedStorage;
    if (this.perf || !feed || !barrier || this.o.performanceStandby === false) return;
    this.perf = new PerformanceStandby({ feed, barrier, log: this.o.log, open: () => this.openReadOnlyCore() });
    this.perf.start();
  }

  private stopPerf(): void {
    this.perf?.stop();
    this.perf = undefined;
  }

  /** `sys/seal`: drops the core and the keys. */
  sealNow(): void {
    this.stopPerf();
    void this.stopLeaseExpiry();
    this.current = undefined;
    this.activeSince = undefined;
    this.audit.close();
    this.seal.seal();
    if (this.o.ha && this.haStarted) {
      this.haStarted = false;
      void this.o.ha.lock.stop();
    }
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
    this.current = await SecretsCore.open({ backend: storage, engines: this.o.engines, log: this.o.log, clock: this.o.clock, metrics: this.metrics, audit: this.audit, haStatus: () => this.haStatus() });
    // Leader-only work: the active core revokes due leases (a standby's loop never runs).
    await this.stopLeaseExpiry();
    this.leaseExpiry = new LeaseExpiryLoop(this.current.leases, this.o.log);
    this.leaseExpiry.start();
    return this.current;
  }

  /** Stops the lease expiry loop (stepping down, sealing, closing); waits for a round in progress. */
  private async stopLeaseExpiry(): Promise<void> {
    const loop = this.leaseExpiry;
    this.leaseExpiry = undefined;
    await loop?.stop();
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
