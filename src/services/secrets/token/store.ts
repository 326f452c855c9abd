/**
 * The token store (reference/secrets.md §4.1). Tokens are never stored in clear: an
 * entry is kept under the SHA-256 of the token (`sys/token/id/<hash>`), and the hash
 * found there is compared with the presented one in constant time. Accessors map to
 * the hash (`sys/token/accessor/<accessor>`); children are indexed under their parent
 * (`sys/token/parent/<parent hash>/<child hash>`) so revoking a parent revokes them.
 * A parent that expires is revoked with its children, as the reference's expiration
 * manager does: a token is live only while every ancestor is.
 *
 * @module
 */
import { randomBase62 } from '../../../kernel/util/base62.js';
import { sha256Hex } from '../../../kernel/util/sha256.js';
import { json, listRecursive, readJson, type Backend, type BackendOp } from '../../../kernel/store/index.js';
import { badRequest } from '../../../kernel/http/index.js';
import { DEFAULT_LEASE_TTL_S } from '../mounts/table.js';
import type { TemplateIdentity } from '../policy/template.js';
import { LRUCache } from 'lru-cache';

/**
 * A stored token (never holds the token itself). Entries read back are deeply frozen and
 * may be shared by concurrent requests (the barrier's decoded cache): copy to change.
 */
export interface StoredToken {
  /** Hex SHA-256 of the token. */
  readonly hash: string;
  readonly accessor: string;
  readonly policies: readonly string[];
  readonly meta: Readonly<Record<string, string>> | null;
  readonly display_name: string;
  /** Unix seconds. */
  readonly creation_time: number;
  /** Seconds; 0 = no expiry. */
  readonly creation_ttl: number;
  /** Seconds; 0 = none. */
  readonly explicit_max_ttl: number;
  /** Unix milliseconds; 0 = never expires. */
  readonly expire_time_ms: number;
  readonly renewable: boolean;
  readonly orphan: boolean;
  /** Hash of the parent token, when there is one. */
  readonly parent?: string;
  /** The path that created it: `auth/token/create`, `auth/token/root`, `auth/<m>/login`. */
  readonly path: string;
  /** Id of the namespace the token belongs to; absent = root (reference/secrets.md §6). */
  readonly namespace_id?: string;
  /** Seconds; set = a periodic token: each renewal resets its TTL to this, with no maximum but an explicit one. */
  readonly period?: number;
  /** CIDR blocks the token may be used from (elsewhere it is refused as unknown); absent = anywhere. */
  readonly bound_cidrs?: readonly string[];
  /**
   * The login that made it (a login token's only): its auth mount's accessor and the alias
   * name (JWT: the `user_claim` value), which templated policy paths read (policy/template.ts).
   */
  readonly alias?: { readonly mount_accessor: string; readonly name: string };
}

/** What `token`'s templated policy paths are filled in from; undefined for a token no login made. */
export function templateIdentity(token: StoredToken): TemplateIdentity | undefined {
  return token.alias && { mountAccessor: token.alias.mount_accessor, name: token.alias.name, metadata: token.meta ?? {} };
}

/** A token presented by a caller: the stored entry plus the token itself (memory only). */
export interface TokenEntry extends StoredToken {
  readonly id: string;
}

/** Options of {@link TokenStore.create}. */
export interface CreateTokenOptions {
  policies: string[];
  meta?: Record<string, string> | null;
  displayName?: string;
  /** Seconds; 0 = the default TTL (768 h); ignored for root tokens. */
  ttlS?: number;
  explicitMaxTtlS?: number;
  renewable?: boolean;
  parent?: TokenEntry;
  /** A caller-chosen token (root callers only; `-dev-root-token-id`). */
  id?: string;
  path: string;
  now: Date;
  /** Namespace id the token belongs to (default: root). */
  namespaceId?: string;
  /** Seconds; non-zero makes a periodic token whose TTL is the period (see {@link StoredToken.period}). */
  periodS?: number;
  /** CIDR blocks the token may be used from; empty = anywhere. */
  boundCidrs?: readonly string[];
  /** The login that makes it ({@link StoredToken.alias}). */
  alias?: StoredToken['alias'];
}

/**
 * The writes that keep a token's lease (lease/token-lease.ts) in step with the token; each
 * goes in the token's own batch, so a token and its lease never exist one without the other.
 */
export interface TokenLeaseHooks {
  created(entry: StoredToken): BackendOp[];
  renewed(previous: StoredToken, next: StoredToken): Promise<BackendOp[]>;
  revoked(entry: StoredToken): Promise<BackendOp[]>;
}

/** Where the token store keeps everything (root storage). */
export const TOKEN_PREFIX = 'sys/token/';
const ID = 'sys/token/id/';
const ACCESSOR = 'sys/token/accessor/';
const PARENT = 'sys/token/parent/';
/** Parents whose chain expiry is remembered at most (the least recently used go first). */
const MAX_CHAIN_CACHE = 10_000;
/** Hex SHA-256 of a token. */
export function hashToken(id: string): string {
  return sha256Hex(id);
}

/** Each stored entry with its token id, made once per entry object (see {@link withId}). */
const entriesWithId = new WeakMap<StoredToken, TokenEntry>();

/**
 * `entry` with the token `id` it was found by, frozen and shared: the same entry object (the
 * barrier's cached, frozen decode) gives the same result, since its hash names one id; every
 * request no longer copies the entry's fields (issue 30: the token lookup was 1.4 % of a KV read).
 */
function withId(entry: StoredToken, id: string): TokenEntry {
  let found = entriesWithId.get(entry);
  if (found === undefined || found.id !== id) {
    found = Object.freeze({ ...entry, id });
    entriesWithId.set(entry, found);
  }
  return found;
}

/** Creates, finds and revokes tokens in a Backend. */
export class TokenStore {
  /**
   * Parent hash → the earliest expiry (epoch ms; Infinity for none) of that parent and its
   * ancestors when last read, so a child token's request does not re-read its whole chain.
   * It only ever answers "alive" before that expiry, and that stays true: renewals only
   * move expiries later, and revoking an ancestor deletes the children with it. Emptied on
   * revoke (memory); bounded by {@link MAX_CHAIN_CACHE}.
   */
  private readonly chainExpiry = new LRUCache<string, number>({ max: MAX_CHAIN_CACHE });

  /** Called for every token {@link revoke} removes (children first), before its entry is deleted. */
  private readonly revokeListeners: Array<(entry: StoredToken) => Promise<void>> = [];

  /** Keeps each token's lease; set once by the core (absent: tokens have no leases, as in unit tests of the store). */
  private leaseHooks: TokenLeaseHooks | undefined;

  constructor(private readonly storage: Backend) {}

  /** Sets the writes that keep tokens' leases ({@link TokenLeaseHooks}). */
  keepLeases(hooks: TokenLeaseHooks): void {
    this.leaseHooks = hooks;
  }

  /**
   * Registers `listener`, awaited for each token revoked (a parent's children first) while
   * its entry still exists: what a token owns (its cubbyhole, its leases) goes with it.
   * A listener that throws stops the revocation, leaving the token in place to retry.
   */
  onRevoke(listener: (entry: StoredToken) => Promise<void>): void {
    this.revokeListeners.push(listener);
  }

  /** Tokens stored now (metrics), expired ones included until a lookup revokes them. */
  async count(): Promise<number> {
    return (await this.storage.list(ID)).length;
  }

  /**
   * Creates a token; returns it with its entry. Errors (400): a caller-chosen id that
   * is already in use.
   */
  async create(o: CreateTokenOptions): Promise<TokenEntry> {
    const id = o.id ?? `cs.${randomBase62(24)}`;
    const hash = hashToken(id);
    if (o.id !== undefined && (await this.storage.get(ID + hash))) throw badRequest('token with the given ID already exists');
    const root = o.policies.includes('root');
    const ttl = root ? 0 : o.periodS || o.ttlS || DEFAULT_LEASE_TTL_S;
    const capped = o.explicitMaxTtlS ? Math.min(ttl, o.explicitMaxTtlS) : ttl;
    const entry: StoredToken = {
      hash,
      accessor: randomBase62(24),
      policies: [...new Set(o.policies)].sort(),
      meta: o.meta ?? null,
      display_name: o.displayName ?? 'token',
      creation_time: Math.floor(o.now.getTime() / 1000),
      creation_ttl: capped,
      explicit_max_ttl: o.explicitMaxTtlS ?? 0,
      expire_time_ms: capped ? o.now.getTime() + capped * 1000 : 0,
      renewable: !root && (o.renewable ?? true),
      orphan: !o.parent,
      ...(o.parent ? { parent: o.parent.hash } : {}),
      path: o.path,
      ...(o.namespaceId && o.namespaceId !== 'root' ? { namespace_id: o.namespaceId } : {}),
      ...(o.periodS && !root ? { period: o.periodS } : {}),
      ...(o.boundCidrs?.length ? { bound_cidrs: [...o.boundCidrs] } : {}),
      ...(o.alias ? { alias: { ...o.alias } } : {}),
    };
    const ops: BackendOp[] = [
      { key: ID + hash, value: json.encode(entry) },
      { key: ACCESSOR + entry.accessor, value: Buffer.from(hash) },
    ];
    if (o.parent) ops.push({ key: `${PARENT}${o.parent.hash}/${hash}`, value: new Uint8Array() });
    if (this.leaseHooks) ops.push(...this.leaseHooks.created(entry));
    await this.storage.batch(ops);
    return { ...entry, id };
  }

  /**
   * The live entry of token `id`, or undefined when unknown, revoked or expired. A token
   * whose parent (or any ancestor) has expired is revoked here with its whole tree.
   */
  async lookup(id: string, now: Date): Promise<TokenEntry | undefined> {
    if (!id) return undefined;
    const hash = hashToken(id);
    const entry = await this.stored(hash);
    // The entry was found under this very hash, so the check only guards against a mis-stored
    // entry, and compares nothing the caller does not already know: no constant-time compare
    // (its two buffers were 1.6 % of a KV read's main thread).
    if (!entry || entry.hash !== hash) return undefined;
    if (!(await this.live(entry, now))) return undefined;
    return withId(entry, id);
  }

  /** The live entry behind an accessor (without the token id), or undefined. */
  async lookupAccessor(accessor: string, now: Date): Promise<StoredToken | undefined> {
    const hash = await this.storage.get(ACCESSOR + accessor);
    if (!hash) return undefined;
    const entry = await this.stored(Buffer.from(hash).toString());
    return entry && (await this.live(entry, now)) ? entry : undefined;
  }

  /**
   * Whether `entry` and each of its ancestors exist and have not expired. The first
   * expired one found is revoked (children included), so an expired tree is cleaned up
   * by the next request that touches it. Orphans (every login token) cost nothing more.
   */
  private async live(entry: StoredToken, now: Date): Promise<boolean> {
    const nowMs = now.getTime();
    if (entry.expire_time_ms && entry.expire_time_ms <= nowMs) {
      await this.revoke(entry.hash);
      return false;
    }
    if (!entry.parent) return true;
    const cached = this.chainExpiry.get(entry.parent);
    if (cached !== undefined && cached > nowMs) return true;
    // Walk the chain: the first expired ancestor is revoked with its tree.
    let earliest = Infinity;
    for (let t: StoredToken | undefined = await this.stored(entry.parent); ;) {
      if (!t) return false;
      if (t.expire_time_ms && t.expire_time_ms <= nowMs) {
        await this.revoke(t.hash);
        return false;
      }
      if (t.expire_time_ms) earliest = Math.min(earliest, t.expire_time_ms);
      if (!t.parent) break;
      t = await this.stored(t.parent);
    }
    this.chainExpiry.set(entry.parent, earliest);
    return true;
  }

  /**
   * When (epoch ms) `entry` stops being live: the earliest expiry of it and its ancestors;
   * 0 = never. The lease manager checks a token holding leases then (lease/manager.ts).
   */
  async chainExpiresAt(entry: StoredToken): Promise<number> {
    let earliest = entry.expire_time_ms || Infinity;
    for (let parent = entry.parent; parent;) {
      const t = await this.stored(parent);
      if (!t) break;
      if (t.expire_time_ms) earliest = Math.min(earliest, t.expire_time_ms);
      parent = t.parent;
    }
    return earliest === Infinity ? 0 : earliest;
  }

  /** The entry stored under token hash `hash` (frozen, possibly shared: see {@link StoredToken}), or undefined. */
  private stored(hash: string): Promise<StoredToken | undefined> {
    return readJson<StoredToken>(this.storage, ID + hash);
  }

  /**
   * Forgets the remembered chain expiries: another server revoked or changed tokens (a
   * performance standby hears of it from the change feed).
   */
  forgetChains(): void {
    this.chainExpiry.clear();
  }

  /** Revokes the token with hash `hash` and, recursively, every child token. */
  async revoke(hash: string): Promise<void> {
    this.chainExpiry.clear();
    const entry = await this.stored(hash);
    if (!entry) return;
    const children = await listRecursive(this.storage, `${PARENT}${hash}/`);
    for (const child of children) await this.revoke(child.slice(child.lastIndexOf('/') + 1));
    for (const listener of this.revokeListeners) await listener(entry);
    const ops: BackendOp[] = [{ key: ID + hash }, { key: ACCESSOR + entry.accessor }, ...children.map((key) => ({ key }))];
    if (entry.parent) ops.push({ key: `${PARENT}${entry.parent}/${hash}` });
    if (this.leaseHooks) ops.push(...(await this.leaseHooks.revoked(entry)));
    await this.storage.batch(ops);
  }

  /**
   * Revokes every token (and its children) whose creating path starts with `prefix`,
   * e.g. `auth/userpass/` when that auth method is disabled (reference/secrets.md §3.6).
   * Scans all tokens: meant for rare administrative operations. Returns how many matched.
   */
  async revokeByPathPrefix(prefix: string, namespaceId = 'root'): Promise<number> {
    let n = 0;
    for (const hash of await this.storage.list(ID)) {
      const entry = await this.stored(hash);
      if (!entry?.path.startsWith(prefix) || (entry.namespace_id ?? 'root') !== namespaceId) continue;
      await this.revoke(hash);
      n++;
    }
    return n;
  }

  /**
   * Extends a renewable token's TTL by `incrementS` (default: its creation TTL), capped
   * so that it ends no later than `creation_time + max`, where max is its explicit max
   * TTL or else `maxTtlS` (the token mount's maximum, reference/secrets.md §4.1). A
   * periodic token's TTL becomes its period whatever the increment, capped only by an
   * explicit max TTL (the reference's periodic tokens). Returns the renewed token and
   * whether the cap applied. Error (400): not renewable.
   */
  async renew(token: TokenEntry, incrementS: number, maxTtlS: number, now: Date): Promise<{ token: TokenEntry; capped: boolean }> {
    if (!token.renewable) throw badRequest('token is not renewable');
    const wanted = token.period || incrementS || token.creation_ttl;
    const max = token.explicit_max_ttl || (token.period ? Infinity : maxTtlS);
    const ttl = Math.max(0, Math.min(wanted, token.creation_time + max - Math.floor(now.getTime() / 1000)));
    const updated: StoredToken = { ...withoutId(token), expire_time_ms: now.getTime() + ttl * 1000 };
    const leaseOps = this.leaseHooks ? await this.leaseHooks.renewed(token, updated) : [];
    await this.storage.batch([{ key: ID + token.hash, value: json.encode(updated) }, ...leaseOps]);
    return { token: { ...updated, id: token.id }, capped: ttl < wanted };
  }
}

function withoutId(t: TokenEntry): StoredToken {
  const { id: _id, ...rest } = t;
  return rest;
}

/** Remaining lifetime in whole seconds (0 for tokens that never expire). */
function remainingTtlS(t: StoredToken, now: Date): number {
  return t.expire_time_ms ? Math.max(0, Math.floor((t.expire_time_ms - now.getTime()) / 1000)) : 0;
}

/** The token-issuing block of a response (reference/secrets.md §1.3, §4.2). */
export interface AuthBlock {
  client_token: string;
  accessor: string;
  policies: readonly string[];
  token_policies: readonly string[];
  metadata: Readonly<Record<string, string>> | null;
  lease_duration: number;
  renewable: boolean;
  entity_id: string;
  token_type: 'service';
  orphan: boolean;
  mfa_requirement: null;
  num_uses: number;
}

/** The `auth` block of a token-issuing response (reference/secrets.md §4.2). */
export function authBlock(t: TokenEntry, now: Date): AuthBlock {
  const tokenPolicies = t.policies;
  return {
    client_token: t.id,
    accessor: t.accessor,
    policies: tokenPolicies,
    token_policies: tokenPolicies,
    metadata: t.meta,
    lease_duration: remainingTtlS(t, now),
    renewable: t.renewable,
    entity_id: '',
    token_type: 'service',
    orphan: t.orphan,
    mfa_requirement: null,
    num_uses: 0,
  };
}

/** The `data` of `lookup` / `lookup-self` (reference/secrets.md §4.1). */
export function lookupData(t: StoredToken & { id?: string }, now: Date): Record<string, unknown> {
  return {
    accessor: t.accessor,
    creation_time: t.creation_time,
    creation_ttl: t.creation_ttl,
    display_name: t.display_name,
    entity_id: '',
    expire_time: t.expire_time_ms ? new Date(t.expire_time_ms).toISOString() : null,
    explicit_max_ttl: t.explicit_max_ttl,
    id: t.id ?? '',
    issue_time: new Date(t.creation_time * 1000).toISOString(),
    meta: t.meta,
    num_uses: 0,
    orphan: t.orphan,
    path: t.path,
    policies: t.policies,
    renewable: t.renewable,
    ttl: remainingTtlS(t, now),
    type: 'service',
    ...(t.period ? { period: t.period } : {}),
    ...(t.bound_cidrs ? { bound_cidrs: [...t.bound_cidrs] } : {}),
  };
}
