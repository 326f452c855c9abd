/**
 * Storage of AppRole roles in the mount's own storage view (reference/secrets.md §4.2):
 * `role/<name>` holds the role (JSON), `role_id/<sha256(role_id)>` maps a role ID back to
 * its role name. Every change to the roles of one mount is serialised, so two roles can
 * never claim one role ID.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { badRequest } from '../../../../kernel/http/index.js';
import { json, type Backend, type BackendOp } from '../../../../kernel/store/index.js';
import { KeyedLock } from '../../../../kernel/util/keyed-lock.js';
import { tokenSettingsView, type TokenSettings } from '../token-fields.js';
import type { SecretsRequest } from '../../types.js';
import { checkName } from '../login.js';

/** One stored role. Durations in seconds. */
export interface RoleEntry extends TokenSettings {
  /** Internal id (random uuid) keying the role's secret IDs: a role re-created under the same name starts with none. */
  readonly id: string;
  readonly role_id: string;
  bind_secret_id: boolean;
  /** Lifetime of new secret IDs; 0 = they never expire. */
  secret_id_ttl: number;
  /** Logins per new secret ID; 0 = unlimited. */
  secret_id_num_uses: number;
  /** Blocks logins must come from; absent (roles stored before it existed) or empty = anywhere. */
  secret_id_bound_cidrs?: string[];
}

const ROLE = 'role/';
const ROLE_ID = 'role_id/';
/** One lock for all AppRole mounts of the process; keys are mount uuids. */
const locks = new KeyedLock();

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** The roles of one AppRole mount. */
export class RoleStore {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   */
  constructor(
    private readonly storage: Backend,
    private readonly mountUuid: string,
  ) {}

  /** The role `name`, or undefined. */
  async get(name: string): Promise<RoleEntry | undefined> {
    return json.decode<RoleEntry>(await this.storage.get(ROLE + name));
  }

  /** Every role name, sorted. */
  async list(): Promise<string[]> {
    return (await this.storage.list(ROLE)).filter((k) => !k.endsWith('/'));
  }

  /** The role that owns `roleId`, with its name, or undefined. */
  async byRoleId(roleId: string): Promise<{ name: string; role: RoleEntry } | undefined> {
    const name = await this.storage.get(ROLE_ID + sha256(roleId));
    if (!name) return undefined;
    const role = await this.get(Buffer.from(name).toString('utf8'));
    return role && role.role_id === roleId ? { name: Buffer.from(name).toString('utf8'), role } : undefined;
  }

  /**
   * Replaces role `name` by what `change` returns for the current entry (undefined when
   * absent; build a new one with {@link newRole}). `change` may throw to leave everything
   * untouched. Errors (400): the new role ID belongs to another role.
   */
  update(name: string, change: (current: RoleEntry | undefined) => RoleEntry): Promise<RoleEntry> {
    return this.change(name, change) as Promise<RoleEntry>;
  }

  /**
   * Like {@link update} for an existing role only: returns undefined, changing nothing,
   * when role `name` does not exist (checked under the lock).
   */
  updateExisting(name: string, change: (current: RoleEntry) => RoleEntry): Promise<RoleEntry | undefined> {
    return this.change(name, (current) => current && change(current));
  }

  private change(name: string, change: (current: RoleEntry | undefined) => RoleEntry | undefined): Promise<RoleEntry | undefined> {
    return locks.run(this.mountUuid, async () => {
      const current = await this.get(name);
      const next = change(current);
      if (!next) return undefined;
      const ops: BackendOp[] = [{ key: ROLE + name, value: json.encode(next) }];
      if (next.role_id !== current?.role_id) {
        const owner = await this.storage.get(ROLE_ID + sha256(next.role_id));
        if (owner && Buffer.from(owner).toString('utf8') !== name) throw badRequest('role_id: already in use by another role');
        ops.push({ key: ROLE_ID + sha256(next.role_id), value: Buffer.from(name, 'utf8') });
        if (current) ops.push({ key: ROLE_ID + sha256(current.role_id) });
      }
      await this.storage.batch(ops);
      return next;
    });
  }

  /** Deletes role `name` and its role ID index; returns the removed role (its secret IDs are the caller's to delete). */
  delete(name: string): Promise<RoleEntry | undefined> {
    return locks.run(this.mountUuid, async () => {
      const current = await this.get(name);
      if (current) await this.storage.batch([{ key: ROLE + name }, { key: ROLE_ID + sha256(current.role_id) }]);
      return current;
    });
  }
}

/** A role with defaults: a random role ID, `bind_secret_id` on, no secret ID limits. */
export function newRole(settings: TokenSettings): RoleEntry {
  return { ...settings, id: randomUUID(), role_id: randomUUID(), bind_secret_id: true, secret_id_ttl: 0, secret_id_num_uses: 0 };
}

/** The wire shape of `GET role/:role_name` (the role ID has its own path). */
export function roleView(r: RoleEntry): Record<string, unknown> {
  return {
    ...tokenSettingsView(r),
    bind_secret_id: r.bind_secret_id,
    secret_id_bound_cidrs: [...(r.secret_id_bound_cidrs ?? [])],
    secret_id_ttl: r.secret_id_ttl,
    secret_id_num_uses: r.secret_id_num_uses,
  };
}

/** The role store of the request's mount. */
export const rolesOf = (req: SecretsRequest): RoleStore => new RoleStore(req.storage, req.mount.uuid);
/** The checked role name of the URL (case-sensitive). */
export const roleNameOf = (req: SecretsRequest): string => checkName(req, req.params.role_name);
