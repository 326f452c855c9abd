/**
 * Storage of userpass users in the mount's own storage view: one JSON entry per user at
 * `user/<username>` holding the scrypt hash (never the password) and the token
 * settings. Changes to one user are serialised (read-modify-write under a lock).
 *
 * @module
 */
import { json, type Backend } from '../../../../kernel/store/index.js';
import { KeyedLock } from '../../../../kernel/util/keyed-lock.js';
import { tokenSettingsView, type TokenSettings } from '../token-fields.js';
import type { PasswordHash } from './password.js';

/** One stored user. */
export interface UserEntry extends TokenSettings {
  readonly password_hash: PasswordHash;
}

const USER = 'user/';
/** One lock for all userpass mounts of the process; keys carry the mount uuid. */
const locks = new KeyedLock();

/** The users of one userpass mount. */
export class UserStore {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   */
  constructor(
    private readonly storage: Backend,
    private readonly mountUuid: string,
  ) {}

  /** The user `name` (already lower-cased), or undefined. */
  async get(name: string): Promise<UserEntry | undefined> {
    return json.decode<UserEntry>(await this.storage.get(USER + name));
  }

  /** Every user name, sorted. */
  list(): Promise<string[]> {
    return this.storage.list(USER).then((keys) => keys.filter((k) => !k.endsWith('/')));
  }

  /**
   * Replaces user `name` by what `change` returns for the current entry (undefined when
   * absent). `change` may throw to leave the user untouched; it runs under the user's lock.
   */
  update(name: string, change: (current: UserEntry | undefined) => Promise<UserEntry>): Promise<UserEntry> {
    return locks.run(`${this.mountUuid}/${name}`, async () => {
      const next = await change(await this.get(name));
      await this.storage.put(USER + name, json.encode(next));
      return next;
    });
  }

  /** Deletes user `name`; no error when absent. */
  delete(name: string): Promise<void> {
    return locks.run(`${this.mountUuid}/${name}`, () => this.storage.delete(USER + name));
  }
}

/** The wire shape of `GET users/:username`: token settings only, never the hash. */
export function userView(u: UserEntry): Record<string, unknown> {
  return tokenSettingsView(u);
}
