/**
 * The lease manager (the reference's expiration manager, Vault `vault/expiration.go`):
 * registers the leases of secrets engines return, looks them up, renews them within the
 * mount's max TTL, and revokes them one by one, by prefix, by token, or when they expire.
 * Everything is stored behind the barrier (entry.ts, expiry-index.ts), so revocation
 * survives a restart and a failover: whichever server is active runs {@link revokeDue}.
 *
 * A token issued by an auth method with a TTL is a lease itself (token-lease.ts): revoking
 * the lease revokes the token, and the expiry loop revokes it at its expiry. Other tokens
 * expire lazily in the token store; a token that created leases gets an entry of its own in
 * the expiry index at its expiry (and its ancestors'), so its leases are revoked on time as
 * the reference's expiration manager revokes an expired token's.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import type { Logger } from '../../../kernel/log/logger.js';
import { json, listRecursive, readJson, type Backend, type BackendOp } from '../../../kernel/store/index.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';
import type { EngineResources } from '../engine-resources.js';
import { DEFAULT_LEASE_TTL_S, type MountEntry } from '../mounts/table.js';
import type { StoredToken, TokenStore } from '../token/store.js';
import { leaseKey, leasePrefix, newLeaseId, tokenIndexKey, tokenPrefix, type LeaseEntry } from './entry.js';
import { dueEntries, expiryKey, indexOp, type Due } from './expiry-index.js';
import type { LeaseRequest, SecretLeaseHandlers } from './handlers.js';
import { dropCheckOps, readCheck, scheduleCheckOps } from './token-checks.js';
import { grantedTtl } from './ttl.js';

/** The mount a lease belongs to, as the core finds it (undefined: unmounted since). */
export interface LeaseTarget {
  readonly mount: MountEntry;
  readonly storage: Backend;
  /** The core's open resources, handed to the engine's callbacks. */
  readonly resources: EngineResources;
  /** The engine's callbacks; absent = nothing to undo (the lease is simply dropped). */
  readonly handlers?: SecretLeaseHandlers;
}

/** Options of {@link LeaseManager}. */
export interface LeaseManagerOptions {
  /** The root barrier storage. */
  readonly backend: Backend;
  readonly tokens: TokenStore;
  readonly clock: () => Date;
  readonly log: Logger;
  /** Finds the mount with uuid `mountUuid` in namespace `nsId`. */
  readonly resolve: (nsId: string, mountUuid: string) => Promise<LeaseTarget | undefined>;
}

/** Input of {@link LeaseManager.register}. */
export interface RegisterInput {
  readonly nsId: string;
  readonly mount: MountEntry;
  /** Request path relative to the mount. */
  readonly path: string;
  readonly token: StoredToken | undefined;
  readonly request: LeaseRequest;
  /** The TTL the engine gave the secret, seconds (0 = the mount's default). */
  readonly ttlS: number;
}

/** A granted lease: its id, TTL (seconds) and the warnings of capping. */
export interface Granted {
  readonly leaseId: string;
  readonly ttlS: number;
  readonly renewable: boolean;
  readonly warnings: readonly string[];
  readonly data?: Record<string, unknown> | null;
}

/** Leases a prefix revoke revokes at once. */
const PREFIX_CONCURRENCY = 16;

/** Most index entries one round of {@link LeaseManager.revokeDue} handles (the next round goes on). */
const ROUND_LIMIT = 1000;

const mountDefaultTtl = (m: MountEntry) => m.config.default_lease_ttl || DEFAULT_LEASE_TTL_S;
const mountMaxTtl = (m: MountEntry) => m.config.max_lease_ttl || DEFAULT_LEASE_TTL_S;

/** See the module doc. */
export class LeaseManager {
  private readonly locks = new KeyedLock();

  constructor(private readonly o: LeaseManagerOptions) {}

  /**
   * Stores a lease for a secret read at `path` on `mount`, its TTL capped by the mount's
   * max TTL (reference `CalculateTTL`), indexed by token and by expiry.
   */
  async register(i: RegisterInput): Promise<Granted> {
    const now = this.o.clock().getTime();
    const { ttlS, warnings } = grantedTtl({
      incrementS: 0,
      engineTtlS: i.ttlS,
      defaultTtlS: mountDefaultTtl(i.mount),
      maxTtlS: mountMaxTtl(i.mount),
      startMs: now,
      nowMs: now,
    });
    const lease_id = newLeaseId(i.mount.path, i.path);
    const expire = now + ttlS * 1000;
    const entry: LeaseEntry = {
      lease_id,
      namespace_id: i.nsId,
      mount_uuid: i.mount.uuid,
      path: i.path,
      issue_time_ms: now,
      expire_time_ms: expire,
      last_renewal_ms: 0,
      ttl_s: ttlS,
      renewable: i.request.renewable,
      ...(i.token ? { token_hash: i.token.hash, token_accessor: i.token.accessor } : {}),
      internal: i.request.internal ?? null,
      expiry_key: expiryKey(expire),
    };
    const ops: BackendOp[] = [
      { key: leaseKey(i.nsId, lease_id), value: json.encode(entry) },
      indexOp(entry.expiry_key, { kind: 'lease', ns: i.nsId, id: lease_id }),
    ];
    const tokenKey = tokenIndexKey(entry);
    if (tokenKey) ops.push({ key: tokenKey, value: new Uint8Array() });
    if (i.token) ops.push(...(await scheduleCheckOps(this.o.tokens, i.token, await readCheck(this.o.backend, i.token.hash))));
    await this.o.backend.batch(ops);
    return { leaseId: lease_id, ttlS, renewable: entry.renewable, warnings };
  }

  /** The lease `leaseId` of namespace `nsId`, or undefined. */
  async lookup(nsId: string, leaseId: string): Promise<LeaseEntry | undefined> {
    return readJson<LeaseEntry>(this.o.backend, leaseKey(nsId, leaseId));
  }

  /** The lease ids and sub-prefixes (ending in `/`) directly below `prefix` (`LIST sys/leases/lookup/:prefix`). */
  async list(nsId: string, prefix: string): Promise<string[]> {
    const p = prefix === '' || prefix.endsWith('/') ? prefix : prefix + '/';
    return this.o.backend.list(leasePrefix(nsId) + p);
  }

  /**
   * Renews a lease by `incrementS` seconds (0 = the TTL the engine gives again), never
   * past issue time + the mount's max TTL. Errors (400, the reference's texts):
   * `lease not found`, `lease expired`, `lease is not renewable`, `past the max TTL, cannot renew`.
   */
  async renew(nsId: string, leaseId: string, incrementS: number): Promise<Granted> {
    return this.locks.run(`${nsId}/${leaseId}`, async () => {
      const e = await this.lookup(nsId, leaseId);
      const now = this.o.clock();
      const nowMs = now.getTime();
      if (!e) throw badRequest('lease not found');
      if (e.expire_time_ms <= nowMs) throw badRequest('lease expired');
      if (e.auth_token_hash) throw badRequest('tokens cannot be renewed through this endpoint');
      if (!e.renewable) throw badRequest('lease is not renewable');
      const target = await this.o.resolve(e.namespace_id, e.mount_uuid);
      if (!target) throw badRequest('lease not found');
      const renewed: { ttlS: number; maxTtlS?: number; data?: Record<string, unknown> | null } = target.handlers
        ? await target.handlers.renew({ lease: e, mount: target.mount, storage: target.storage, resources: target.resources, now, incrementS })
        : { ttlS: e.ttl_s };
      const { ttlS, warnings } = grantedTtl({
        incrementS,
        engineTtlS: renewed.ttlS || e.ttl_s,
        defaultTtlS: mountDefaultTtl(target.mount),
        maxTtlS: Math.min(mountMaxTtl(target.mount), renewed.maxTtlS ?? Infinity),
        startMs: e.issue_time_ms,
        nowMs,
      });
      const expire = nowMs + ttlS * 1000;
      const next: LeaseEntry = { ...e, expire_time_ms: expire, last_renewal_ms: nowMs, ttl_s: ttlS, expiry_key: expiryKey(expire) };
      await this.o.backend.batch([
        { key: leaseKey(nsId, leaseId), value: json.encode(next) },
        { key: e.expiry_key },
        indexOp(next.expiry_key, { kind: 'lease', ns: nsId, id: leaseId }),
      ]);
      return { leaseId, ttlS, renewable: true, warnings, data: renewed.data ?? null };
    });
  }

  /**
   * Revokes one lease: `sync` = now (the engine's revoke, then the entry goes); otherwise
   * it is marked expired and the expiry loop revokes it (the reference's lazy revoke). An
   * unknown lease is no error (the reference's revoke is idempotent).
   */
  async revoke(nsId: string, leaseId: string, o: { sync: boolean; force?: boolean }): Promise<void> {
    await this.locks.run(`${nsId}/${leaseId}`, async () => {
      const e = await this.lookup(nsId, leaseId);
      if (!e) return;
      if (o.sync) return this.revokeEntry(e, o.force ?? false);
      const now = this.o.clock().getTime();
      const next: LeaseEntry = { ...e, expire_time_ms: now, expiry_key: expiryKey(now) };
      await this.o.backend.batch([
        { key: leaseKey(nsId, leaseId), value: json.encode(next) },
        { key: e.expiry_key },
        indexOp(next.expiry_key, { kind: 'lease', ns: nsId, id: leaseId }),
      ]);
    });
  }

  /**
   * Revokes every lease under `prefix` (a lease id itself when one matches it exactly, as
   * the reference). `force` drops each lease even when its engine fails to revoke the
   * secret (`revoke-force`). Returns how many there were.
   */
  async revokePrefix(nsId: string, prefix: string, o: { sync: boolean; force: boolean }): Promise<number> {
    if (!prefix.endsWith('/')) {
      if (await this.lookup(nsId, prefix)) {
        await this.revoke(nsId, prefix, o);
        return 1;
      }
      prefix += '/';
    }
    const base = leasePrefix(nsId);
    const keys = await listRecursive(this.o.backend, base + prefix);
    // Several at once, so their writes share the store's commits (an auth mount's 100,000
    // tokens); the first failure stops the others from taking more, as one by one would.
    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      while (!failed && next < keys.length) {
        const key = keys[next++]!;
        await this.revoke(nsId, key.slice(base.length), o).catch((err: unknown) => {
          failed = true;
          throw err;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(PREFIX_CONCURRENCY, keys.length) }, worker));
    return keys.length;
  }

  /** Revokes every lease token `hash` created (a token-store revoke listener: the token is going). */
  async revokeByToken(hash: string): Promise<void> {
    const base = tokenPrefix(hash);
    for (const key of await listRecursive(this.o.backend, base)) {
      const rest = key.slice(base.length);
      const slash = rest.indexOf('/');
      await this.revoke(rest.slice(0, slash), rest.slice(slash + 1), { sync: true });
    }
    const check = await readCheck(this.o.backend, hash);
    if (check) await this.o.backend.batch(dropCheckOps(hash, check));
  }

  /**
   * `sys/leases/tidy`: revokes (forced) the namespace's leases whose token no longer
   * exists (the reference's tidy of dangling leases). Returns how many went.
   */
  async tidy(nsId: string): Promise<number> {
    const now = this.o.clock();
    const base = leasePrefix(nsId);
    const alive = new Map<string, boolean>();
    let n = 0;
    for (const key of await listRecursive(this.o.backend, base)) {
      const e = await this.lookup(nsId, key.slice(base.length));
      if (!e?.token_accessor) continue;
      let live = alive.get(e.token_accessor);
      if (live === undefined) alive.set(e.token_accessor, (live = (await this.o.tokens.lookupAccessor(e.token_accessor, now)) !== undefined));
      if (live) continue;
      await this.revoke(nsId, e.lease_id, { sync: true, force: true });
      n++;
    }
    return n;
  }

  /**
   * One round of the expiry loop: revokes the leases due now and the leases of tokens
   * expired now, reading only the due part of the expiry index. An entry whose revocation
   * fails stays for the next round (logged). Returns how many entries were handled.
   */
  async revokeDue(): Promise<number> {
    const due = await dueEntries(this.o.backend, this.o.clock().getTime(), ROUND_LIMIT);
    let n = 0;
    for (const d of due) {
      try {
        await (d.item.kind === 'lease' ? this.expireLease(d, d.item.ns, d.item.id) : this.checkToken(d, d.item.hash, d.item.accessor));
        n++;
      } catch (err) {
        this.o.log.warn({ err: (err as Error).message }, 'a due lease could not be revoked; the next round retries');
      }
    }
    return n;
  }

  /** A lease's index entry is due: revoked, unless the entry is stale (renewed or gone since). */
  private async expireLease(d: Due, nsId: string, leaseId: string): Promise<void> {
    await this.locks.run(`${nsId}/${leaseId}`, async () => {
      const e = await this.lookup(nsId, leaseId);
      if (e && e.expiry_key === d.key && e.expire_time_ms <= this.o.clock().getTime()) return this.revokeEntry(e, false);
      await this.o.backend.delete(d.key);
    });
  }

  /**
   * A token holding leases reached its expiry (or an ancestor's): looking it up revokes it
   * when expired (the token store's listeners revoke its leases); a token renewed since is
   * checked again at its new expiry while it still holds leases.
   */
  private async checkToken(d: Due, hash: string, accessor: string): Promise<void> {
    const check = await readCheck(this.o.backend, hash);
    if (check?.key !== d.key) return this.o.backend.delete(d.key);
    const live = await this.o.tokens.lookupAccessor(accessor, this.o.clock());
    if (!live) {
      // Usually done already by the token store's revoke listener; idempotent.
      await this.revokeByToken(hash);
      return this.o.backend.delete(d.key);
    }
    // Renewed since and still holding leases: checked again at its new expiry (the record is
    // overwritten); otherwise the check goes.
    const holds = (await this.o.backend.list(tokenPrefix(hash))).length > 0;
    const next = holds ? await scheduleCheckOps(this.o.tokens, live, undefined) : [];
    await this.o.backend.batch(next.length ? [{ key: d.key }, ...next] : dropCheckOps(hash, check));
  }

  /**
   * The engine's revoke (errors ignored when `force`), then the entry and its index entries
   * go, atomically. A token's lease revokes the token (token-lease.ts): its tree and their
   * leases go, and the token store's batch deletes this entry.
   */
  private async revokeEntry(e: LeaseEntry, force: boolean): Promise<void> {
    if (e.auth_token_hash) {
      await this.o.tokens.revoke(e.auth_token_hash);
      // The token's batch deleted the lease, unless the token was gone already.
      if (await this.lookup(e.namespace_id, e.lease_id)) await this.o.backend.batch([{ key: leaseKey(e.namespace_id, e.lease_id) }, { key: e.expiry_key }]);
      return;
    }
    const target = await this.o.resolve(e.namespace_id, e.mount_uuid);
    if (target?.handlers) {
      try {
        await target.handlers.revoke({
          lease: e,
          mount: target.mount,
          storage: target.storage,
          resources: target.resources,
          now: this.o.clock(),
          incrementS: 0,
        });
      } catch (err) {
        if (!force) throw badRequest(`failed to revoke entry: ${(err as Error).message}`);
        this.o.log.warn({ lease_id: e.lease_id, err: (err as Error).message }, 'the engine could not revoke a lease; dropped anyway (force)');
      }
    }
    const ops: BackendOp[] = [{ key: leaseKey(e.namespace_id, e.lease_id) }, { key: e.expiry_key }];
    const tokenKey = tokenIndexKey(e);
    if (tokenKey) ops.push({ key: tokenKey });
    await this.o.backend.batch(ops);
  }
}
