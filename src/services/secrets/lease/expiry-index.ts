/**
 * The expiry index: what is due when, so the expiry loop reads only what is due instead
 * of every lease. Keys are `sys/lease/expiry/<hour>/<ms>-<random>` with both numbers
 * zero-padded, so the backend's sorted `list` returns them in time order: a round lists
 * the hour buckets (at most one per hour of the longest TTL), stops at the first one
 * still in the future, and within a due bucket stops at the first entry not yet due.
 *
 * @module
 */
import { json, readJson, type Backend } from '../../../kernel/store/index.js';
import { randomBase62 } from '../../../kernel/util/base62.js';
import { LEASE_PREFIX } from './entry.js';

const EXPIRY = `${LEASE_PREFIX}expiry/`;
const HOUR_MS = 3_600_000;

/** What an index entry stands for: a lease to revoke, or a token whose leases go when it expires. */
export type DueItem =
  { readonly kind: 'lease'; readonly ns: string; readonly id: string } | { readonly kind: 'token'; readonly hash: string; readonly accessor: string };

/** One entry found due: its key (to delete once handled) and what it stands for. */
export interface Due {
  readonly key: string;
  readonly item: DueItem;
}

/** A new index key for time `atMs` (epoch ms). */
export function expiryKey(atMs: number): string {
  const hour = String(Math.floor(atMs / HOUR_MS)).padStart(10, '0');
  return `${EXPIRY}${hour}/${String(Math.max(0, Math.floor(atMs))).padStart(15, '0')}-${randomBase62(8)}`;
}

/** The write that puts `item` in the index under `key` (for a caller's atomic batch). */
export const indexOp = (key: string, item: DueItem) => ({ key, value: json.encode(item) });

/**
 * The entries due at `nowMs` (epoch ms), oldest first, at most `limit`. Reads one list
 * of the hour buckets, then only the due buckets.
 */
export async function dueEntries(storage: Backend, nowMs: number, limit: number): Promise<Due[]> {
  const out: Due[] = [];
  for (const bucket of await storage.list(EXPIRY)) {
    if (Number.parseInt(bucket, 10) * HOUR_MS > nowMs) break;
    for (const name of await storage.list(EXPIRY + bucket)) {
      if (Number.parseInt(name.slice(0, 15), 10) > nowMs) break;
      const key = EXPIRY + bucket + name;
      const item = await readJson<DueItem>(storage, key);
      if (item) out.push({ key, item });
      if (out.length >= limit) return out;
    }
  }
  return out;
}
