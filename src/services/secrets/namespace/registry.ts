/**
 * The namespace registry (spec 000 "Authentication" 5–7; reference/secrets.md §3.8, §6):
 * which namespaces exist, kept in root storage at `core/namespaces/<id>` and in memory.
 * Each namespace owns the storage under `namespaces/<id>/` (its mount table, policies
 * and auth-method data live there); the root namespace owns the unprefixed keys.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';
import { randomBase62 } from '../../../kernel/util/base62.js';

/** One namespace. `path` is `''` for root, else `a/` or `a/b/`. */
export interface NamespaceEntry {
  readonly id: string;
  readonly path: string;
  custom_metadata: Record<string, string>;
}

/** The root namespace. */
export const ROOT_NAMESPACE: NamespaceEntry = Object.freeze({ id: 'root', path: '', custom_metadata: {} });

/** Where namespace entries are stored (root storage): `core/namespaces/<id>`. */
export const NAMESPACE_PREFIX = 'core/namespaces/';
/** Names the reference refuses (reference/secrets.md §3.8). */
const RESERVED = new Set(['root', 'sys', 'audit', 'auth', 'cubbyhole', 'identity', '.', '..']);
const NAME = /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

/**
 * `X-Secrets-Namespace` canonicalised: no leading `/`, one trailing `/`, `root` and
 * empty mean the root namespace (`''`) (reference/secrets.md §6; reference/clients.md:
 * some clients always send an empty header).
 */
export function canonicalNamespace(header: string | undefined): string {
  const p = (header ?? '').trim().replace(/^\/+/, '').replace(/\/+$/, '');
  return p === '' || p === 'root' ? '' : p + '/';
}

/** All namespaces, by path. */
export class NamespaceRegistry {
  private readonly byPath = new Map<string, NamespaceEntry>([['', ROOT_NAMESPACE]]);
  private readonly lock = new KeyedLock();

  private constructor(private readonly storage: Backend) {}

  /** Loads every namespace entry. */
  static async load(storage: Backend): Promise<NamespaceRegistry> {
    const r = new NamespaceRegistry(storage);
    for (const id of await storage.list(NAMESPACE_PREFIX)) {
      const e = json.decode<NamespaceEntry>(await storage.get(NAMESPACE_PREFIX + id));
      if (e) r.byPath.set(e.path, e);
    }
    return r;
  }

  /** The namespace at `path` (canonical), or undefined. */
  get(path: string): NamespaceEntry | undefined {
    return this.byPath.get(path);
  }

  /** Every namespace, the root first. */
  all(): NamespaceEntry[] {
    return [...this.byPath.values()];
  }

  /** The namespace with id `id`, or undefined. */
  byId(id: string): NamespaceEntry | undefined {
    if (id === ROOT_NAMESPACE.id) return ROOT_NAMESPACE;
    for (const e of this.byPath.values()) if (e.id === id) return e;
    return undefined;
  }

  /** The deepest existing namespace whose path is a prefix of `path` (root at least). */
  longestPrefix(path: string): NamespaceEntry {
    let best = ROOT_NAMESPACE;
    for (const e of this.byPath.values()) if (e.path.length > best.path.length && path.startsWith(e.path)) best = e;
    return best;
  }

  /** Direct children of `parent`, sorted by path. */
  children(parent: NamespaceEntry): NamespaceEntry[] {
    return [...this.byPath.values()]
      .filter((e) => e.path !== parent.path && e.path.startsWith(parent.path) && !e.path.slice(parent.path.length, -1).includes('/'))
      .sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * Creates namespace `name` under `parent`. Errors (400): a name that is empty,
   * reserved or not `[A-Za-z0-9_.-]` (no `/`), or one that exists.
   */
  create(parent: NamespaceEntry, name: string, customMetadata: Record<string, string>): Promise<NamespaceEntry> {
    return this.lock.run('registry', async () => {
      if (!NAME.test(name) || RESERVED.has(name))
        throw badRequest(`namespace name "${name}" is invalid: use letters, digits, "-", "_" and inner "."; not ${[...RESERVED].join(', ')}`);
      const path = parent.path + name + '/';
      if (this.byPath.has(path)) throw badRequest(`namespace "${path}" already exists`);
      const entry: NamespaceEntry = { id: this.newId(), path, custom_metadata: customMetadata };
      await this.storage.put(NAMESPACE_PREFIX + entry.id, json.encode(entry));
      this.byPath.set(path, entry);
      return entry;
    });
  }

  /** Replaces the custom metadata of `entry`. */
  setMetadata(entry: NamespaceEntry, customMetadata: Record<string, string>): Promise<void> {
    return this.lock.run('registry', async () => {
      const next = { ...entry, custom_metadata: customMetadata };
      await this.storage.put(NAMESPACE_PREFIX + entry.id, json.encode(next));
      this.byPath.set(entry.path, next);
    });
  }

  /** Removes `entry` from the registry (its data is the caller's to delete first). Error (400) when it has children. */
  remove(entry: NamespaceEntry): Promise<void> {
    return this.lock.run('registry', async () => {
      if (this.children(entry).length) throw badRequest(`cannot delete namespace "${entry.path}": it contains child namespaces`);
      await this.storage.delete(NAMESPACE_PREFIX + entry.id);
      this.byPath.delete(entry.path);
    });
  }

  /**
   * Reads the entry of namespace `id` again (another server created, changed or deleted
   * it); never writes. Returns the entry it replaced or removed, if any.
   */
  refresh(id: string): Promise<NamespaceEntry | undefined> {
    return this.lock.run('registry', async () => {
      const fresh = json.decode<NamespaceEntry>(await this.storage.get(NAMESPACE_PREFIX + id));
      const old = this.byId(id);
      if (old && old !== ROOT_NAMESPACE) this.byPath.delete(old.path);
      if (fresh) this.byPath.set(fresh.path, fresh);
      return old === ROOT_NAMESPACE ? undefined : old;
    });
  }

  private newId(): string {
    for (;;) {
      const id = randomBase62(5);
      if (!this.byId(id)) return id;
    }
  }
}
