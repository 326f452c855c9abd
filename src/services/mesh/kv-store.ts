/**
 * The key/value store's tables and operations (issue 16 scope 4; reference/mesh-catalog.md
 * "Key/value store"), as the reference's state store keeps them:
 *
 * - table `kv`: one document per key, `{Key, Flags, Value (base64, null when empty),
 *   LockIndex, Session?, Namespace?}`, in key order;
 * - table `kv-tombstones`: one per deleted key, its `ModifyIndex` the delete's index (the
 *   reference's graveyard), so the index of a prefix moves when a key under it goes and a
 *   blocking query on the prefix wakes; reaped by the leader after {@link TOMBSTONE_TTL_MS};
 * - table `kv-meta`: `graveyard` → `{ReapedIndex}`, the index of the newest tombstone
 *   reaped, below which no prefix's index falls (without it a prefix whose tombstone went
 *   would report the older index of its remaining keys: the index would go back);
 * - indexes: a key's is its `ModifyIndex`, else the tables' index; a prefix's is the
 *   highest `ModifyIndex` of its keys and tombstones (and the reaped watermark), else the
 *   tables' index (the reference's `kvsGetTxn` / `kvsListTxn`).
 *
 * Keys of the `default` namespace are stored under their own name; keys of another one
 * (enterprise switch) under `\0<ns>\0<key>`: keys never hold NUL (routes/kv.ts refuses
 * them), so the namespaces cannot meet and each is one contiguous run of ids.
 *
 * @module
 */
import type { Indexed, StateStore, Txn } from '../../kernel/store/index.js';
import { DEFAULT_NAMESPACE } from './namespace.js';
import { nsField, nsOf, T } from './state.js';

/** The KV tables (declared in state.ts). */
export const KV = { entries: T.kv, tombstones: T.kvTombstones, meta: T.kvMeta } as const;

/** The `kv-meta` document keeping the reaped watermark. */
interface GraveyardDoc {
  /** The highest `ModifyIndex` of a reaped tombstone. */
  readonly ReapedIndex: number;
}
const GRAVEYARD = 'graveyard';

/** A stored key. */
export interface KvDoc {
  /** Enterprise: the namespace; absent means `default`. */
  readonly Namespace?: string;
  readonly Key: string;
  /** Opaque to the store: clients' own meaning (uint64 in the reference; here up to 2^53 − 1). */
  readonly Flags: number;
  /** The value, base64; null when empty (as the reference's nil byte slice). */
  readonly Value: string | null;
  /** How many times a session acquired the key. */
  readonly LockIndex: number;
  /** The session holding the key, if one does. */
  readonly Session?: string;
}

/** A deleted key's tombstone. */
export interface KvTombstone {
  readonly Namespace?: string;
  readonly Key: string;
  /** When the key was deleted, epoch ms (tombstones are reaped after {@link TOMBSTONE_TTL_MS}). */
  readonly DeletedAt: number;
}

/** How long a tombstone is kept, in ms (the reference's `tombstone_ttl`, 15 minutes). */
const TOMBSTONE_TTL_MS = 15 * 60_000;

/** The state ID of `key` in namespace `ns` (module doc). */
export function kvId(ns: string, key: string): string {
  return ns === DEFAULT_NAMESPACE ? key : `\0${ns}\0${key}`;
}

/**
 * The documents of `table` whose key starts with `prefix` in namespace `ns`, in key order,
 * read from the sorted table (only the run of the prefix is visited).
 */
function* under<T extends { readonly Key: string; readonly Namespace?: string }>(
  read: Pick<StateStore, 'scan'>,
  table: string,
  ns: string,
  prefix: string,
): Generator<T & Indexed> {
  const start = kvId(ns, prefix);
  // The default namespace's ids never start with NUL: skip the other namespaces' run.
  for (const doc of read.scan<T>(table, start === '' ? '\u0001' : start)) {
    if (nsOf(doc) !== ns || !doc.Key.startsWith(prefix)) return;
    yield doc;
  }
}

/** Every key under `prefix` in `ns` (`''`: all of them), in key order. */
export function listKv(read: Pick<StateStore, 'scan'>, ns: string, prefix: string): (KvDoc & Indexed)[] {
  return [...under<KvDoc>(read, KV.entries, ns, prefix)];
}

/** The index of both KV tables (never below what a read reported before: the tables' index never goes down). */
function kvTablesIndex(state: StateStore): number {
  return state.tableIndex(KV.entries, KV.tombstones);
}

/** The index a read of `key` reports: its `ModifyIndex`, else the tables' index. */
export function keyIndex(state: StateStore, ns: string, key: string): number {
  return state.get<KvDoc>(KV.entries, kvId(ns, key))?.ModifyIndex ?? kvTablesIndex(state);
}

/**
 * The index a read of `prefix` reports: the highest `ModifyIndex` of its keys and
 * tombstones; the tables' index for `''` or when there are none.
 */
export function prefixIndex(state: StateStore, ns: string, prefix: string): number {
  if (prefix === '') return kvTablesIndex(state);
  let highest = state.get<GraveyardDoc>(KV.meta, GRAVEYARD)?.ReapedIndex ?? 0;
  for (const table of [KV.entries, KV.tombstones]) {
    for (const doc of under<{ Key: string }>(state, table, ns, prefix)) highest = Math.max(highest, doc.ModifyIndex);
  }
  return highest || kvTablesIndex(state);
}

/**
 * `?keys` with `separator`: the keys of `entries` under `prefix`, each cut after the first
 * `separator` past the prefix (so `a/b/c` under `a/` with `/` gives `a/b/`), without
 * repeats; every key whole when `separator` is empty (the reference's `KVS.ListKeys`).
 */
export function rollUpKeys(entries: readonly KvDoc[], prefix: string, separator: string): string[] {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const { Key } of entries) {
    const at = separator === '' ? -1 : Key.indexOf(separator, prefix.length);
    const key = at < 0 ? Key : Key.slice(0, at + separator.length);
    if (!seen.has(key)) keys.push(key);
    seen.add(key);
  }
  return keys;
}

/** One key of the store: its namespace (`''` outside Enterprise) and its path. */
export interface KvKeyRef {
  readonly ns: string;
  readonly key: string;
}

/** What a write stores: the value (base64 or null) and its flags. */
export interface KvWrite {
  readonly value: string | null;
  readonly flags: number;
}

/**
 * Stores `key` (the reference's `KVSet`): a new key starts with `LockIndex` 0; an existing
 * one keeps its `CreateIndex`, `LockIndex` and `Session`.
 */
export function setKv(tx: Txn, ns: string, key: string, write: KvWrite): KvDoc & Indexed {
  const existing = tx.get<KvDoc>(KV.entries, kvId(ns, key));
  const doc: KvDoc = {
    ...nsField(ns),
    Key: key,
    Flags: write.flags,
    Value: write.value,
    LockIndex: existing?.LockIndex ?? 0,
    ...(existing?.Session !== undefined && { Session: existing.Session }),
  };
  return tx.put(KV.entries, kvId(ns, key), doc);
}

/**
 * Check-and-set (the reference's `KVCAS`): stores `at.key` only when its `ModifyIndex` is
 * `cas`, or for `cas` 0 only when it does not exist. Returns whether it stored.
 */
export function casKv(tx: Txn, { ns, key }: KvKeyRef, cas: number, write: KvWrite): boolean {
  const existing = tx.get<KvDoc>(KV.entries, kvId(ns, key));
  if (cas === 0 ? existing !== undefined : existing?.ModifyIndex !== cas) return false;
  setKv(tx, ns, key, write);
  return true;
}

/** Deletes `key` and leaves its tombstone; false when there was none. */
export function deleteKv(tx: Txn, ns: string, key: string, nowMs: number): boolean {
  const id = kvId(ns, key);
  if (!tx.delete(KV.entries, id)) return false;
  tx.put<KvTombstone>(KV.tombstones, id, { ...nsField(ns), Key: key, DeletedAt: nowMs });
  return true;
}

/**
 * Deletes `at.key` only when its `ModifyIndex` is `cas` (the reference's `KVDeleteCAS`),
 * leaving a tombstone stamped `nowMs` (epoch ms). Returns true when it deleted, and, as
 * the reference, when there was no such key.
 */
export function deleteKvCas(tx: Txn, { ns, key }: KvKeyRef, cas: number, nowMs: number): boolean {
  const existing = tx.get<KvDoc>(KV.entries, kvId(ns, key));
  if (!existing) return true;
  if (existing.ModifyIndex !== cas) return false;
  return deleteKv(tx, ns, key, nowMs);
}

/** Deletes every key under `prefix` in `ns` (`''`: all), each leaving a tombstone. Returns how many. */
export function deleteKvTree(tx: Txn, ns: string, prefix: string, nowMs: number): number {
  const keys = tx
    .list<KvDoc>(KV.entries)
    .filter((d) => nsOf(d) === ns && d.Key.startsWith(prefix))
    .map((d) => d.Key);
  for (const key of keys) deleteKv(tx, ns, key, nowMs);
  return keys.length;
}

/** Raises the reaped watermark to tombstone `t`'s index (the reaper's `onDelete`, in its transaction). */
export function recordReaped(tx: Txn, t: KvTombstone & Indexed): void {
  const floor = tx.get<GraveyardDoc>(KV.meta, GRAVEYARD)?.ReapedIndex ?? 0;
  if (t.ModifyIndex > floor) tx.put<GraveyardDoc>(KV.meta, GRAVEYARD, { ReapedIndex: t.ModifyIndex });
}

/** When tombstone `t` may be reaped, epoch ms (for the leader's `ExpiryReaper`, agent.ts). */
export const tombstoneExpiry = (t: KvTombstone): number => t.DeletedAt + TOMBSTONE_TTL_MS;

/** The state ID of tombstone `t`. */
export const tombstoneId = (t: KvTombstone): string => kvId(nsOf(t), t.Key);
