/**
 * What one namespace owns: its mount table and its policies, in the storage under
 * `namespaces/<id>/` (root: unprefixed). Each namespace has its own `sys/`,
 * `auth/token/` and `default` policy (reference/secrets.md §6).
 *
 * @module
 */
import { BackendView, listRecursive, type Backend } from '../../../kernel/store/index.js';
import { MountTable, type MountEntry, type MountInput } from '../mounts/table.js';
import { PolicyStore } from '../policy/store.js';
import type { NamespaceEntry } from './registry.js';

/** The storage prefix of a namespace's own state. */
const namespacePrefix = (e: NamespaceEntry): string => (e.path === '' ? '' : `namespaces/${e.id}/`);

/** The storage an engine mounted at `mount` owns: `logical/<uuid>/` (mount uuids are unique across namespaces). */
export const mountStorage = (backend: Backend, mount: MountEntry): Backend => new BackendView(backend, `logical/${mount.uuid}/`);

/** A namespace's mounts and policies. */
export class NamespaceScope {
  private constructor(
    readonly entry: NamespaceEntry,
    private readonly backend: Backend,
    readonly mounts: MountTable,
    readonly policies: PolicyStore,
  ) {}

  /** Loads (creating on first use) the namespace's mount table and policies. */
  static async open(entry: NamespaceEntry, backend: Backend): Promise<NamespaceScope> {
    const prefix = namespacePrefix(entry);
    const own = prefix === '' ? backend : new BackendView(backend, prefix);
    return new NamespaceScope(entry, backend, await MountTable.load(own), await PolicyStore.open(own));
  }

  /** `''` for root, else `a/b/`. */
  get path(): string {
    return this.entry.path;
  }

  /** Whether a policy named `name` exists in this namespace (`root` always does). */
  knownPolicy(name: string): Promise<boolean> {
    return this.policies.exists(name);
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
    if (entry) await deleteAll(mountStorage(this.backend, entry));
  }

  /** Deletes every mount's data and the namespace's own state (namespace deletion). */
  async destroy(): Promise<void> {
    for (const m of this.mounts.list()) await deleteAll(mountStorage(this.backend, m));
    const prefix = namespacePrefix(this.entry);
    if (prefix !== '') await deleteAll(new BackendView(this.backend, prefix));
  }
}

/** Deletes every key of `storage`, 1,000 per atomic batch. */
export async function deleteAll(storage: Backend): Promise<void> {
  const keys = await listRecursive(storage, '');
  for (let i = 0; i < keys.length; i += 1000) await storage.batch(keys.slice(i, i + 1000).map((key) => ({ key })));
}
