/**
 * AppRole secret IDs (reference/secrets.md §4.2): random 128-bit values shown once and
 * stored only as their SHA-256 (enough for uniformly random values; no salt needed),
 * with an expiry and a remaining use count that login enforces.
 *
 * Layout in the mount's storage view, per role (keyed by the role's internal id):
 * `secret_id/<role id>/<sha256 hex>` → {@link SecretIdEntry};
 * `accessor/<role id>/<accessor>` → the sha256 hex, for listing.
 *
 * @module
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { json, listRecursive, type Backend } from '../../../../kernel/store/index.js';
import { KeyedLock } from '../../../../kernel/util/keyed-lock.js';

/** One stored secret ID (never the secret ID itself). Times in Unix milliseconds. */
export interface SecretIdEntry {
  readonly accessor: string;
  readonly creation_time_ms: number;
  /** 0 = never expires. */
  readonly expiration_time_ms: number;
  /** Logins left; 0 = unlimited. */
  readonly num_uses: number;
}

/** What `POST role/:role_name/secret-id` returns (shown once). */
export interface IssuedSecretId {
  secret_id: string;
  secret_id_accessor: string;
  /** Seconds; 0 = never expires. */
  secret_id_ttl: number;
  /** 0 = unlimited. */
  secret_id_num_uses: number;
}

/** Limits of a new secret ID. */
export interface SecretIdLimits {
  /** Seconds; 0 = never expires. */
  readonly ttlS: number;
  /** 0 = unlimited. */
  readonly numUses: number;
}

/** Whether `e` has expired at `now`. */
export const expired = (e: SecretIdEntry, now: Date): boolean => e.expiration_time_ms !== 0 && e.expiration_time_ms <= now.getTime();

/** 128 random bits in the 8-4-4-4-12 hex layout clients expect of secret IDs. */
export function newSecretId(): string {
  const h = randomBytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const hashOf = (secretId: string): string => createHash('sha256').update(secretId, 'utf8').digest('hex');
/** One lock for all AppRole mounts; keys carry the mount uuid and the secret ID hash. */
const locks = new KeyedLock();

/** The secret IDs of one AppRole mount. `roleId` arguments are a role's internal id. */
export class SecretIdStore {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the locks
   */
  constructor(
    private readonly storage: Backend,
    private readonly mountUuid: string,
  ) {}

  /** Creates and stores a secret ID; the returned value is the only place it appears in clear. */
  async issue(roleId: string, limits: SecretIdLimits, now: Date): Promise<IssuedSecretId> {
    const secretId = newSecretId();
    const hash = hashOf(secretId);
    const entry: SecretIdEntry = {
      accessor: randomUUID(),
      creation_time_ms: now.getTime(),
      expiration_time_ms: limits.ttlS ? now.getTime() + limits.ttlS * 1000 : 0,
      num_uses: limits.numUses,
    };
    await this.storage.batch([
      { key: `secret_id/${roleId}/${hash}`, value: json.encode(entry) },
      { key: `accessor/${roleId}/${entry.accessor}`, value: Buffer.from(hash) },
    ]);
    return { secret_id: secretId, secret_id_accessor: entry.accessor, secret_id_ttl: limits.ttlS, secret_id_num_uses: limits.numUses };
  }

  /**
   * Uses `secretId` for one login: true when it exists, has not expired and has uses
   * left; its use count is decremented and it is deleted at the last use (or when found
   * expired). Serialised per secret ID, so N uses never admit N+1 logins.
   */
  consume(roleId: string, secretId: string, now: Date): Promise<boolean> {
    const hash = hashOf(secretId);
    return locks.run(`${this.mountUuid}/${hash}`, async () => {
      const key = `secret_id/${roleId}/${hash}`;
      const e = json.decode<SecretIdEntry>(await this.storage.get(key));
      if (!e) return false;
      if (expired(e, now)) {
        await this.remove(roleId, hash, e);
        return false;
      }
      if (e.num_uses === 1) await this.remove(roleId, hash, e);
      else if (e.num_uses > 1) await this.storage.put(key, json.encode({ ...e, num_uses: e.num_uses - 1 }));
      return true;
    });
  }

  /** Deletes `secretId` of the role; no error when it does not exist. */
  destroy(roleId: string, secretId: string): Promise<void> {
    return this.destroyHash(roleId, hashOf(secretId));
  }

  /** Accessors of the role's live secret IDs, sorted; expired ones found on the way are deleted. */
  async accessors(roleId: string, now: Date): Promise<string[]> {
    const out: string[] = [];
    for (const accessor of await this.storage.list(`accessor/${roleId}/`)) {
      const hash = await this.storage.get(`accessor/${roleId}/${accessor}`);
      const h = hash && Buffer.from(hash).toString('utf8');
      const e = h ? json.decode<SecretIdEntry>(await this.storage.get(`secret_id/${roleId}/${h}`)) : undefined;
      if (h && e && !expired(e, now)) out.push(accessor);
      else if (h && e) await this.destroyHash(roleId, h);
      else await this.storage.delete(`accessor/${roleId}/${accessor}`);
    }
    return out;
  }

  /** Deletes every secret ID of the role (role deletion). */
  async destroyAll(roleId: string): Promise<void> {
    const keys = [...(await listRecursive(this.storage, `secret_id/${roleId}/`)), ...(await listRecursive(this.storage, `accessor/${roleId}/`))];
    for (let i = 0; i < keys.length; i += 1000) await this.storage.batch(keys.slice(i, i + 1000).map((key) => ({ key })));
  }

  private destroyHash(roleId: string, hash: string): Promise<void> {
    return locks.run(`${this.mountUuid}/${hash}`, async () => {
      const e = json.decode<SecretIdEntry>(await this.storage.get(`secret_id/${roleId}/${hash}`));
      if (e) await this.remove(roleId, hash, e);
    });
  }

  private remove(roleId: string, hash: string, e: SecretIdEntry): Promise<void> {
    return this.storage.batch([{ key: `secret_id/${roleId}/${hash}` }, { key: `accessor/${roleId}/${e.accessor}` }]);
  }
}
