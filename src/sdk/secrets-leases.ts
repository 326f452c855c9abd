/**
 * Typed helper for leases (`sys/leases/…`; the reference's `/sys/leases` API, issue 17
 * scope 3). A lease id is `<mount><path>/<random id>` as a read's `lease_id` gives it.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import type { SecretResponse } from './secrets-types.js';

/** `data` of `PUT sys/leases/lookup`. */
export interface LeaseInfo {
  id: string;
  /** RFC 3339. */
  issue_time: string;
  /** RFC 3339. */
  expire_time: string;
  /** RFC 3339, or null when never renewed. */
  last_renewal: string | null;
  renewable: boolean;
  /** Seconds left. */
  ttl: number;
  [extra: string]: unknown;
}

/** Options of {@link LeasesClient.revoke} and {@link LeasesClient.revokePrefix}. */
export interface RevokeOptions {
  /** `false`: the server marks the lease(s) expired and its expiry loop revokes them (202); default true (204). */
  sync?: boolean;
}

/** Without leading and trailing `/`: the server takes a prefix as a path prefix either way. */
const clean = (p: string) => p.replace(/^\/+|\/+$/g, '');

/**
 * Lease management. Methods throw `SecretsApiError` on statuses ≥ 400 (400 `invalid lease`,
 * `lease not found`, `lease is not renewable`, `lease expired`; 403 without permission, or
 * without `sudo` for {@link list}, {@link revokePrefix}, {@link revokeForce}) and
 * `SecretsConnectionError` without an answer.
 */
export class LeasesClient {
  /** @param client The connection the requests go through (its token and namespace apply). */
  constructor(private readonly client: SecretsTransport) {}

  /** Lease `leaseId`: its times and TTL (`PUT sys/leases/lookup`). */
  async lookup(leaseId: string): Promise<LeaseInfo> {
    const res = await this.client.write<LeaseInfo>('sys/leases/lookup', { lease_id: leaseId });
    return res!.data!;
  }

  /** The lease ids and sub-prefixes (ending in `/`) directly under `prefix` (`LIST sys/leases/lookup/<prefix>`, sudo); `[]` when none. */
  async list(prefix: string): Promise<string[]> {
    const res = await this.client.list(`sys/leases/lookup/${clean(prefix)}`);
    return res?.data?.keys ?? [];
  }

  /**
   * Renews lease `leaseId` by `increment` (seconds, or a duration string such as `"1h"`;
   * omitted: the TTL the engine gives),
   * never past the mount's max TTL. Returns the envelope: `lease_id`, `lease_duration`
   * (the TTL granted, seconds), `renewable`, the secret's `data`, and a warning when capped.
   */
  async renew(leaseId: string, increment?: number | string): Promise<SecretResponse> {
    const res = await this.client.write('sys/leases/renew', { lease_id: leaseId, ...(increment === undefined ? {} : { increment }) });
    return res!;
  }

  /** Revokes lease `leaseId` (no error when it does not exist). */
  async revoke(leaseId: string, options: RevokeOptions = {}): Promise<void> {
    await this.client.write('sys/leases/revoke', { lease_id: leaseId, ...(options.sync === undefined ? {} : { sync: options.sync }) });
  }

  /** Revokes every lease under `prefix` (e.g. a mount path), or the lease `prefix` names exactly (sudo). */
  async revokePrefix(prefix: string, options: RevokeOptions = {}): Promise<void> {
    await this.client.write(`sys/leases/revoke-prefix/${clean(prefix)}`, options.sync === undefined ? {} : { sync: options.sync });
  }

  /** Like {@link revokePrefix}, dropping each lease even when its engine fails to revoke the secret (sudo). */
  async revokeForce(prefix: string): Promise<void> {
    await this.client.write(`sys/leases/revoke-force/${clean(prefix)}`, {});
  }

  /** Revokes the leases whose token no longer exists (`PUT sys/leases/tidy`, 202). */
  async tidy(): Promise<void> {
    await this.client.write('sys/leases/tidy', {});
  }
}
