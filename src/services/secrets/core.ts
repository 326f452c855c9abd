/**
 * The secrets service's state and the operations that span several parts of it
 * (mounting an engine, unmounting and deleting its data). Route handlers reach it
 * through `req.core`.
 *
 * @module
 */
import { BackendView, listRecursive, type Backend } from '../../kernel/store/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { CorsStore } from './cors.js';
import { MOUNTABLE_TYPES } from './engines.js';
import { MountTable, type MountEntry, type MountInput } from './mounts/table.js';
import { sudoRequired } from './policy/acl.js';
import type { Capability } from './policy/parse.js';
import { PolicyStore } from './policy/store.js';
import { TokenStore, type TokenEntry } from './token/store.js';

/** Options of {@link SecretsCore.open}. */
export interface SecretsCoreOptions {
  readonly backend: Backend;
  readonly log: Logger;
  /** Injected clock (tests); default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** The secrets service's core: storage, mount table, token store, policy store, clock. */
export class SecretsCore {
  private constructor(
    readonly backend: Backend,
    readonly mounts: MountTable,
    readonly tokens: TokenStore,
    readonly policies: PolicyStore,
    readonly cors: CorsStore,
    readonly log: Logger,
    private readonly clock: () => Date,
  ) {}

  /** Loads the mount table and the policy store (creating the built-in mounts and the `default` policy on first start). */
  static async open(o: SecretsCoreOptions): Promise<SecretsCore> {
    const mounts = await MountTable.load(o.backend);
    const policies = await PolicyStore.open(o.backend);
    const cors = await CorsStore.open(o.backend);
    return new SecretsCore(o.backend, mounts, new TokenStore(o.backend), policies, cors, o.log, o.clock ?? (() => new Date()));
  }

  /** The current time from the injected clock. */
  now(): Date {
    return this.clock();
  }

  /** The storage an engine mounted at `mount` owns: `logical/<uuid>/…`. */
  storageFor(mount: MountEntry): Backend {
    return new BackendView(this.backend, `logical/${mount.uuid}/`);
  }

  /** Whether users may mount engines of `type`. */
  engineKnown(type: string): boolean {
    return MOUNTABLE_TYPES.has(type);
  }

  /** Whether a policy named `name` exists (`root` always does). */
  knownPolicy(name: string): Promise<boolean> {
    return this.policies.exists(name);
  }

  /**
   * Whether `token`'s policies grant `capability` on `path` (relative to `/v1/`; list
   * paths end in `/`). A root-protected path also needs `sudo` (reference/secrets.md
   * §5.2); root tokens hold everything. Rules: `Acl.allowed` in `policy/acl.ts`.
   */
  async allowed(token: TokenEntry, path: string, capability: Exclude<Capability, 'deny'>): Promise<boolean> {
    const acl = await this.policies.acl(token.policies);
    return acl.allowed(path, capability, { sudo: sudoRequired(path) });
  }

  /** Mounts an engine (errors: see {@link MountTable.mount}). */
  mountEngine(path: string, input: MountInput): Promise<MountEntry> {
    return this.mounts.mount(path, input);
  }

  /**
   * Unmounts the engine at `path` and deletes all its data; idempotent. The entry goes
   * first, so no request can reach data that is being deleted.
   */
  async unmountEngine(path: string): Promise<void> {
    const entry = await this.mounts.unmount(path);
    if (!entry) return;
    const storage = this.storageFor(entry);
    const keys = await listRecursive(storage, '');
    for (let i = 0; i < keys.length; i += 1000) {
      await storage.batch(keys.slice(i, i + 1000).map((key) => ({ key })));
    }
  }
}
