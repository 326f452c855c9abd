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
}

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
    await this.openCore();
  }

  /** `sys/seal`: drops the core and the keys. */
  sealNow(): void {
    this.current = undefined;
    this.seal.seal();
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
