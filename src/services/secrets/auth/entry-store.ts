/**
 * Named entries of one auth mount — roles, users — kept as JSON under a prefix of the
 * mount's storage view (`role/<name>`, `user/<name>`), each written under its own lock so
 * that two writes of one entry never interleave their read and write.
 *
 * @module
 */
import { json, type Backend } from '../../../kernel/store/index.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';

/** One lock for every mount of the process: keys carry the mount's uuid. */
const locks = new KeyedLock();

/** The entries under `prefix` of one mount. */
export class MountEntryStore<T> {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   * @param prefix where the entries are, ending in `/` (`role/`)
   */
  constructor(
    private readonly storage: Backend,
    private readonly mountUuid: string,
    private readonly prefix: string,
  ) {}

  /** The entry `name` (as stored: callers lower-case where the method does), or undefined. */
  async get(name: string): Promise<T | undefined> {
    return json.decode<T>(await this.storage.get(this.prefix + name));
  }

  /** Every entry name, sorted. */
  async list(): Promise<string[]> {
    return (await this.storage.list(this.prefix)).filter((k) => !k.endsWith('/'));
  }

  /**
   * Replaces entry `name` by what `change` returns for the current one (undefined when
   * absent), under the entry's lock, and resolves with it. `change` may throw to leave the
   * entry untouched.
   */
  update(name: string, change: (current: T | undefined) => T | Promise<T>): Promise<T> {
    return locks.run(`${this.mountUuid}/${name}`, async () => {
      const next = await change(await this.get(name));
      await this.storage.put(this.prefix + name, json.encode(next));
      return next;
    });
  }

  /** Deletes entry `name`; no error when absent. */
  delete(name: string): Promise<void> {
    return locks.run(`${this.mountUuid}/${name}`, () => this.storage.delete(this.prefix + name));
  }
}
