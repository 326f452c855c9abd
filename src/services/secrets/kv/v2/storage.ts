/**
 * Where KV v2 keeps its state inside the mount's storage (layout after
 * reference/secrets.md §2.12): `config`, `metadata/<key>` (JSON {@link KeyMetadata}, so
 * LIST by prefix works) and `versions/<sha256(key)>/<n>` (JSON data of one version).
 *
 * Every change to a key runs under a per-key lock and lands in one atomic batch, so
 * metadata and version data never disagree and two writers never both create
 * version N+1.
 *
 * @module
 */
import { json, type Backend, type BackendOp } from '../../../../kernel/store/index.js';
import { KeyedLock } from '../../../../kernel/util/keyed-lock.js';
import { sha256Hex } from '../../../../kernel/util/sha256.js';
import { DEFAULT_KV_CONFIG, type KeyMetadata, type KvConfig } from './versions.js';

/** Process-wide: keys are scoped by mount uuid, so mounts never contend. */
const locks = new KeyedLock();

/** What an {@link KvV2Store.update} callback wants written. */
export interface KeyChange<T> {
  /** New metadata to store; `null` deletes the key and every version's data. */
  readonly metadata?: KeyMetadata | null;
  /** Version data to store. */
  readonly puts?: ReadonlyArray<readonly [number, Record<string, unknown>]>;
  /** Versions whose data to delete (pruned or destroyed). */
  readonly deletes?: readonly number[];
  /** What `update` returns. */
  readonly result: T;
}

/** Reads and atomically changes one KV v2 mount's keys. */
export class KvV2Store {
  constructor(
    private readonly storage: Backend,
    private readonly scope: string,
  ) {}

  /** The mount's config (defaults when never written). */
  async config(): Promise<KvConfig> {
    return json.decode<KvConfig>(await this.storage.get('config')) ?? { ...DEFAULT_KV_CONFIG };
  }

  /** Replaces the mount's config; durable on return. */
  saveConfig(config: KvConfig): Promise<void> {
    return this.storage.put('config', json.encode(config));
  }

  /** The key's metadata, or undefined when the key does not exist. */
  async metadata(key: string): Promise<KeyMetadata | undefined> {
    return json.decode<KeyMetadata>(await this.storage.get(`metadata/${key}`));
  }

  /** The data of one version, or undefined when it was never written or was removed. */
  async version(key: string, version: number): Promise<Record<string, unknown> | undefined> {
    return json.decode<Record<string, unknown>>(await this.storage.get(`${versionPrefix(key)}${version}`));
  }

  /** Keys and folders directly under `prefix` (empty or ending in `/`). */
  list(prefix: string): Promise<string[]> {
    return this.storage.list(`metadata/${prefix}`);
  }

  /**
   * Runs `change` on the key's current metadata and config under the key's lock and
   * writes what it returns in one batch. Errors thrown by `change` write nothing.
   */
  update<T>(key: string, change: (metadata: KeyMetadata | undefined, config: KvConfig) => Promise<KeyChange<T>> | KeyChange<T>): Promise<T> {
    return locks.run(`${this.scope}/${key}`, async () => {
      const [metadata, config] = await Promise.all([this.metadata(key), this.config()]);
      const c = await change(metadata, config);
      const ops: BackendOp[] = [];
      const prefix = versionPrefix(key);
      for (const [n, data] of c.puts ?? []) ops.push({ key: `${prefix}${n}`, value: json.encode(data) });
      for (const n of c.deletes ?? []) ops.push({ key: `${prefix}${n}` });
      if (c.metadata === null) {
        for (const n of await this.storage.list(prefix)) ops.push({ key: prefix + n });
        ops.push({ key: `metadata/${key}` });
      } else if (c.metadata) {
        ops.push({ key: `metadata/${key}`, value: json.encode(c.metadata) });
      }
      if (ops.length) await this.storage.batch(ops);
      return c.result;
    });
  }
}

function versionPrefix(key: string): string {
  return `versions/${sha256Hex(key)}/`;
}
