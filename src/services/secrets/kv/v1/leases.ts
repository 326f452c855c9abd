/**
 * The leases of KV version 1 with `options.leased_passthrough = "true"` (the reference's
 * `LeasedPassthroughBackendFactory`): a read is a renewable lease whose TTL is the
 * secret's `ttl` (or `lease`) field, else the mount's default TTL. Renewing reads the
 * secret again and asks for its TTL once more (the reference renews with its read
 * handler); revoking has nothing to undo: the stored secret stays, only the lease goes.
 *
 * @module
 */
import { json } from '../../../../kernel/store/index.js';
import { parseDuration } from '../../../../kernel/util/duration.js';
import type { SecretLeaseHandlers } from '../../lease/handlers.js';
import { DEFAULT_LEASE_TTL_S } from '../../mounts/table.js';
import type { SecretsRequest } from '../../types.js';

/** Lease duration of a read: a `ttl` (or legacy `lease`) key in the data, else the mount's default. */
export function leaseOf(req: Pick<SecretsRequest, 'mount'>, data: Readonly<Record<string, unknown>>): number {
  const raw = data.ttl ?? data.lease;
  if (raw !== undefined) {
    try {
      return parseDuration(raw, 'ttl');
    } catch {
      // A malformed ttl inside stored data is the user's data, not an error of the read.
    }
  }
  return req.mount.config.default_lease_ttl || DEFAULT_LEASE_TTL_S;
}

/** See the module doc. */
export const passthroughLeases: SecretLeaseHandlers = {
  async renew({ lease, mount, storage }) {
    const data = json.decode<Record<string, unknown>>(await storage.get(lease.path));
    // A secret deleted since keeps the TTL its lease had.
    return data ? { ttlS: leaseOf({ mount }, data), data } : { ttlS: lease.ttl_s, data: null };
  },
  async revoke() {},
};
