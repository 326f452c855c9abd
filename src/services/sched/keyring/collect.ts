/**
 * Which retired root keys the leader may delete (keyring.ts, step 3; the reference's root key
 * GC with `root_key_gc_threshold`). A key signs only while it is active, so a token of a
 * retired key K was signed before K's `InactiveTime`. K goes once
 * - no live allocation was created before `InactiveTime` (a live allocation may hold a token
 *   of K that does not expire: its default identity, or a named one without a TTL), and
 * - `InactiveTime` is older than both `root_key_gc_threshold` and the longest identity TTL of
 *   the live allocations (a refreshed token signed just before the rotation lives that long).
 *
 * @module
 */
import type { StateStore } from '../../../kernel/store/index.js';
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import { T } from '../state.js';
import type { RootKeyDoc } from './root-key.js';

/** What {@link collectableKeys} decides on. */
interface Collect {
  readonly state: StateStore;
  readonly keys: readonly RootKeyDoc[];
  /** Unix ns. */
  readonly nowNs: number;
  readonly gcThresholdNs: number;
}

/** The IDs of retired keys to delete now (module doc). */
export function collectableKeys(c: Collect): string[] {
  const retired = c.keys.filter((k) => k.State === 'inactive' && k.InactiveTime !== undefined);
  if (retired.length === 0) return [];
  let oldestLive = Infinity;
  let longestTtl = 0;
  for (const a of c.state.list<StoredAlloc>(T.allocs)) {
    if (allocTerminal(a)) continue;
    oldestLive = Math.min(oldestLive, a.CreateTime);
    const group = a.Job?.TaskGroups.find((g) => g.Name === a.TaskGroup);
    for (const t of group?.Tasks ?? []) {
      for (const id of [t.Identity, ...(t.Identities ?? [])]) longestTtl = Math.max(longestTtl, id?.TTL ?? 0);
    }
    // Service identities (jobs/consul-identities.ts) are refreshed tokens too.
    for (const s of [...(group?.Services ?? []), ...(group?.Tasks ?? []).flatMap((t) => t.Services ?? [])])
      longestTtl = Math.max(longestTtl, s.Identity?.TTL ?? 0);
  }
  const wait = Math.max(c.gcThresholdNs, longestTtl);
  return retired.filter((k) => oldestLive >= k.InactiveTime! && c.nowNs >= k.InactiveTime! + wait).map((k) => k.KeyID);
}
