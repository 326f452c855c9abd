/**
 * The secrets service's unsealed state: the barrier storage, the token store, CORS, the
 * namespace registry and each namespace's mounts and policies. Route handlers reach it
 * through `req.core`, and their own namespace through `req.ns`.
 *
 * @module
 */
import type { Backend } from '../../kernel/store/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import { KeyedLock } from '../../kernel/util/keyed-lock.js';
import { AuditBroker } from './audit/broker.js';
import { CorsStore } from './cors.js';
import type { HaStatusNode } from './ha/nodes.js';
import { tokenLeaseHooks } from './lease/token-lease.js';
import { LeaseManager, type LeaseTarget } from './lease/manager.js';
import type { SecretLeaseHandlers } from './lease/handlers.js';
import { EngineResources } from './engine-resources.js';
import type { MountEntry } from './mounts/table.js';
import { NamespaceRegistry, ROOT_NAMESPACE, type NamespaceEntry } from './namespace/registry.js';
import { mountStorage, NamespaceScope } from './namespace/scope.js';
import { sudoRequired } from './policy/acl.js';
import type { Capability } from './policy/parse.js';
import { templateIdentity, TokenStore, type TokenEntry } from './token/store.js';
import { cubbyholeReaper } from './wrapping/cubbyhole-store.js';

/** What an engine's `periodic` is given (types.ts `Engine.periodic`): one mount, its storage and the active core. */
export interface EnginePeriodicContext {
  readonly mount: MountEntry;
  /** The mount's own storage (keys under `logical/<uuid>/`). */
  readonly storage: Backend;
  readonly core: SecretsCore;
  /** The round's time (injected clock). */
  readonly now: Date;
}

/**
 * What the core needs of the engine registry (engines.ts `CORE_ENGINES`), handed in: the
 * registry holds every route table, and the route handlers reach the core.
 */
export interface CoreEngines {
  /** How the engine serving `mount` renews and revokes its leases; undefined when it issues none. */
  leasesFor(mount: MountEntry): SecretLeaseHandlers | undefined;
  /** Engine types users may mount through `sys/mounts`. */
  readonly mountable: ReadonlySet<string>;
  /** The engine serving `mount`'s background work (types.ts `Engine.periodic`); undefined when it has none. */
  periodicFor(mount: MountEntry): ((ctx: EnginePeriodicContext) => Promise<void>) | undefined;
}

/** Options of {@link SecretsCore.open}. */
export interface SecretsCoreOptions {
  readonly backend: Backend;
  readonly engines: CoreEngines;
  readonly log: Logger;
  /** Injected clock (tests); default `() => new Date()`. */
  readonly clock?: () => Date;
  /** The server's metrics, served by `sys/metrics`. */
  readonly metrics?: ServiceMetrics;
  /** The server's audit devices (kept across cores: their files stay open); loaded from `backend` here. Default: a new broker. */
  readonly audit?: AuditBroker;
  /** The active server's `sys/ha-status` nodes (node.ts); absent on a performance standby's core, which forwards that path. */
  readonly haStatus?: () => Promise<HaStatusNode[]>;
}

/** What {@link SecretsCore.open} loads from the backend before the core exists. */
interface LoadedState {
  readonly tokens: TokenStore;
  readonly cors: CorsStore;
  readonly namespaces: NamespaceRegistry;
  readonly root: NamespaceScope;
  readonly audit: AuditBroker;
}

/** Where and how {@link SecretsCore.allowed} checks a capability (each optional). */
export interface AllowedCheck {
  /** The namespace `path` is relative to; default the root namespace. */
  readonly ns?: NamespaceEntry;
  /** The request's body fields (query parameters for a read), checked against the rule's parameter constraints; absent: capabilities only. */
  readonly data?: Readonly<Record<string, unknown>> | undefined;
  /** The request's wrap TTL in seconds (`null`: it asks for none), checked against the rule's wrapping TTLs; absent: not checked. */
  readonly wrapTtlS?: number | null | undefined;
}

/** The secrets service's core while unsealed. */
export class SecretsCore {
  private readonly scopes = new Map<string, NamespaceScope>();
  private readonly opening = new KeyedLock();
  /** Each mount's storage view, made once per mount entry (a remounted or tuned mount is a new entry). */
  private readonly mountViews = new WeakMap<MountEntry, Backend>();
  /** The leases of secrets (lease/manager.ts); a revoked token's leases go with it. */
  readonly leases: LeaseManager;
  /** What engines keep open while this core lives (database connection pools); closed with the core (engine-resources.ts). */
  readonly resources = new EngineResources();

  readonly backend: Backend;
  readonly tokens: TokenStore;
  readonly cors: CorsStore;
  readonly namespaces: NamespaceRegistry;
  /** The root namespace's mounts and policies. */
  readonly root: NamespaceScope;
  readonly log: Logger;
  private readonly clock: () => Date;
  /** The server's metrics (`sys/metrics`); undefined when it keeps none. */
  readonly metrics: ServiceMetrics | undefined;
  /** The audit devices every request is logged to (audit/). */
  readonly audit: AuditBroker;
  /** `sys/ha-status`'s nodes: see {@link SecretsCoreOptions.haStatus}. */
  readonly haStatus: (() => Promise<HaStatusNode[]>) | undefined;
  private readonly engines: CoreEngines;

  private constructor(o: SecretsCoreOptions, loaded: LoadedState) {
    this.backend = o.backend;
    this.tokens = loaded.tokens;
    this.cors = loaded.cors;
    this.namespaces = loaded.namespaces;
    this.root = loaded.root;
    this.log = o.log;
    this.clock = o.clock ?? (() => new Date());
    this.metrics = o.metrics;
    this.audit = loaded.audit;
    this.haStatus = o.haStatus;
    this.engines = o.engines;
    this.scopes.set(ROOT_NAMESPACE.id, this.root);
    const { backend, tokens, clock, log } = this;
    this.leases = new LeaseManager({ backend, tokens, clock, log, resolve: (nsId, uuid) => this.leaseTarget(nsId, uuid) });
    tokens.onRevoke((entry) => this.leases.revokeByToken(entry.hash));
    tokens.keepLeases(tokenLeaseHooks(backend, clock));
  }

  /** Loads the root namespace (creating the built-in mounts and the `default` policy on first start), CORS, the namespace registry and the audit devices. */
  static async open(o: SecretsCoreOptions): Promise<SecretsCore> {
    const audit = o.audit ?? new AuditBroker(o.log);
    const [root, cors, namespaces] = await Promise.all([
      NamespaceScope.open(ROOT_NAMESPACE, o.backend),
      CorsStore.open(o.backend),
      NamespaceRegistry.load(o.backend),
      audit.load(o.backend),
    ]);
    const tokens = new TokenStore(o.backend);
    tokens.onRevoke(cubbyholeReaper(o.backend));
    return new SecretsCore(o, { tokens, cors, namespaces, root, audit });
  }

  /** The current time from the injected clock. */
  now(): Date {
    return this.clock();
  }

  /** The scope of a namespace, loaded once. */
  async scope(entry: NamespaceEntry): Promise<NamespaceScope> {
    const cached = this.scopes.get(entry.id);
    if (cached) return cached;
    return this.opening.run(entry.id, async () => {
      let s = this.scopes.get(entry.id);
      if (!s) this.scopes.set(entry.id, (s = await NamespaceScope.open(entry, this.backend)));
      return s;
    });
  }

  /** The scope of namespace `id` if it is loaded (a performance standby refreshes only what it holds). */
  loadedScope(id: string): NamespaceScope | undefined {
    return this.scopes.get(id);
  }

  /** Forgets a deleted namespace's scope. */
  dropScope(entry: NamespaceEntry): void {
    this.scopes.delete(entry.id);
  }

  /** The storage an engine mounted at `mount` owns: `logical/<uuid>/…`. */
  storageFor(mount: MountEntry): Backend {
    let view = this.mountViews.get(mount);
    if (!view) this.mountViews.set(mount, (view = mountStorage(this.backend, mount)));
    return view;
  }

  /** The mount with uuid `uuid` in namespace `nsId` and its engine's lease callbacks; undefined once gone. */
  private async leaseTarget(nsId: string, uuid: string): Promise<LeaseTarget | undefined> {
    const entry = this.namespaces.byId(nsId);
    const mount = entry && (await this.scope(entry)).mounts.list().find((m) => m.uuid === uuid);
    return mount && { mount, storage: this.storageFor(mount), resources: this.resources, handlers: this.engines.leasesFor(mount) };
  }

  /**
   * One round of the engines' background work (mounts/periodic.ts): each mount of every
   * namespace whose engine has `periodic`, in turn. A mount's failure goes to `onError`
   * and the round goes on.
   */
  async runPeriodic(onError: (mount: MountEntry, err: Error) => void): Promise<void> {
    for (const entry of this.namespaces.all()) {
      for (const mount of (await this.scope(entry)).mounts.list()) {
        const periodic = this.engines.periodicFor(mount);
        if (!periodic) continue;
        try {
          await periodic({ mount, storage: this.storageFor(mount), core: this, now: this.clock() });
        } catch (err) {
          onError(mount, err as Error);
        }
      }
    }
  }

  /** Whether users may mount engines of `type`. */
  engineKnown(type: string): boolean {
    return this.engines.mountable.has(type);
  }

  /**
   * Whether `token` may use `capability` on `path` (relative to `/v1/` in namespace
   * `check.ns`; list paths end in `/`). A token acts in its own namespace and the ones below
   * it, never above or beside (reference/secrets.md §6); its policies are those of its
   * own namespace, applied to the path as seen from there. A root-protected path also
   * needs `sudo` (§5.2); root tokens hold everything in reach. `check.data` is checked
   * against the governing rule's parameter constraints ({@link Acl.allowed}) and
   * `check.wrapTtlS` against its `min_wrapping_ttl` / `max_wrapping_ttl`.
   */
  async allowed(
    token: TokenEntry,
    path: string,
    capability: Exclude<Capability, 'deny'>,
    { ns = ROOT_NAMESPACE, data, wrapTtlS }: AllowedCheck = {},
  ): Promise<boolean> {
    const home = this.namespaces.byId(token.namespace_id ?? ROOT_NAMESPACE.id);
    if (!home || !ns.path.startsWith(home.path)) return false;
    const acl = await (await this.scope(home)).policies.acl(token.policies, templateIdentity(token));
    return acl.allowed(ns.path.slice(home.path.length) + path, capability, { sudo: sudoRequired(path), data, wrapTtlS });
  }

  /**
   * Whether `token` may use anything of the mount at `mountPath` (ending in `/`) in
   * namespace `ns` ({@link Acl.mountAccess}); the namespace rules of {@link allowed}.
   */
  async mountVisible(token: TokenEntry, mountPath: string, ns: NamespaceEntry = ROOT_NAMESPACE): Promise<boolean> {
    const home = this.namespaces.byId(token.namespace_id ?? ROOT_NAMESPACE.id);
    if (!home || !ns.path.startsWith(home.path)) return false;
    const acl = await (await this.scope(home)).policies.acl(token.policies, templateIdentity(token));
    return acl.mountAccess(ns.path.slice(home.path.length) + mountPath);
  }
}
