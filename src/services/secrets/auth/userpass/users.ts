/**
 * Storage of userpass users in the mount's own storage view: one JSON entry per user at
 * `user/<username>` holding the scrypt hash (never the password) and the token
 * settings. Changes to one user are serialised (read-modify-write under a lock).
 *
 * @module
 */
import type { Backend } from '../../../../kernel/store/index.js';
import { tokenSettingsView, type TokenSettings } from '../token-fields.js';
import type { PasswordHash } from '../../../../kernel/authn/password.js';
import { MountEntryStore } from '../entry-store.js';
import type { SecretsRequest } from '../../types.js';

/** One stored user. */
export interface UserEntry extends TokenSettings {
  readonly password_hash: PasswordHash;
}

/** The users of one userpass mount. */
export class UserStore extends MountEntryStore<UserEntry> {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   */
  constructor(storage: Backend, mountUuid: string) {
    super(storage, mountUuid, 'user/');
  }
}

/** The wire shape of `GET users/:username`: token settings only, never the hash. */
export function userView(u: UserEntry): Record<string, unknown> {
  return tokenSettingsView(u);
}

/** The user store of the request's mount. */
export const usersOf = (req: SecretsRequest): UserStore => new UserStore(req.storage, req.mount.uuid);
