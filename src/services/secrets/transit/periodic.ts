/**
 * Automatic rotation (`auto_rotate_period`, reference/secrets-engines.md §6): on the active
 * server, a round (mounts/periodic.ts, every second) at most once a minute per mount rotates
 * every key whose latest version is at least its period old — the period is at least an
 * hour, so a minute late is on time, and a mount of many keys is not read every second. The
 * time of the last rotation is the latest version's creation time, so a failover or restart
 * carries on from storage.
 *
 * @module
 */
import type { EngineResource } from '../engine-resources.js';
import type { EnginePeriodicContext } from '../core.js';
import { withKeyLock } from './locks.js';
import { listKeys, loadKey, rotated, saveKey, type TransitKey } from './policy.js';

/** Whether `key` is due for automatic rotation at `now`. */
function due(key: TransitKey, now: Date): boolean {
  if (key.auto_rotate_period <= 0) return false;
  const latest = key.versions[String(key.latest_version)];
  return !latest || now.getTime() - Date.parse(latest.creation_time) >= key.auto_rotate_period * 1000;
}

/** Pause between two scans of one mount's keys, ms of the injected clock. */
const SCAN_INTERVAL_MS = 60_000;

/** When this core last scanned a mount (kept with the core: engine-resources.ts). */
class LastScan implements EngineResource {
  at = -Infinity;
  async close(): Promise<void> {}
}

/** Rotates the keys of `ctx.mount` that are due. Errors propagate (the loop logs them and retries next round). */
export async function transitPeriodic(ctx: EnginePeriodicContext): Promise<void> {
  const last = ctx.core.resources.get(`${ctx.mount.uuid}/transit-last-scan`, () => new LastScan());
  if (ctx.now.getTime() - last.at < SCAN_INTERVAL_MS) return;
  last.at = ctx.now.getTime();
  for (const name of await listKeys(ctx.storage)) {
    const key = await loadKey(ctx.storage, name);
    if (!key || !due(key, ctx.now)) continue;
    await withKeyLock(ctx.core, ctx.mount, name, async () => {
      const fresh = await loadKey(ctx.storage, name);
      if (fresh && due(fresh, ctx.now)) await saveKey(ctx.storage, await rotated(fresh, ctx.now));
    });
  }
}
