/**
 * Where KV v2 keeps its state inside the mount's storage (layout after
 * reference/secrets.md §2.12): `config`, `metadata/<key>` (so LIST by prefix works) and
 * `versions/<sha256(key)>/<n>` (JSON data of one version).
 *
 * `metadata/<key>` holds the JSON {@link KeyMetadata} and, under `inline`, the data of
 * the current version: a write of a new key stores one value (one AES-GCM seal, one
 * row) instead of two, and a read of the latest version is one storage read. When a
 * newer version arrives, the previous current version's data moves out to `versions/`.
 * Keys written before `inline` existed keep every version under `versions/`, and are
 * read from there.
 *
 * Every change to a key runs under a per-key lock and lands in one atomic batch, so
 * metadata and version data never disagree and two writers never both create
 * version N+1.
 *
 * @module
 */
import { json, readJson, type Backend, type BackendOp } from '../../../../kernel/store/index.js';
import { deepFreeze, type Frozen } from '../../../../kernel/util/deep-freeze.js';
import { KeyedLock } from '../../../../kernel/util/keyed-lock.js';
import { sha256Hex } from '../../../../kernel/util/sha256.js';
import { DEFAULT_KV_CONFIG, type KeyMetadata, type KvConfig } from './versions.js';

/** Process-wide: keys are scoped by mount uuid, so mounts never contend. */
const locks = new KeyedLock();

/**
 * {@link split} of each shared stored value, so that every read of an unchanged key gets
 * the same metadata object (reply caches key on it: data.routes.ts).
 */
const splits = new WeakMap<object, { metadata: Frozen<KeyMetadata>; inline: Frozen<StoredKey>['inline'] }>();

/** The data of one version. */
type VersionData = Record<string, unknown>;

/** The value stored at `metadata/<key>`. */
interface StoredKey extends KeyMetadata {
  /** The data of the version kept beside the metadata (the current one when written). */
  inline?: { readonly version: number; readonly data: VersionData };
}

/** What an {@link KvV2Store.update} callback wants written. */
export interface KeyChange<T> {
  /** New metadata to store; `null` deletes the key and every version's data. */
  readonly metadata?: KeyMetadata | null;
  /** Version data to store. */
  readonly puts?: ReadonlyArray<readonly [number, VersionData]>;
  /** Versions whose data to delete (pruned or destroyed). */
  readonly deletes?: readonly number[];
  /** What `update` returns. */
  readonly result: T;
}

/**
 * One key as read: its metadata, and the data of any of its versions. Both are deeply
 * frozen and may be shared with concurrent readers (the barrier's decoded cache, issue
 * 15): copy before changing anything.
 */
export interface KeyEntry {
  /** The same object for every read while the key is unchanged and cached. */
  readonly metadata: Frozen<KeyMetadata>;
  /** The data of `version`, or undefined when it was never written or was removed. */
  data(version: number): Promise<Frozen<VersionData> | undefined>;
}

/** Reads and atomically changes one KV v2 mount's keys. */
export class KvV2Store {
  constructor(
    private readonly storage: Backend,
    private readonly scope: string,
  ) {}

  /** The mount's config (defaults when never written); frozen, possibly shared: copy to change. */
  async config(): Promise<Frozen<KvConfig>> {
    return (await readJson<KvConfig>(this.storage, 'config')) ?? DEFAULT_KV_CONFIG;
  }

  /** Replaces the mount's config; durable on return. */
  saveConfig(config: KvConfig): Promise<void> {
    return this.storage.put('config', json.encode(config));
  }

  /** Whether the key exists (without decoding its metadata). */
  async exists(key: string): Promise<boolean> {
    return (await this.storage.get(`metadata/${key}`)) !== undefined;
  }

  /** The key's metadata (frozen, possibly shared), or undefined when the key does not exist. */
  async metadata(key: string): Promise<Frozen<KeyMetadata> | undefined> {
    return (await this.read(key))?.metadata;
  }

  /** The key's metadata and access to its versions' data (one storage read for the current one), or undefined. */
  async read(key: string): Promise<KeyEntry | undefined> {
    const stored = await readJson<StoredKey>(this.storage, `metadata/${key}`);
    if (stored === undefined) return undefined;
    let parts = splits.get(stored);
    if (!parts) splits.set(stored, (parts = deepFreeze(split(stored))));
    const { metadata, inline } = parts;
    return { metadata, data: (version) => this.stored(key, inline, version) };
  }

  /** Keys and folders directly under `prefix` (empty or ending in `/`). */
  list(prefix: string): Promise<string[]> {
    return this.storage.list(`metadata/${prefix}`);
  }

  /**
   * Runs `change` on the key's current metadata and config (and a reader of its
   * versions' data) under the key's lock and writes what it returns in one batch.
   * Errors thrown by `change` write nothing.
   */
  update<T>(
    key: string,
    change: (
      metadata: KeyMetadata | undefined,
      config: KvConfig,
      data: (version: number) => Promise<VersionData | undefined>,
    ) => Promise<KeyChange<T>> | KeyChange<T>,
  ): Promise<T> {
    return locks.run(`${this.scope}/${key}`, async () => {
      const [entry, config] = await Promise.all([this.storage.get(`metadata/${key}`), this.config()]);
      const stored = json.decode<StoredKey>(entry);
      const current = stored && split(stored).metadata;
      const before = stored?.inline;
      const c = await change(current, config, (version) => this.data(key, before, version));
      const ops: BackendOp[] = [];
      let inline = before;
      for (const n of c.deletes ?? []) {
        ops.push({ key: `${versionPrefix(key)}${n}` });
        if (inline?.version === n) inline = undefined;
      }
      const after = c.metadata === undefined ? current : c.metadata;
      for (const [n, data] of c.puts ?? []) {
        if (after && n === after.current_version) {
          // The new current version goes beside the metadata; the previous one moves out.
          if (inline && inline.version !== n) ops.push({ key: `${versionPrefix(key)}${inline.version}`, value: json.encode(inline.data) });
          inline = { version: n, data };
        } else {
          ops.push({ key: `${versionPrefix(key)}${n}`, value: json.encode(data) });
        }
      }
      if (c.metadata === null) {
        const prefix = versionPrefix(key);
        for (const n of await this.storage.list(prefix)) ops.push({ key: prefix + n });
        ops.push({ key: `metadata/${key}` });
      } else if (after && (c.metadata || inline !== before)) {
        const value: StoredKey = inline ? { ...after, inline } : after;
        ops.push({ key: `metadata/${key}`, value: json.encode(value) });
      }
      if (ops.length) await this.storage.batch(ops);
      return c.result;
    });
  }

  /** {@link data}, for readers: frozen, possibly shared. */
  private async stored(key: string, inline: Frozen<StoredKey>['inline'], version: number): Promise<Frozen<VersionData> | undefined> {
    if (inline?.version === version) return inline.data;
    return readJson<VersionData>(this.storage, `${versionPrefix(key)}${version}`);
  }

  /** The data of `version`: the inline one when it is that version, else from `versions/`. */
  private async data(key: string, inline: StoredKey['inline'], version: number): Promise<VersionData | undefined> {
    if (inline?.version === version) return inline.data;
    return json.decode<VersionData>(await this.storage.get(`${versionPrefix(key)}${version}`));
  }
}

/** Splits a stored value into the key's metadata and the version data kept beside it. */
function split<S extends StoredKey | Frozen<StoredKey>>(stored: S): { metadata: Omit<S, 'inline'>; inline: S['inline'] } {
  const { inline, ...metadata } = stored;
  return { metadata, inline };
}

function versionPrefix(key: string): string {
  return `versions/${sha256Hex(key)}/`;
}
