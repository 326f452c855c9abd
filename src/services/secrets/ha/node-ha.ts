/**
 * A secrets server's active/standby side (`storage "postgresql" { ha_enabled }`): taking
 * part in the HA lock once unsealed, opening the active core when the lock is ours and
 * dropping it when it is lost or a write was fenced, the performance standby's read-only
 * core in between, and what `sys/leader` and `sys/ha-status` report. The node (node.ts)
 * owns the cores and the seal; this module decides when they open and close.
 *
 * @module
 */
import { hostname } from 'node:os';
import type { Logger } from '../../../kernel/log/logger.js';
import { VERSION } from '../../../kernel/version/index.js';
import type { SecretsCore } from '../core.js';
import type { SealManager } from '../seal/seal.js';
import type { HaStatusNode } from './nodes.js';
import { PerformanceStandby, type ChangeFeed } from './perf-standby.js';

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

/** What the HA side works with: the node's seal, options and cores (node.ts `SecretsNode`). */
export interface HaNodeParts {
  readonly seal: SealManager;
  readonly log: Logger;
  /** The lock; undefined without HA (the server is always active). */
  readonly ha?: NodeHa;
  /** See `SecretsNodeOptions.changeFeed`: without it, no performance standby. */
  readonly changeFeed?: ChangeFeed;
  /** `false` = `disable_performance_standby = true`. */
  readonly performanceStandby?: boolean;
  /** This server's API address, for `sys/ha-status` without HA. */
  readonly apiAddress?: () => string;
  now(): Date;
  /** The active core, while open. */
  activeCore(): SecretsCore | undefined;
  /** Opens the active core (writable). @throws the storage's error. */
  openCore(): Promise<unknown>;
  /** Opens a performance standby's read-only core. @throws when the cluster identity is not stored yet. */
  openReadOnlyCore(): Promise<SecretsCore>;
  /** Drops the active core (its loops stop and its engines' resources close in the background). */
  dropCore(): void;
  /** Stops the active core's loops (lease expiry, engines' periodic work); waits for rounds in progress. */
  stopActiveLoops(): Promise<void>;
}

/** See the module doc. One per node. */
export class NodeHaRole {
  private activeSince: Date | undefined;
  private started = false;
  /** The read-only core while a performance standby. */
  private perf: PerformanceStandby | undefined;

  constructor(private readonly n: HaNodeParts) {}

  /** The performance standby's read-only core, while it has one. */
  get standbyCore(): SecretsCore | undefined {
    return this.perf?.core;
  }

  /** Whether active/standby is on (`ha_enabled`). */
  get enabled(): boolean {
    return this.n.ha !== undefined;
  }

  /**
   * An HA standby: unsealed, but not serving: another server holds the lock (or none is
   * known yet), or this one just took it and its core is still opening ({@link activating}).
   */
  get standby(): boolean {
    return this.n.ha !== undefined && !this.n.seal.sealed && !(this.n.ha.lock.isActive && this.n.activeCore() !== undefined);
  }

  /** Holds the HA lock but the core is not open yet (a few milliseconds after taking over). */
  get activating(): boolean {
    return this.n.ha !== undefined && !this.n.seal.sealed && this.n.ha.lock.isActive && this.n.activeCore() === undefined;
  }

  /** A standby serving reads itself: its read-only core is loaded and kept current (health 473). */
  get performanceStandby(): boolean {
    return this.standby && this.perf?.core !== undefined;
  }

  /** A performance standby's applied change index (perf-standby.ts); 0 otherwise. */
  get appliedIndex(): number {
    return this.perf?.appliedIndex ?? 0;
  }

  /** The active server's address as the leader row says (`''` when unknown). */
  get leaderAddress(): string {
    return this.n.ha?.lock.leader?.leaderAddress ?? '';
  }

  /** Re-reads the leader row now; no-op without HA. @throws the database's error. */
  async refreshLeader(): Promise<void> {
    await this.n.ha?.lock.refreshLeader();
  }

  /** The `sys/leader` body. */
  leaderStatus(): LeaderStatus {
    const lock = this.n.ha?.lock;
    const self = lock !== undefined && lock.isActive && !this.n.seal.sealed && this.n.activeCore() !== undefined;
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
    const lock = this.n.ha?.lock;
    const self: HaStatusNode = {
      hostname: hostname(),
      api_address: lock?.leader?.leaderAddress ?? this.n.apiAddress?.() ?? '',
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
  async stop(): Promise<void> {
    this.started = false;
    this.stopPerf();
    await this.n.stopActiveLoops();
    await this.n.ha?.lock.stop();
  }

  /**
   * A write of this server was refused by the fence: another server is active now. Stops
   * serving as the active one at once and takes part in the lock again (the lock may not
   * have noticed yet: its connection can outlive the term it held).
   */
  stepDown(reason: string): void {
    const ha = this.n.ha;
    if (!ha || !this.started || this.n.activeCore() === undefined) return;
    this.n.log.warn({ reason }, 'HA: a write was refused by the fence; stepping down to standby');
    this.becomeStandby();
    this.started = false;
    void ha.lock.stop().then(() => {
      if (!this.n.seal.sealed) this.start();
    });
  }

  /**
   * Unsealed with HA: a standby until the lock is ours, then the core opens (the active
   * server); losing the lock drops the core at once and waits again (the keys stay, as
   * in the reference's step-down). No-op without HA or when already taking part.
   */
  start(): void {
    const ha = this.n.ha;
    if (!ha || this.started) return;
    this.started = true;
    this.startPerf();
    ha.lock.start({
      onActive: async () => {
        try {
          if (this.n.seal.sealed) return;
          // The standby's caches may miss a change still on its way: the active core starts from storage.
          this.stopPerf();
          this.n.seal.unsealedStorage?.invalidate();
          await this.n.openCore();
          this.activeSince = this.n.now();
        } catch (err) {
          this.n.log.error({ err: (err as Error).message }, 'HA: cannot open the core after taking the lock');
        }
      },
      onStandby: () => this.becomeStandby(),
    });
  }

  /** Sealing: the standby core and the active time go (called before the keys are dropped). */
  beforeSeal(): void {
    this.stopPerf();
    this.activeSince = undefined;
  }

  /** Sealed: stops taking part in the lock (called once the keys are dropped). */
  afterSeal(): void {
    if (this.n.ha && this.started) {
      this.started = false;
      void this.n.ha.lock.stop();
    }
  }

  /** Drops the active core; a performance standby again when configured. */
  private becomeStandby(): void {
    this.n.dropCore();
    this.activeSince = undefined;
    if (!this.n.seal.sealed) this.startPerf();
  }

  /** Opens the read-only core kept current from the change feed (performance standby), when configured. */
  private startPerf(): void {
    const feed = this.n.changeFeed;
    const barrier = this.n.seal.unsealedStorage;
    if (this.perf || !feed || !barrier || this.n.performanceStandby === false) return;
    this.perf = new PerformanceStandby({ feed, barrier, log: this.n.log, open: () => this.n.openReadOnlyCore() });
    this.perf.start();
  }

  private stopPerf(): void {
    this.perf?.stop();
    this.perf = undefined;
  }
}
