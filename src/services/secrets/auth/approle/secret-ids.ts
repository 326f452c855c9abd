/**
 * AppRole secret IDs (reference/secrets.md §4.2): random 128-bit values shown once and
 * stored only as their SHA-256 (enough for uniformly random values; no salt needed; a
 * custom secret ID is stored the same way, behind the barrier like all mount storage),
 * with an expiry, a remaining use count, metadata and CIDR bindings that login enforces.
 *
 * Layout in the mount's storage view, per role (keyed by the role's internal id):
 * `secret_id/<role id>/<sha256 hex>` → {@link SecretIdEntry};
 * `accessor/<role id>/<accessor>` → the sha256 hex, for listing.
 *
 * @module
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { badRequest } from '../../../../kernel/http/index.js';
import { json, listRecursive, type Backend } from '../../../../kernel/store/index.js';
import { formatTime } from '../../../../kernel/util/duration.js';
import { KeyedLock } from '../../../../kernel/util/keyed-lock.js';
import type { SecretsRequest } from '../../types.js';

/**
 * One stored secret ID (never the secret ID itself). Times in Unix milliseconds. The
 * optional fields are absent in entries stored before they existed.
 */
export interface SecretIdEntry {
  readonly accessor: string;
  readonly creation_time_ms: number;
  /** 0 = never expires. */
  readonly expiration_time_ms: number;
  /** Logins left; 0 = unlimited. */
  readonly num_uses: number;
  /** The last login that used it (or its creation). */
  readonly last_updated_time_ms?: number;
  /** The TTL it was issued with, seconds; 0 = none. */
  readonly ttl_s?: number;
  /** Set on the tokens it logs in (with `role_name`). */
  readonly metadata?: Record<string, string>;
  /** Blocks login with it must come from; empty = anywhere the role allows. */
  readonly cidr_list?: string[];
  /** Blocks binding the tokens it logs in, instead of the role's `token_bound_cidrs`. */
  readonly token_bound_cidrs?: string[];
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

/** Limits and bindings of a new secret ID. */
export interface SecretIdLimits {
  /** Seconds; 0 = never expires. */
  readonly ttlS: number;
  /** 0 = unlimited. */
  readonly numUses: number;
  readonly metadata?: Record<string, string>;
  readonly cidrList?: readonly string[];
  readonly tokenBoundCidrs?: readonly string[];
}

/** The reference's text for a custom secret ID that the role already has (400). */
const SECRET_ID_TAKEN = 'SecretID is already registered';
/** Go's zero `time.Time`, which the reference shows for a secret ID that never expires. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * The `data` of `secret-id/lookup` and `secret-id-accessor/lookup` (the reference's
 * shape): RFC3339 times (`expiration_time` Go's zero time when it never expires), uses
 * left, the issued TTL in seconds, metadata and CIDR lists (`[]` when none).
 */
export function secretIdView(e: SecretIdEntry): Record<string, unknown> {
  const ttl = e.ttl_s ?? (e.expiration_time_ms ? Math.round((e.expiration_time_ms - e.creation_time_ms) / 1000) : 0);
  return {
    cidr_list: [...(e.cidr_list ?? [])],
    creation_time: formatTime(new Date(e.creation_time_ms)),
    expiration_time: e.expiration_time_ms ? formatTime(new Date(e.expiration_time_ms)) : GO_ZERO_TIME,
    last_updated_time: formatTime(new Date(e.last_updated_time_ms ?? e.creation_time_ms)),
    metadata: { ...(e.metadata ?? {}) },
    secret_id_accessor: e.accessor,
    secret_id_num_uses: e.num_uses,
    secret_id_ttl: ttl,
    token_bound_cidrs: [...(e.token_bound_cidrs ?? [])],
  };
}

/** Whether `e` has expired at `now`. */
const expired = (e: SecretIdEntry, now: Date): boolean => e.expiration_time_ms !== 0 && e.expiration_time_ms <= now.getTime();

/** 128 random bits in the 8-4-4-4-12 hex layout clients expect of secret IDs. */
function newSecretId(): string {
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

  /**
   * Creates and stores a secret ID, random or the caller's `custom` one (`custom-secret-id`);
   * the returned value is the only place it appears in clear. Errors (400): a custom
   * secret ID the role already has ({@link SECRET_ID_TAKEN}).
   */
  issue(roleId: string, limits: SecretIdLimits, now: Date, custom?: string): Promise<IssuedSecretId> {
    const secretId = custom ?? newSecretId();
    const hash = hashOf(secretId);
    return locks.run(`${this.mountUuid}/${hash}`, async () => {
      if (custom !== undefined && (await this.storage.get(`secret_id/${roleId}/${hash}`))) throw badRequest(SECRET_ID_TAKEN);
      const entry: SecretIdEntry = {
        accessor: randomUUID(),
        creation_time_ms: now.getTime(),
        expiration_time_ms: limits.ttlS ? now.getTime() + limits.ttlS * 1000 : 0,
        num_uses: limits.numUses,
        last_updated_time_ms: now.getTime(),
        ttl_s: limits.ttlS,
        metadata: { ...(limits.metadata ?? {}) },
        cidr_list: [...(limits.cidrList ?? [])],
        token_bound_cidrs: [...(limits.tokenBoundCidrs ?? [])],
      };
      await this.storage.batch([
        { key: `secret_id/${roleId}/${hash}`, value: json.encode(entry) },
        { key: `accessor/${roleId}/${entry.accessor}`, value: Buffer.from(hash) },
      ]);
      return { secret_id: secretId, secret_id_accessor: entry.accessor, secret_id_ttl: limits.ttlS, secret_id_num_uses: limits.numUses };
    });
  }

  /**
   * Uses `secretId` for one login: its entry (as it was before this use) when it exists,
   * has not expired and has uses left, else undefined. `check` runs on the entry first
   * and may throw to refuse the login without using it up (CIDR bindings). The use count
   * is decremented and the secret ID deleted at the last use (or when found expired).
   * Serialised per secret ID, so N uses never admit N+1 logins.
   */
  consume(roleId: string, secretId: string, now: Date, check?: (e: SecretIdEntry) => void): Promise<SecretIdEntry | undefined> {
    const hash = hashOf(secretId);
    return locks.run(`${this.mountUuid}/${hash}`, async () => {
      const key = `secret_id/${roleId}/${hash}`;
      const e = json.decode<SecretIdEntry>(await this.storage.get(key));
      if (!e) return undefined;
      if (expired(e, now)) {
        await this.remove(roleId, hash, e);
        return undefined;
      }
      check?.(e);
      if (e.num_uses === 1) await this.remove(roleId, hash, e);
      else if (e.num_uses > 1) await this.storage.put(key, json.encode({ ...e, num_uses: e.num_uses - 1, last_updated_time_ms: now.getTime() }));
      return e;
    });
  }

  /** The live entry of `secretId` of the role, or undefined (an expired one is deleted). */
  lookup(roleId: string, secretId: string, now: Date): Promise<SecretIdEntry | undefined> {
    return this.liveEntry(roleId, hashOf(secretId), now);
  }

  /** The live entry behind `accessor` of the role, or undefined (an expired one is deleted). */
  async lookupAccessor(roleId: string, accessor: string, now: Date): Promise<SecretIdEntry | undefined> {
    const hash = await this.hashOfAccessor(roleId, accessor);
    return hash === undefined ? undefined : this.liveEntry(roleId, hash, now);
  }

  /** Deletes the secret ID behind `accessor` of the role; false when there is none. */
  async destroyAccessor(roleId: string, accessor: string): Promise<boolean> {
    const hash = await this.hashOfAccessor(roleId, accessor);
    if (hash === undefined) return false;
    await this.destroyHash(roleId, hash);
    return true;
  }

  /**
   * `tidy/secret-id`: deletes every expired secret ID of the mount, and index entries
   * left without their other half (an accessor without its secret ID, or the reverse).
   * Returns how many secret IDs and dangling entries it removed.
   */
  async tidy(now: Date): Promise<number> {
    let removed = 0;
    for (const key of await listRecursive(this.storage, 'secret_id/')) {
      const [, roleId, hash] = key.split('/');
      await locks.run(`${this.mountUuid}/${hash}`, async () => {
        const e = json.decode<SecretIdEntry>(await this.storage.get(key));
        if (!e) return;
        const indexed = await this.storage.get(`accessor/${roleId}/${e.accessor}`);
        if (expired(e, now) || !indexed) {
          await this.remove(roleId, hash, e);
          removed++;
        }
      });
    }
    for (const key of await listRecursive(this.storage, 'accessor/')) {
      const [, roleId] = key.split('/');
      const hash = await this.storage.get(key);
      if (hash && (await this.storage.get(`secret_id/${roleId}/${Buffer.from(hash).toString('utf8')}`))) continue;
      await this.storage.delete(key);
      removed++;
    }
    return removed;
  }

  private async hashOfAccessor(roleId: string, accessor: string): Promise<string | undefined> {
    // An accessor is one path segment; anything else cannot name one.
    if (accessor === '' || accessor.includes('/')) return undefined;
    const hash = await this.storage.get(`accessor/${roleId}/${accessor}`);
    return hash ? Buffer.from(hash).toString('utf8') : undefined;
  }

  private liveEntry(roleId: string, hash: string, now: Date): Promise<SecretIdEntry | undefined> {
    return locks.run(`${this.mountUuid}/${hash}`, async () => {
      const e = json.decode<SecretIdEntry>(await this.storage.get(`secret_id/${roleId}/${hash}`));
      if (!e || !expired(e, now)) return e;
      await this.remove(roleId, hash, e);
      return undefined;
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

/** The secret ID store of the request's mount. */
export const secretIdsOf = (req: SecretsRequest): SecretIdStore => new SecretIdStore(req.storage, req.mount.uuid);
