/**
 * The mount table: which engine serves which path prefix (reference/secrets.md §3.5).
 * Persisted as one JSON document at `core/mounts`; routing picks the longest mounted
 * prefix of the request path (DESIGN.md "Routes are data").
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest } from '../../../kernel/http/index.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';

/** Seconds: the reference's system default and maximum lease TTL, 768 h. */
export const DEFAULT_LEASE_TTL_S = 768 * 3600;

/** One mounted engine (the wire shape of `GET sys/mounts/:path`, plus `path`). */
export interface MountEntry {
  /** Mount path with a trailing `/`, e.g. `secret/`, `auth/token/`. */
  readonly path: string;
  readonly type: string;
  description: string;
  readonly accessor: string;
  readonly uuid: string;
  config: { default_lease_ttl: number; max_lease_ttl: number; force_no_cache: boolean };
  options: Record<string, string> | null;
  readonly local: boolean;
  readonly seal_wrap: boolean;
  readonly external_entropy_access: boolean;
}

/** Input of {@link MountTable.mount}. */
export interface MountInput {
  type: string;
  description?: string;
  options?: Record<string, string> | null;
  config?: { default_lease_ttl?: number; max_lease_ttl?: number; force_no_cache?: boolean };
  local?: boolean;
  seal_wrap?: boolean;
}

/** Where the table is stored, relative to the namespace's storage. */
export const TABLE_KEY = 'core/mounts';
/** Prefixes users may not mount at (reference/secrets.md §3.5). */
const RESERVED = ['sys/', 'auth/', 'audit/', 'cubbyhole/', 'identity/'];
/** Engine types of the built-in mounts, which are never unmounted or moved. */
const BUILT_IN = ['system', 'token', 'cubbyhole'];

/** Normalises a user-supplied mount path: no leading `/`, exactly one trailing `/`. */
export function normalizeMountPath(path: string): string {
  const p = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return p === '' ? '' : p + '/';
}

/** The in-memory mount table, written through to storage on every change. */
export class MountTable {
  private entries: MountEntry[] = [];
  /** Changes are serialised so two concurrent mounts cannot both pass the clash check. */
  private readonly lock = new KeyedLock();

  private constructor(private readonly storage: Backend) {}

  /**
   * Loads the table, creating the built-in `sys/`, `auth/token/` and `cubbyhole/` mounts
   * on first start. A table stored before `cubbyhole/` existed gets it in memory (stored
   * with the next change): loading never writes then, so a standby can load it too.
   */
  static async load(storage: Backend): Promise<MountTable> {
    const t = new MountTable(storage);
    t.entries = t.withCubbyhole(json.decode<MountEntry[]>(await storage.get(TABLE_KEY)) ?? []);
    if (!t.entries.some((e) => e.path === 'sys/')) {
      t.entries.push(t.entry('sys/', { type: 'system', description: 'system endpoints used for control, policy and debugging' }));
      t.entries.push(t.entry('auth/token/', { type: 'token', description: 'token based credentials' }));
      await t.save(t.entries);
    }
    return t;
  }

  /** The built-in `cubbyhole/` entry made for a table stored without one; the same object on every reload. */
  private cubbyhole?: MountEntry;

  /** `entries` with the built-in `cubbyhole/` mount (the reference mounts it in every namespace). */
  private withCubbyhole(entries: MountEntry[]): MountEntry[] {
    if (entries.some((e) => e.type === 'cubbyhole')) return entries;
    this.cubbyhole ??= this.entry('cubbyhole/', { type: 'cubbyhole', description: 'per-token private secret storage' });
    return [...entries, this.cubbyhole];
  }

  /**
   * Reads the table again (another server changed it: a performance standby's cache
   * invalidation). Never writes; a missing document leaves the table empty.
   */
  reload(): Promise<void> {
    return this.lock.run('table', async () => {
      this.entries = this.withCubbyhole(json.decode<MountEntry[]>(await this.storage.get(TABLE_KEY)) ?? []);
    });
  }

  /** All entries, sorted by path. */
  list(): readonly MountEntry[] {
    return [...this.entries].sort((a, b) => a.path.localeCompare(b.path));
  }

  /** The entry whose path is the longest prefix of `path` (relative, no leading `/`). */
  route(path: string): MountEntry | undefined {
    let best: MountEntry | undefined;
    for (const e of this.entries) {
      if ((path + '/').startsWith(e.path) && (!best || e.path.length > best.path.length)) best = e;
    }
    return best;
  }

  /** The entry mounted exactly at `path`. */
  get(path: string): MountEntry | undefined {
    const p = normalizeMountPath(path);
    return this.entries.find((e) => e.path === p);
  }

  /**
   * Mounts an engine. Errors (400): empty or reserved path, a path that is a prefix of
   * or lies under an existing mount (`path is already in use at <p>`).
   */
  mount(path: string, input: MountInput): Promise<MountEntry> {
    return this.lock.run('table', () => this.mountLocked(path, input));
  }

  private async mountLocked(path: string, input: MountInput): Promise<MountEntry> {
    const p = normalizeMountPath(path);
    if (p === '') throw badRequest('path cannot be empty');
    if (RESERVED.some((r) => p.startsWith(r))) throw badRequest(`cannot mount "${p}": the path is reserved`);
    return this.insertLocked(p, input);
  }

  /**
   * Enables an auth method at `auth/<path>/` (reference/secrets.md §3.6), in this same
   * table. Errors (400): empty path, a path that is a prefix of or lies under an existing
   * entry (`path is already in use at auth/<p>/`).
   */
  mountAuth(path: string, input: MountInput): Promise<MountEntry> {
    return this.lock.run('table', async () => {
      const p = normalizeMountPath(path);
      if (p === '') throw badRequest('path cannot be empty');
      return this.insertLocked('auth/' + p, input);
    });
  }

  /** Disables the auth method at `auth/<path>/`; returns the removed entry (errors as {@link unmount}). */
  unmountAuth(path: string): Promise<MountEntry | undefined> {
    return this.lock.run('table', () => this.unmountLocked('auth/' + normalizeMountPath(path), true));
  }

  private async insertLocked(p: string, input: MountInput): Promise<MountEntry> {
    const clash = this.entries.find((e) => p.startsWith(e.path) || e.path.startsWith(p));
    if (clash) throw badRequest(`path is already in use at ${clash.path}`);
    const entry = this.entry(p, input);
    await this.save([...this.entries, entry]);
    return entry;
  }

  /**
   * Unmounts `path`; returns the removed entry (undefined when nothing was mounted there).
   * Errors (400): the built-in `sys/`, `auth/token/` and `cubbyhole/` entries, and auth methods (those
   * go through {@link unmountAuth}).
   */
  unmount(path: string): Promise<MountEntry | undefined> {
    return this.lock.run('table', () => this.unmountLocked(normalizeMountPath(path), false));
  }

  /** `auth`: whether the caller disables an auth method; secrets and auth entries are never crossed. */
  private async unmountLocked(p: string, auth: boolean): Promise<MountEntry | undefined> {
    const entry = this.entries.find((e) => e.path === p);
    if (!entry) return undefined;
    if (BUILT_IN.includes(entry.type)) throw badRequest(`cannot unmount "${entry.path}"`);
    if (entry.path.startsWith('auth/') !== auth) throw badRequest(`cannot unmount "${entry.path}": use sys/${auth ? 'mounts' : 'auth'}`);
    await this.save(this.entries.filter((e) => e !== entry));
    return entry;
  }

  /**
   * Moves the secrets engine at `from` to `to` (`sys/remount`, reference/secrets.md §3.5):
   * the entry keeps its uuid, so its storage (`logical/<uuid>/`) and configuration come
   * along; only the path changes. Returns the moved entry.
   * Errors (400): nothing mounted exactly at `from` (`no matching mount at "<p>"`); a
   * built-in mount or an auth method (`cannot remount "<p>"`); an empty or reserved `to`;
   * a `to` that is a prefix of or lies under a mount, `from` included (`path is already
   * in use at <p>`). `beforeMove` runs once the move is known to be valid, before it is
   * stored (the caller revokes the mount's leases there); its error leaves the table as it was.
   */
  remount(from: string, to: string, beforeMove: (entry: MountEntry) => Promise<void>): Promise<MountEntry> {
    return this.lock.run('table', async () => {
      const src = normalizeMountPath(from);
      const dst = normalizeMountPath(to);
      const entry = this.entries.find((e) => e.path === src);
      if (!entry) throw badRequest(`no matching mount at "${src}"`);
      if (BUILT_IN.includes(entry.type) || src.startsWith('auth/')) throw badRequest(`cannot remount "${src}"`);
      if (dst === '') throw badRequest('to: path cannot be empty');
      if (RESERVED.some((r) => dst.startsWith(r))) throw badRequest(`cannot remount to "${dst}": the path is reserved`);
      const clash = this.entries.find((e) => dst.startsWith(e.path) || e.path.startsWith(dst));
      if (clash) throw badRequest(`path is already in use at ${clash.path}`);
      await beforeMove(entry);
      const moved: MountEntry = { ...structuredClone(entry), path: dst };
      await this.save(this.entries.map((e) => (e === entry ? moved : e)));
      return moved;
    });
  }

  /** Applies `change` to a copy of the entry at `path` and persists it. */
  update(path: string, change: (e: MountEntry) => void): Promise<void> {
    return this.lock.run('table', () => this.updateLocked(path, change));
  }

  private async updateLocked(path: string, change: (e: MountEntry) => void): Promise<void> {
    const current = this.get(path);
    if (!current) throw badRequest(`no mount at "${normalizeMountPath(path)}"`);
    const copy: MountEntry = structuredClone(current);
    change(copy);
    await this.save(this.entries.map((e) => (e === current ? copy : e)));
  }

  private entry(path: string, input: MountInput): MountEntry {
    return {
      path,
      type: input.type,
      description: input.description ?? '',
      accessor: `${input.type}_${randomBytes(4).toString('hex')}`,
      uuid: randomUUID(),
      config: {
        default_lease_ttl: input.config?.default_lease_ttl ?? 0,
        max_lease_ttl: input.config?.max_lease_ttl ?? 0,
        force_no_cache: input.config?.force_no_cache ?? false,
      },
      options: input.options ?? null,
      local: input.local ?? false,
      seal_wrap: input.seal_wrap ?? false,
      external_entropy_access: false,
    };
  }

  /** Durable first, then visible: a failed write leaves the table unchanged. */
  private async save(next: MountEntry[]): Promise<void> {
    await this.storage.put(TABLE_KEY, json.encode(next));
    this.entries = next;
  }
}
