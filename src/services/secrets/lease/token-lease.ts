/**
 * Tokens are leases (the reference's expiration manager `RegisterAuth`; issue 30 item 3):
 * every token with a TTL issued by an auth method has a lease
 * `<creating path>/<token hash>` — `auth/approle/login/<hash>`, `auth/token/create/<hash>` —
 * in its namespace, so `LIST sys/leases/lookup/auth/approle/login/` lists the tokens that
 * AppRole issued and `sys/leases/revoke-prefix/auth/approle/` revokes them, their child
 * tokens and every lease those created. The lease moves with the token: written, renewed and
 * deleted in the token's own batch (token/store.ts {@link TokenLeaseHooks}); at its expiry
 * the expiry loop revokes the token (before, an expired token was removed only by the next
 * request that presented it). The hash in the lease id is the token store's key, never the
 * token. Root tokens and tokens without a TTL have no lease, as the reference's; wrapping
 * tokens (created at the wrapped request's path, not under `auth/`) neither.
 *
 * @module
 */
import { json, readJson, type Backend, type BackendOp } from '../../../kernel/store/index.js';
import type { StoredToken, TokenLeaseHooks } from '../token/store.js';
import { leaseKey, type LeaseEntry } from './entry.js';
import { expiryKey, indexOp } from './expiry-index.js';

/** The namespace a token (and so its lease) belongs to. */
const nsOf = (t: StoredToken): string => t.namespace_id ?? 'root';

/** Does token `t` have a lease: issued by an auth method, with a TTL? */
const leased = (t: StoredToken): boolean => t.expire_time_ms > 0 && t.path.startsWith('auth/');

/** The lease id of token `t`: its creating path, then its hash. */
const tokenLeaseId = (t: StoredToken): string => `${t.path.replace(/\/+$/, '')}/${t.hash}`;

/** The writes of token `t`'s lease entry expiring at `t.expire_time_ms`, after `previous` (its entry before, if any). */
function leaseOps(t: StoredToken, previous: LeaseEntry | undefined, lastRenewalMs: number): BackendOp[] {
  const expire = t.expire_time_ms;
  const entry: LeaseEntry = {
    lease_id: tokenLeaseId(t),
    namespace_id: nsOf(t),
    mount_uuid: '',
    path: t.path,
    issue_time_ms: t.creation_time * 1000,
    expire_time_ms: expire,
    last_renewal_ms: lastRenewalMs,
    ttl_s: Math.max(0, Math.round((expire - (lastRenewalMs || t.creation_time * 1000)) / 1000)),
    renewable: t.renewable,
    internal: null,
    expiry_key: expiryKey(expire),
    auth_token_hash: t.hash,
  };
  const ops: BackendOp[] = [
    { key: leaseKey(entry.namespace_id, entry.lease_id), value: json.encode(entry) },
    indexOp(entry.expiry_key, { kind: 'lease', ns: entry.namespace_id, id: entry.lease_id }),
  ];
  if (previous) ops.push({ key: previous.expiry_key });
  return ops;
}

/** The hooks that keep tokens' leases in `backend` (the root barrier storage); see the module doc. */
export function tokenLeaseHooks(backend: Backend, clock: () => Date): TokenLeaseHooks {
  const stored = (t: StoredToken) => readJson<LeaseEntry>(backend, leaseKey(nsOf(t), tokenLeaseId(t)));
  return {
    created: (t) => (leased(t) ? leaseOps(t, undefined, 0) : []),
    renewed: async (previous, next) => (leased(next) ? leaseOps(next, await stored(previous), clock().getTime()) : []),
    revoked: async (t) => {
      const e = leased(t) ? await stored(t) : undefined;
      return e ? [{ key: leaseKey(e.namespace_id, e.lease_id) }, { key: e.expiry_key }] : [];
    },
  };
}
