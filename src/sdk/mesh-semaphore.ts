/**
 * The semaphore recipe: at most `limit` holders at once under a prefix of the discovery
 * service's key/value store (reference: Consul's `api.Semaphore`, `api/semaphore.go`, which
 * `consul lock -n=N` uses):
 *
 * ```ts
 * const slot = new MeshSemaphore(mesh, { prefix: 'service/worker', limit: 3 });
 * const lost = await slot.acquire(stop);   // waits for a free slot; undefined when `stop` aborted first
 * await slot.release();                    // frees the slot, deletes the contender key, destroys the session
 * await slot.destroy();                    // deletes the `.lock` key when no live holder is left
 * ```
 *
 * Each contender holds the key `<prefix>/<session>` with its session; the key
 * `<prefix>/.lock` holds `{"Limit": N, "Holders": {"<session>": true}}`, changed only by
 * check-and-set. Holders whose contender key no session holds any more are dropped.
 * Both keys carry {@link MESH_SEMAPHORE_FLAGS}.
 *
 * @module
 */
import { posix } from 'node:path';
import type { MeshKvEntry } from './mesh-kv.js';
import { DEFAULT_LOCK_SESSION_TTL, LOCK_WAIT_MS, monitorHolding, RenewedSession, type MeshLockClient } from './mesh-lock-session.js';

/** The flags of semaphore keys: the low 53 bits of the reference's `SemaphoreFlagValue` (0xe0f69a2baa414de0), see MESH_LOCK_FLAGS. */
export const MESH_SEMAPHORE_FLAGS = 0x169a2baa414de0;

/** A key under the prefix is not part of a semaphore: `Existing key does not match semaphore use`. */
export class MeshSemaphoreConflictError extends Error {
  override readonly name = 'MeshSemaphoreConflictError';
  constructor() {
    super('Existing key does not match semaphore use');
  }
}

/** {@link MeshSemaphore.destroy} found live holders: `Semaphore in use`. */
export class MeshSemaphoreInUseError extends Error {
  override readonly name = 'MeshSemaphoreInUseError';
  constructor() {
    super('Semaphore in use');
  }
}

/** Options of a {@link MeshSemaphore}. */
export interface MeshSemaphoreOptions {
  /** The prefix (the CLI's `PREFIX`); the keys are `<prefix>/.lock` and `<prefix>/<session>`. */
  readonly prefix: string;
  /** Holders at once (≥ 1); every contender must agree on it. */
  readonly limit: number;
  /** The contender key's value (default empty). */
  readonly value?: Buffer | string;
  /** The session's name (default `Mesh API Semaphore`). */
  readonly sessionName?: string;
  /** The session's TTL (default 15s). */
  readonly sessionTtl?: string;
  /** True: give up when no slot is held within `waitMs`. */
  readonly tryOnce?: boolean;
  /** With `tryOnce`: how long to try, ms (default 15 000). */
  readonly waitMs?: number;
  /** Failed reads tolerated while held before the slot counts as lost (default 0). */
  readonly monitorRetries?: number;
  /** Pause between those retries, ms (default 2000). */
  readonly monitorRetryMs?: number;
}

/** The `.lock` key's value. */
interface SemaphoreLock {
  Limit: number;
  Holders: Record<string, boolean>;
}

/** See the module doc. One instance holds a slot at most once at a time. */
export class MeshSemaphore {
  private session: RenewedSession | undefined;
  private held = false;
  private monitorStop: AbortController | undefined;
  private readonly lockKey: string;

  /** @throws Error for an empty prefix or a limit below 1. */
  constructor(
    private readonly client: MeshLockClient,
    private readonly o: MeshSemaphoreOptions,
  ) {
    if (o.prefix === '') throw new Error('missing prefix');
    if (!Number.isSafeInteger(o.limit) || o.limit < 1) throw new Error('semaphore limit must be positive');
    this.lockKey = posix.join(o.prefix, '.lock');
  }

  /** The session that holds (or waits for) the slot. */
  get sessionId(): string | undefined {
    return this.session?.id;
  }

  /** The `.lock` entry among `pairs`, or an empty one (index 0) when there is none. */
  private findLock(pairs: readonly MeshKvEntry[]): MeshKvEntry {
    return (
      pairs.find((p) => p.Key === this.lockKey) ?? { Key: this.lockKey, Flags: MESH_SEMAPHORE_FLAGS, Value: null, LockIndex: 0, CreateIndex: 0, ModifyIndex: 0 }
    );
  }

  /** The `.lock` value (a fresh one when empty). @throws Error `lock decoding failed: …`. */
  private decodeLock(pair: MeshKvEntry): SemaphoreLock {
    if (!pair.Value) return { Limit: this.o.limit, Holders: {} };
    try {
      const v = JSON.parse(Buffer.from(pair.Value, 'base64').toString('utf8')) as SemaphoreLock;
      return { Limit: v.Limit, Holders: { ...(v.Holders ?? {}) } };
    } catch (err) {
      throw new Error(`lock decoding failed: ${(err as Error).message}`);
    }
  }

  /** Drops the holders whose contender key no session holds (the reference's `pruneDeadHolders`). */
  private static pruneDeadHolders(lock: SemaphoreLock, pairs: readonly MeshKvEntry[]): void {
    const alive = new Set(pairs.map((p) => p.Session).filter((s) => s));
    for (const holder of Object.keys(lock.Holders)) if (!alive.has(holder)) delete lock.Holders[holder];
  }

  /**
   * Waits for a slot; resolves a signal that aborts when the slot is lost, or `undefined`
   * when `stop` aborted or `tryOnce`'s time ran out first (the session and contender key are
   * then gone). @throws MeshSemaphoreConflictError when the `.lock` key is not a semaphore's;
   * Error `semaphore limit conflict (lock: N, local: M)`; Error `Semaphore already held`.
   */
  async acquire(stop?: AbortSignal): Promise<AbortSignal | undefined> {
    if (this.held) throw new Error('Semaphore already held');
    this.session = await RenewedSession.start(this.client, {
      name: this.o.sessionName ?? 'Mesh API Semaphore',
      ttl: this.o.sessionTtl ?? DEFAULT_LOCK_SESSION_TTL,
    });
    try {
      const contender = posix.join(this.o.prefix, this.session.id);
      if (!(await this.client.kv.put(contender, this.o.value ?? '', { flags: MESH_SEMAPHORE_FLAGS, acquire: this.session.id }))) {
        throw new Error('failed to make contender entry');
      }
      const lost = await this.waitForSlot(this.session.id, stop);
      if (lost) this.held = true;
      return lost;
    } finally {
      if (!this.held) {
        const id = this.session.id;
        await this.session.stop(this.client);
        this.session = undefined;
        await this.client.kv.delete(posix.join(this.o.prefix, id)).catch(() => undefined);
      }
    }
  }

  /** The acquire loop (the reference's `Semaphore.Acquire` after the contender entry). */
  private async waitForSlot(session: string, stop: AbortSignal | undefined): Promise<AbortSignal | undefined> {
    const start = Date.now();
    const waitMs = this.o.waitMs ?? LOCK_WAIT_MS;
    let index: number | undefined;
    for (let attempt = 0; ; attempt++) {
      if (stop?.aborted) return undefined;
      let wait = LOCK_WAIT_MS;
      if (this.o.tryOnce && attempt > 0) {
        const elapsed = Date.now() - start;
        if (elapsed > waitMs) return undefined;
        wait = waitMs - elapsed;
      }
      let pairs: MeshKvEntry[];
      let at: number;
      try {
        ({ items: pairs, index: at } = await this.client.kv.list(this.o.prefix, { index, wait: `${Math.max(1, Math.ceil(wait))}ms`, signal: stop }));
      } catch (err) {
        if (stop?.aborted) return undefined;
        throw err;
      }
      const pair = this.findLock(pairs);
      if (pair.Flags !== MESH_SEMAPHORE_FLAGS) throw new MeshSemaphoreConflictError();
      const lock = this.decodeLock(pair);
      if (lock.Limit !== this.o.limit) throw new Error(`semaphore limit conflict (lock: ${lock.Limit}, local: ${this.o.limit})`);
      MeshSemaphore.pruneDeadHolders(lock, pairs);
      if (Object.keys(lock.Holders).length >= lock.Limit) {
        index = at;
        continue;
      }
      lock.Holders[session] = true;
      // Lost a race with another contender: read again at once.
      if (!(await this.client.kv.put(this.lockKey, JSON.stringify(lock), { flags: MESH_SEMAPHORE_FLAGS, cas: pair.ModifyIndex }))) {
        index = undefined;
        continue;
      }
      const { lost, stop: halt } = monitorHolding({
        stillHeld: async (i, signal) => {
          const r = await this.client.kv.list(this.o.prefix, { index: i, signal });
          const now = this.decodeLock(this.findLock(r.items));
          MeshSemaphore.pruneDeadHolders(now, r.items);
          return { held: now.Holders[session] === true, index: r.index };
        },
        retries: this.o.monitorRetries ?? 0,
        retryMs: this.o.monitorRetryMs ?? 2000,
      });
      this.monitorStop = halt;
      return lost;
    }
  }

  /**
   * Frees the slot (check-and-set of `.lock` without this session), deletes the contender
   * key and destroys the session. @throws Error `Semaphore not held`; MeshApiError /
   * MeshConnectionError (the session is destroyed even then).
   */
  async release(): Promise<void> {
    if (!this.held || !this.session) throw new Error('Semaphore not held');
    this.held = false;
    this.monitorStop?.abort();
    const id = this.session.id;
    try {
      for (;;) {
        const { entry } = await this.client.kv.get(this.lockKey);
        const lock = this.decodeLock(entry ?? this.findLock([]));
        if (!lock.Holders[id]) break;
        delete lock.Holders[id];
        if (await this.client.kv.put(this.lockKey, JSON.stringify(lock), { flags: MESH_SEMAPHORE_FLAGS, cas: entry?.ModifyIndex ?? 0 })) break;
      }
      await this.client.kv.delete(posix.join(this.o.prefix, id));
    } finally {
      await this.session.stop(this.client);
      this.session = undefined;
    }
  }

  /**
   * Deletes the `.lock` key when no live holder is left (nothing when it does not exist).
   * @throws MeshSemaphoreInUseError; MeshSemaphoreConflictError; Error `Semaphore already held`.
   */
  async destroy(): Promise<void> {
    if (this.held) throw new Error('Semaphore already held');
    const { items } = await this.client.kv.list(this.o.prefix);
    const pair = this.findLock(items);
    if (pair.ModifyIndex === 0) return;
    if (pair.Flags !== MESH_SEMAPHORE_FLAGS) throw new MeshSemaphoreConflictError();
    const lock = this.decodeLock(pair);
    MeshSemaphore.pruneDeadHolders(lock, items);
    if (Object.keys(lock.Holders).length > 0) throw new MeshSemaphoreInUseError();
    if (!(await this.client.kv.delete(this.lockKey, { cas: pair.ModifyIndex }))) throw new MeshSemaphoreInUseError();
  }
}
