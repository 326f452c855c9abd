/**
 * A lease as the lease manager stores it behind the barrier, and its wire shapes
 * (reference: Vault's expiration manager `leaseEntry`; `sys/leases/lookup`).
 *
 * Storage (root barrier storage, all under `sys/lease/`):
 * - `id/<namespace id>/<lease id>` → {@link LeaseEntry};
 * - `token/<token hash>/<namespace id>/<lease id>` → empty: the leases a token created;
 * - `expiry/…`: the expiry index (expiry-index.ts).
 *
 * @module
 */
import { randomBase62 } from '../../../kernel/util/base62.js';

/** One lease. Times are epoch milliseconds; TTLs seconds. */
export interface LeaseEntry {
  /** `<mount path><request path>/<random id>`, relative to its namespace. */
  readonly lease_id: string;
  readonly namespace_id: string;
  /** The mount that issued the secret (its uuid survives remounts; gone = nothing left to revoke). */
  readonly mount_uuid: string;
  /** The request path relative to the mount (the engine's renew and revoke get it). */
  readonly path: string;
  readonly issue_time_ms: number;
  readonly expire_time_ms: number;
  /** 0 = never renewed. */
  readonly last_renewal_ms: number;
  /** The TTL the secret was last granted, seconds (a renewal without increment asks for it again). */
  readonly ttl_s: number;
  readonly renewable: boolean;
  /** Hash and accessor of the token that created it; absent for none. */
  readonly token_hash?: string;
  readonly token_accessor?: string;
  /** What the engine needs to renew or revoke the secret (the reference's `Secret.InternalData`). */
  readonly internal: Readonly<Record<string, unknown>> | null;
  /** The key of this lease's entry in the expiry index. */
  readonly expiry_key: string;
  /**
   * A token's own lease (token-lease.ts): the hash of the token it is. Revoking the lease
   * revokes the token (its children and their leases with it); `mount_uuid` is empty.
   */
  readonly auth_token_hash?: string;
}

export const LEASE_PREFIX = 'sys/lease/';
const ID = `${LEASE_PREFIX}id/`;
const TOKEN = `${LEASE_PREFIX}token/`;

/** Storage key of lease `leaseId` in namespace `nsId`. */
export const leaseKey = (nsId: string, leaseId: string): string => `${ID}${nsId}/${leaseId}`;

/** Prefix of a namespace's leases (list and revoke-prefix walk below it). */
export const leasePrefix = (nsId: string): string => `${ID}${nsId}/`;

/** Prefix of the token index of token `hash`. */
export const tokenPrefix = (hash: string): string => `${TOKEN}${hash}/`;

/** Token index key of `e`, or undefined when no token created it. */
export const tokenIndexKey = (e: LeaseEntry): string | undefined => (e.token_hash ? `${tokenPrefix(e.token_hash)}${e.namespace_id}/${e.lease_id}` : undefined);

/** A new lease id for a secret read at `path` below mount `mountPath` (ends in `/`): the reference's form. */
export function newLeaseId(mountPath: string, path: string): string {
  return `${mountPath}${path.replace(/\/+$/, '')}/${randomBase62(24)}`;
}

/** Remaining seconds of `e` at `nowMs` (0 once expired). */
const remainingS = (e: LeaseEntry, nowMs: number): number => Math.max(0, Math.round((e.expire_time_ms - nowMs) / 1000));

/**
 * The `data` of `PUT sys/leases/lookup` (reference `handleLeaseLookup`): `id`,
 * `issue_time`, `expire_time`, `last_renewal` (null when never renewed), `renewable`,
 * `ttl` (seconds left).
 */
export function lookupData(e: LeaseEntry, nowMs: number): Record<string, unknown> {
  return {
    id: e.lease_id,
    issue_time: new Date(e.issue_time_ms).toISOString(),
    expire_time: new Date(e.expire_time_ms).toISOString(),
    last_renewal: e.last_renewal_ms ? new Date(e.last_renewal_ms).toISOString() : null,
    renewable: e.renewable && e.expire_time_ms > nowMs,
    ttl: remainingS(e, nowMs),
  };
}
