/**
 * What the lock and the semaphore recipes share (reference: Consul's `api/lock.go`,
 * `api/semaphore.go` and `Session.RenewPeriodic`): a session they make and renew until
 * they let go, a pause that a stop signal cuts short, and which failed reads are worth
 * retrying.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MeshApiError, MeshConnectionError } from './mesh-call.js';
import type { MeshKv } from './mesh-kv.js';
import type { MeshSession } from './mesh-session.js';

/** What the lock and semaphore recipes use of the client (mesh.ts `MeshClient`): its KV store and its sessions. */
export interface MeshLockClient {
  readonly kv: MeshKv;
  readonly session: MeshSession;
}

/** A lock session's TTL unless told (the reference's `DefaultLockSessionTTL`). */
export const DEFAULT_LOCK_SESSION_TTL = '15s';

/** Longest blocking read while waiting for a lock or a slot (the reference's `DefaultLockWaitTime`), ms. */
export const LOCK_WAIT_MS = 15_000;

/** Waits `ms`; false when `signal` aborted first. */
export async function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Whether a failed read may be retried: the service unreachable or a 5xx. */
function retryable(err: unknown): boolean {
  return err instanceof MeshConnectionError || (err instanceof MeshApiError && err.status >= 500);
}

/**
 * Watches a held lock or slot with blocking reads: `stillHeld` reads it (blocking past
 * `index` when given). `lost` aborts once a read says it is no longer held, or reads fail
 * more than `retries` times in a row (`retryMs` apart; only failures worth a retry count,
 * others end it at once); aborting `stop` ends the watch without aborting `lost`.
 */
export function monitorHolding(o: {
  readonly stillHeld: (index: number | undefined, signal: AbortSignal) => Promise<{ held: boolean; index: number }>;
  readonly retries: number;
  readonly retryMs: number;
}): { lost: AbortSignal; stop: AbortController } {
  const lost = new AbortController();
  const stop = new AbortController();
  void (async () => {
    let index: number | undefined;
    let left = o.retries;
    while (!stop.signal.aborted) {
      try {
        const r = await o.stillHeld(index, stop.signal);
        left = o.retries;
        if (!r.held) break;
        index = r.index;
      } catch (err) {
        if (stop.signal.aborted) return;
        if (left > 0 && retryable(err)) {
          left--;
          index = undefined;
          if (!(await pause(o.retryMs, stop.signal))) return;
          continue;
        }
        break;
      }
    }
    if (!stop.signal.aborted) lost.abort();
  })();
  return { lost: lost.signal, stop };
}

/** A Go duration of whole ms, seconds or minutes (`15s`) in ms; undefined for other forms. */
function simpleDurationMs(d: string): number | undefined {
  const m = /^(\d+)(ms|s|m)$/.exec(d);
  if (!m) return undefined;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
}

/**
 * A session renewed every TTL/2 (every second after a failed renew, until a TTL passed
 * without one; it stops renewing once the session is gone) and destroyed by {@link stop}.
 */
export class RenewedSession {
  private constructor(
    readonly id: string,
    private readonly halt: AbortController,
    private readonly loop: Promise<void>,
  ) {}

  /** Creates the session and starts renewing it. @throws MeshApiError / MeshConnectionError when it cannot be made. */
  static async start(client: MeshLockClient, o: { readonly name: string; readonly ttl: string; readonly lockDelay?: string }): Promise<RenewedSession> {
    const id = await client.session.create({ Name: o.name, TTL: o.ttl, LockDelay: o.lockDelay });
    const halt = new AbortController();
    const loop = (async () => {
      let ttlMs = simpleDurationMs(o.ttl) ?? 15_000;
      let waitMs = ttlMs / 2;
      let lastRenew = Date.now();
      while (await pause(waitMs, halt.signal)) {
        try {
          const entry = await client.session.renew(id);
          if (!entry) return; // gone: invalidated; the holder's monitor sees its keys go
          ttlMs = simpleDurationMs(entry.TTL) ?? ttlMs;
          waitMs = ttlMs / 2;
          lastRenew = Date.now();
        } catch {
          if (Date.now() - lastRenew > ttlMs) return;
          waitMs = 1000;
        }
      }
    })();
    return new RenewedSession(id, halt, loop);
  }

  /** Stops renewing and destroys the session (a failure to destroy is ignored: its TTL ends it). */
  async stop(client: MeshLockClient): Promise<void> {
    this.halt.abort();
    await this.loop;
    await client.session.destroy(this.id).catch(() => undefined);
  }
}
