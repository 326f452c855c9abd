/**
 * The secrets service's state and the operations that span several parts of it
 * (mounting an engine, unmounting and deleting its data). Route handlers reach it
 * through `req.core`.
 *
 * @module
 */
import { BackendView, listRecursive, type Backend } from '../../kernel/store/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { MOUNTABLE_TYPES } from './engines.js';
import { MountTable, type MountEntry, type MountInput } from './mounts/table.js';
import { TokenStore, type TokenEntry } from './token/store.js';

/** Options of {@link SecretsCore.open}. */
export interface SecretsCoreOptions {
  readonly backend: Backend;
  readonly log: Logger;
  /** Injected clock (tests); default `() => new Date()`. */
  readonly clock?: () => Date;
}

/** Policies every installation has (reference/secrets.md §3.7). */
const BUILTIN_POLICIES = new Set(['root', 'default']);

/**
 * Paths the built-in `default` policy grants to every token (reference/secrets.md §4.1:
 * a token may always look itself up, renew and revoke itself). Full policies: issue 3.
 */
const DEFAULT_POLICY: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['auth/token/lookup-self', new Set(['read'])],
  ['auth/token/renew-self', new Set(['update'])],
  ['auth/token/revoke-self', new Set(['update'])],
]);

/** The secrets service's core: storage, mount table, token store, clock. */
export class SecretsCore {
  private constructor(
    readonly backend: Backend,
    readonly mounts: MountTable,
    readonly tokens: TokenStore,
    readonly log: Logger,
    private readonly clock: () => Date,
  ) {}

  /** Loads the mount table (creating the built-in mounts on first start). */
  static async open(o: SecretsCoreOptions): Promise<SecretsCore> {
    const mounts = await MountTable.load(o.backend);
    return new SecretsCore(o.backend, mounts, new TokenStore(o.backend), o.log, o.clock ?? (() => new Date()));
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

  /** Whether a policy named `name` exists (built-ins only until policies can be written). */
  knownPolicy(name: string): boolean {
    return BUILTIN_POLICIES.has(name);
  }

  /**
   * Whether `token` holds `capability` on `path` (relative to `/v1/`). Root tokens hold
   * every capability; other tokens hold what the `default` policy grants.
   */
  allowed(token: TokenEntry, path: string, capability: string): boolean {
    if (token.policies.includes('root')) return true;
    return token.policies.includes('default') && (DEFAULT_POLICY.get(path)?.has(capability) ?? false);
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
