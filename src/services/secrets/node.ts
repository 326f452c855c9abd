/**
 * One secrets server: its seal state and, while unsealed, its core. Sealed = no core
 * and no key in memory; every request that needs the core answers 503.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { CairnError } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { json, type Backend } from '../../kernel/store/index.js';
import { SecretsCore } from './core.js';
import { ROOT_NAMESPACE } from './namespace/registry.js';
import { SealManager, type InitResult } from './seal/seal.js';

/** Cairn's version, reported by seal-status, health and OpenAPI. */
export const VERSION = '0.1.0';

/** Options of {@link SecretsNode.open}. */
export interface SecretsNodeOptions {
  readonly backend: Backend;
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
}

/** The HA side of a node: the lock (kernel/store/pg-lock.ts), which publishes this server's addresses when it takes over. */
export interface NodeHa {
  readonly lock: {
    readonly isActive: boolean;
    readonly leader: { readonly leaderAddress: string; readonly clusterAddress: string } | undefined;
    start(events: { onActive(term: number): void | Promise<void>; onStandby(reason: string): void }): void;
    stop(): Promise<void>;
  };
}

/** The `sys/leader` body (reference: `ha_enabled`, `is_self`, addresses, `active_time`). */
export interface LeaderStatus {
  readonly ha_enabled: boolean;
  readonly is_self: boolean;
  readonly active_time: string;
  readonly leader_address: string;
  readonly leader_cluster_address: string;
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

  private constructor(
    readonly seal: SealManager,
    private readonly o: SecretsNodeOptions,
  ) {}

  /** Opens the node sealed. */
  static async open(o: SecretsNodeOptions): Promise<SecretsNode> {
    return new SecretsNode(await SealManager.load(o.backend, { storageType: o.storageType ?? 'sqlite', version: VERSION }), o);
  }

  /** The core, or undefined while sealed. */
  get core(): SecretsCore | undefined {
    return this.current;
  }

  /** The core; throws the 503 sealed error while sealed. */
  requireCore(): SecretsCore {
    if (!this.current) throw sealedError();
    return this.current;
  }

  /** Cluster name and id while unsealed. */
  get clusterInfo(): ClusterInfo | undefined {
    return this.current && this.cluster;
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

  /** The active server's address as the leader row says (`''` when unknown). */
  get leaderAddress(): string {
    return this.o.ha?.lock.leader?.leaderAddress ?? '';
  }

  /** The `sys/leader` body. */
  leaderStatus(): LeaderStatus {
    const lock = this.o.ha?.lock;
    const self = lock !== undefined && lock.isActive && !this.seal.sealed && this.current !== undefined;
    return {
      ha_enabled: lock !== undefined,
      is_self: self,
      active_time: self && this.activeSince ? this.activeSince.toISOString() : ZERO_TIME,
      leader_address: lock?.leader?.leaderAddress ?? '',
      leader_cluster_address: lock?.leader?.clusterAddress ?? '',
    };
  }

  /** Gives the HA lock up (the service is closing). */
  async stopHa(): Promise<void> {
    this.haStarted = false;
    await this.o.ha?.lock.stop();
  }

  /** The current time from the injected clock. */
  now(): Date {
    return this.o.clock?.() ?? new Date();
  }

  /**
   * `sys/init`: creates the keys and a root token, and stays sealed (reference/secrets.md
   * §3.1). Errors: see {@link SealManager.initialize}.
   */
  async initialize(shares: number, threshold: number): Promise<InitResult & { root_token: string }> {
    const result = await this.seal.initialize(shares, threshold);
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
    ha.lock.start({
      onActive: async () => {
        try {
          if (this.seal.sealed) return;
          await this.openCore();
          this.activeSince = this.now();
        } catch (err) {
          this.o.log.error({ err: (err as Error).message }, 'HA: cannot open the core after taking the lock');
        }
      },
      onStandby: () => {
        this.current = undefined;
        this.activeSince = undefined;
      },
    });
  }

  /** `sys/seal`: drops the core and the keys. */
  sealNow(): void {
    this.current = undefined;
    this.activeSince = undefined;
    this.seal.seal();
    if (this.o.ha && this.haStarted) {
      this.haStarted = false;
      void this.o.ha.lock.stop();
    }
  }

  private async openCore(): Promise<SecretsCore> {
    const storage = this.seal.unsealedStorage!;
    let cluster = json.decode<ClusterInfo>(await storage.get('core/cluster-info'));
    if (!cluster) {
      const id = randomUUID();
      cluster = { id, name: `cairn-cluster-${id.slice(0, 8)}` };
      await storage.put('core/cluster-info', json.encode(cluster));
    }
    this.cluster = cluster;
    this.current = await SecretsCore.open({ backend: storage, log: this.o.log, clock: this.o.clock });
    return this.current;
  }
}
