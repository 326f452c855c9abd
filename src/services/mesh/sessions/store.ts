/**
 * Sessions and KV locks in the state store (issue 16 scope 5; reference/mesh-catalog.md
 * "Sessions"; the reference's state store `sessionCreateTxn`, `deleteSessionTxn`,
 * `kvsLockTxn`, `kvsUnlockTxn` and its lock-delay map):
 *
 * - table `sessions`: one document per session, keyed by its ID, in the reply's fields;
 * - table `session-timers`: `{ID, ExpiresAt}` of each TTL session (apart from the session so
 *   a renew does not move the session's `ModifyIndex` nor wake its readers, as in the
 *   reference, where the timer lives outside the state); the leader's `ExpiryReaper`
 *   deletes a due timer and, in the same transaction, invalidates its session;
 * - table `kv-lock-delays`: `{Namespace?, Key, Until}` per key a session held when it was
 *   invalidated; until `Until` (epoch ms) no session may acquire the key. Stored rather
 *   than kept in memory so every agent sharing the state (and a new leader) honours it.
 *
 * A session is invalidated (destroyed, its locks released or its keys deleted per
 * `Behavior`, a lock delay set on each) by `PUT /session/destroy`, by its TTL passing
 * twice without a renew, and by {@link reconcileSessions} in the transaction of every
 * catalog write: its node gone, or one of its checks gone or critical.
 *
 * @module
 */
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { CT, memberKey, type CheckDoc, type NodeDoc } from '../catalog/model.js';
import { deleteKv, KV, kvId, type KvDoc, type KvKeyRef, type KvWrite } from '../kv-store.js';
import { nsField, nsOf, T } from '../state.js';

/** The session tables (declared in state.ts). */
export const ST = { sessions: T.sessions, timers: T.sessionTimers, lockDelays: T.kvLockDelays } as const;

/** What happens to a session's keys when it is invalidated. */
export type Behavior = 'release' | 'delete';

/** A service check a session is linked to (the reference's `ServiceCheck`). */
export interface ServiceCheckRef {
  readonly ID: string;
  readonly Namespace: string;
}

/** A stored session, in the reference's field names. */
export interface SessionDoc {
  readonly ID: string;
  readonly Name: string;
  readonly Node: string;
  /** Nanoseconds (the reference's `time.Duration` JSON). */
  readonly LockDelay: number;
  readonly Behavior: Behavior;
  /** A Go duration string (`"30s"`) as the client gave it, `""` for none. */
  readonly TTL: string;
  readonly NodeChecks: readonly string[];
  readonly ServiceChecks: readonly ServiceCheckRef[];
}

/** A TTL session's timer. */
export interface SessionTimer {
  readonly ID: string;
  /** When the session is invalidated without a renew, epoch ms (renew time + 2 × TTL). */
  readonly ExpiresAt: number;
}

/** A key's lock delay. */
export interface LockDelayDoc {
  readonly Namespace?: string;
  readonly Key: string;
  /** Until when no session may acquire the key, epoch ms. */
  readonly Until: number;
}

/** The reference's `SessionTTLMultiplier`: a TTL session goes after twice its TTL without a renew. */
const TTL_MULTIPLIER = 2;

/** A session's check IDs on its node: node checks and service checks alike. */
function checkIdsOf(s: SessionDoc): string[] {
  return [...s.NodeChecks, ...s.ServiceChecks.map((c) => c.ID)];
}

/**
 * Why session `s` cannot be created, or undefined when it can (the reference's
 * `sessionCreateTxn` texts): `Missing node registration`, `Missing check '<id>'
 * registration`, `Check '<id>' is in critical state`.
 */
export function createProblem(tx: Pick<Txn, 'get'>, s: SessionDoc): string | undefined {
  if (!tx.get<NodeDoc>(CT.nodes, s.Node)) return 'Missing node registration';
  for (const id of checkIdsOf(s)) {
    const check = tx.get<CheckDoc>(CT.checks, memberKey(s.Node, id));
    if (!check) return `Missing check '${id}' registration`;
    if (check.Status === 'critical') return `Check '${id}' is in critical state`;
  }
  return undefined;
}

/** Stores session `s` and, for a TTL of `ttlMs` > 0, its timer from `nowMs`. */
export function putSession(tx: Txn, s: SessionDoc, ttlMs: number, nowMs: number): SessionDoc & Indexed {
  const stored = tx.put(ST.sessions, s.ID, s);
  if (ttlMs > 0) startTimer(tx, s.ID, ttlMs, nowMs);
  return stored;
}

/** (Re)starts the timer of session `id`: it is invalidated at `nowMs` + 2 × `ttlMs` (epoch ms) unless renewed. */
export function startTimer(tx: Txn, id: string, ttlMs: number, nowMs: number): void {
  tx.put<SessionTimer>(ST.timers, id, { ID: id, ExpiresAt: nowMs + TTL_MULTIPLIER * ttlMs });
}

/**
 * Invalidates session `id` (the reference's `deleteSessionTxn`): deletes it and its timer;
 * each key it holds is released (`Session` cleared, `LockIndex` kept) or, for `Behavior`
 * `delete`, deleted; each gets a lock delay of the session's `LockDelay` from `nowMs`.
 * Returns false when there was no such session.
 */
export function invalidateSession(tx: Txn, id: string, nowMs: number): boolean {
  const s = tx.get<SessionDoc>(ST.sessions, id);
  if (!s) return false;
  tx.delete(ST.sessions, id);
  tx.delete(ST.timers, id);
  // Every key is visited: held keys are few and sessions end rarely; an index by session
  // would cost every KV write.
  const held = tx.list<KvDoc>(KV.entries).filter((d) => d.Session === id);
  for (const d of held) {
    const ns = nsOf(d);
    if (s.Behavior === 'delete') {
      deleteKv(tx, ns, d.Key, nowMs);
    } else {
      const { Session: _gone, CreateIndex: _c, ModifyIndex: _m, ...rest } = d;
      tx.put<KvDoc>(KV.entries, kvId(ns, d.Key), rest);
    }
    const delayMs = s.LockDelay / 1e6;
    if (delayMs > 0) tx.put<LockDelayDoc>(ST.lockDelays, kvId(ns, d.Key), { ...nsField(ns), Key: d.Key, Until: nowMs + delayMs });
  }
  return true;
}

/**
 * Invalidates the sessions of `node` that lost their footing in `tx` (the reference
 * invalidates them as it writes the check or deletes the node): the node is gone, or one
 * of a session's checks is gone or critical. Every transaction writing the catalog calls
 * it for the node it wrote. Returns how many sessions went.
 */
export function reconcileSessions(tx: Txn, node: string, nowMs: number): number {
  const nodeGone = !tx.get<NodeDoc>(CT.nodes, node);
  let n = 0;
  for (const s of tx.list<SessionDoc>(ST.sessions)) {
    if (s.Node !== node) continue;
    const broken =
      nodeGone ||
      checkIdsOf(s).some((id) => {
        const c = tx.get<CheckDoc>(CT.checks, memberKey(node, id));
        return !c || c.Status === 'critical';
      });
    if (broken && invalidateSession(tx, s.ID, nowMs)) n++;
  }
  return n;
}

/** A lock taken or released on a key: the key and the session (an ID; `''` is an error). */
export interface KvLock extends KvKeyRef {
  readonly session: string;
}

/** The outcome of an acquire or release: stored or not, or the reference's error text. */
export type LockResult = boolean | { readonly error: string };

/**
 * `?acquire=<session>` (the reference's `kvsLockTxn` and its lock-delay check): stores the
 * value and takes the lock when the key is free or already this session's; a new holder
 * raises `LockIndex`. False (nothing stored) when another session holds the key or a lock
 * delay still runs at `nowMs`.
 * Errors: `missing session`, `invalid session "<id>"` (no such session).
 */
export function acquireKv(tx: Txn, { ns, key, session }: KvLock, write: KvWrite, nowMs: number): LockResult {
  if (session === '') return { error: 'missing session' };
  if (!tx.get<SessionDoc>(ST.sessions, session)) return { error: `invalid session "${session}"` };
  const delay = tx.get<LockDelayDoc>(ST.lockDelays, kvId(ns, key));
  if (delay && delay.Until > nowMs) return false;
  const existing = tx.get<KvDoc>(KV.entries, kvId(ns, key));
  if (existing?.Session !== undefined && existing.Session !== session) return false;
  const lockIndex = (existing?.LockIndex ?? 0) + (existing?.Session === session ? 0 : 1);
  tx.put<KvDoc>(KV.entries, kvId(ns, key), { ...nsField(ns), Key: key, Flags: write.flags, Value: write.value, LockIndex: lockIndex, Session: session });
  return true;
}

/**
 * `?release=<session>` (the reference's `kvsUnlockTxn`): stores the value and drops the
 * lock when `session` holds the key; false (nothing stored) otherwise.
 * Errors: `missing session`.
 */
export function releaseKv(tx: Txn, { ns, key, session }: KvLock, write: KvWrite): LockResult {
  if (session === '') return { error: 'missing session' };
  const existing = tx.get<KvDoc>(KV.entries, kvId(ns, key));
  if (!existing || existing.Session !== session) return false;
  tx.put<KvDoc>(KV.entries, kvId(ns, key), { ...nsField(ns), Key: key, Flags: write.flags, Value: write.value, LockIndex: existing.LockIndex });
  return true;
}

/** When timer `t` fires, epoch ms (for the leader's `ExpiryReaper`, agent.ts). */
export const timerExpiry = (t: SessionTimer): number => t.ExpiresAt;

/** When lock delay `d` may be forgotten, epoch ms (for the leader's `ExpiryReaper`). */
export const lockDelayExpiry = (d: LockDelayDoc): number => d.Until;

/** The state ID of lock delay `d`. */
export const lockDelayId = (d: LockDelayDoc): string => kvId(nsOf(d), d.Key);
