/**
 * The leader-election recipe on the discovery service's sessions and KV locks (reference:
 * Consul's `api.Lock`, `api/lock.go`; the recipe in reference/mesh-catalog.md "Sessions"):
 *
 * ```ts
 * const lock = new MeshLock(mesh, { key: 'service/web/leader' });
 * const lost = await lock.acquire(stop);     // waits for the lock; undefined when `stop` aborted first
 * lost?.addEventListener('abort', () => …);  // the lock went (session invalidated, key released or deleted)
 * await lock.release();                      // releases the key and destroys the session
 * await lock.destroy();                      // deletes the key when no one holds it (else MeshLockInUseError)
 * ```
 *
 * `acquire` creates a session (`TTL` 15 s unless told), renews it every TTL/2 until the lock
 * is released, waits with blocking reads of the key while another session holds it, and
 * after a refused acquire (a lock delay in effect) waits `retryMs` (5 s) before trying again.
 * The lock key carries {@link MESH_LOCK_FLAGS}; a key with other flags is not a lock
 * ({@link MeshLockConflictError}).
 *
 * @module
 */
import type { MeshKvEntry } from './mesh-kv.js';
import { DEFAULT_LOCK_SESSION_TTL, LOCK_WAIT_MS, monitorHolding, pause, RenewedSession, type MeshLockClient } from './mesh-lock-session.js';

export { DEFAULT_LOCK_SESSION_TTL } from './mesh-lock-session.js';

/**
 * The flags of a lock key. The reference's `LockFlagValue` (0x2ddccbc058a50c18) passes the
 * service's largest flag (2^53 − 1), so Cairn keeps its low 53 bits.
 */
export const MESH_LOCK_FLAGS = 0x1ccbc058a50c18;

/** The key exists but is not a lock (other flags): `Existing key does not match lock use`. */
export class MeshLockConflictError extends Error {
  override readonly name = 'MeshLockConflictError';
  constructor() {
    super('Existing key does not match lock use');
  }
}

/** {@link MeshLock.destroy} found the key held: `Lock in use`. */
export class MeshLockInUseError extends Error {
  override readonly name = 'MeshLockInUseError';
  constructor() {
    super('Lock in use');
  }
}

/** Options of a {@link MeshLock}. */
export interface MeshLockOptions {
  /** The lock key (the CLI uses `<prefix>/.lock`). */
  readonly key: string;
  /** Value stored while held (default empty). */
  readonly value?: Buffer | string;
  /** The session's name (default `Mesh API Lock`). */
  readonly sessionName?: string;
  /** The session's TTL, a Go duration between 10s and 24h (default 15s). */
  readonly sessionTtl?: string;
  /** The session's lock delay, a Go duration (default: the service's, 15s). */
  readonly lockDelay?: string;
  /** True: give up when the lock is not held within `waitMs`. */
  readonly tryOnce?: boolean;
  /** With `tryOnce`: how long to try, ms (default 15 000). */
  readonly waitMs?: number;
  /** Failed reads of the key (a 5xx, the service unreachable) tolerated while held before the lock counts as lost (default 0). */
  readonly monitorRetries?: number;
  /** Pause between those retries, ms (default 2000). */
  readonly monitorRetryMs?: number;
  /** Pause after a refused acquire (a lock delay in effect), ms (default 5000, the reference's `DefaultLockRetryTime`). */
  readonly retryMs?: number;
}

/** See the module doc. One instance holds the lock at most once at a time. */
export class MeshLock {
  private session: RenewedSession | undefined;
  private held = false;
  /** Stops the monitor (on release). */
  private monitorStop: AbortController | undefined;
  private readonly o: MeshLockOptions;

  constructor(
    private readonly client: MeshLockClient,
    options: MeshLockOptions,
  ) {
    if (options.key === '') throw new Error('missing key');
    this.o = options;
  }

  /** The session that holds (or tries for) the lock. */
  get sessionId(): string | undefined {
    return this.session?.id;
  }

  /** Whether the lock is held (until released; a lost lock still counts until {@link release}). */
  get isHeld(): boolean {
    return this.held;
  }

  /**
   * Waits until the lock is held; resolves a signal that aborts when it is lost, or
   * `undefined` when `stop` aborted or `tryOnce`'s time ran out first (the session is then
   * destroyed). @throws MeshLockConflictError when the key is not a lock; MeshApiError /
   * MeshConnectionError when the session cannot be made or the key read or written;
   * Error `Lock already held`.
   */
  async acquire(stop?: AbortSignal): Promise<AbortSignal | undefined> {
    if (this.held) throw new Error('Lock already held');
    const ttl = this.o.sessionTtl ?? DEFAULT_LOCK_SESSION_TTL;
    this.session = await RenewedSession.start(this.client, { name: this.o.sessionName ?? 'Mesh API Lock', ttl, lockDelay: this.o.lockDelay });
    try {
      const lost = await this.waitForLock(this.session.id, stop);
      if (lost) this.held = true;
      return lost;
    } finally {
      if (!this.held) await this.stopRenewing();
    }
  }

  /** The acquire loop of {@link acquire} (the reference's `Lock.Lock`). */
  private async waitForLock(session: string, stop: AbortSignal | undefined): Promise<AbortSignal | undefined> {
    const kv = this.client.kv;
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
      let read: { entry: MeshKvEntry | undefined; index: number };
      try {
        read = await kv.get(this.o.key, { index, wait: `${Math.max(1, Math.ceil(wait))}ms`, signal: stop });
      } catch (err) {
        if (stop?.aborted) return undefined;
        throw err;
      }
      if (read.entry && read.entry.Flags !== MESH_LOCK_FLAGS) throw new MeshLockConflictError();
      if (read.entry?.Session) {
        index = read.index;
        continue;
      }
      if (await kv.put(this.o.key, this.o.value ?? '', { flags: MESH_LOCK_FLAGS, acquire: session })) return this.monitor(session);
      // Refused: another session won the race (wait on the key), or a lock delay runs (wait a while).
      const again = await kv.get(this.o.key);
      if (again.entry?.Session) {
        index = again.index;
        continue;
      }
      index = undefined;
      if (!(await pause(this.o.retryMs ?? 5000, stop))) return undefined;
    }
  }

  /** Watches the held key; the signal aborts once another session (or none) holds it, or reads keep failing. */
  private monitor(session: string): AbortSignal {
    const { lost, stop } = monitorHolding({
      stillHeld: async (index, signal) => {
        const r = await this.client.kv.get(this.o.key, { index, signal });
        return { held: r.entry?.Session === session, index: r.index };
      },
      retries: this.o.monitorRetries ?? 0,
      retryMs: this.o.monitorRetryMs ?? 2000,
    });
    this.monitorStop = stop;
    return lost;
  }

  /** Stops renewing the session and destroys it. */
  private async stopRenewing(): Promise<void> {
    await this.session?.stop(this.client);
    this.session = undefined;
  }

  /**
   * Releases the key (a lost lock is not an error) and destroys the session.
   * @throws Error `Lock not held`; MeshApiError / MeshConnectionError when the release fails
   * (the session is destroyed even then).
   */
  async release(): Promise<void> {
    if (!this.held || !this.session) throw new Error('Lock not held');
    this.held = false;
    this.monitorStop?.abort();
    try {
      await this.client.kv.put(this.o.key, this.o.value ?? '', { flags: MESH_LOCK_FLAGS, release: this.session.id });
    } finally {
      await this.stopRenewing();
    }
  }

  /**
   * Deletes the lock key when no session holds it (nothing when it does not exist).
   * @throws MeshLockInUseError when held (by anyone, or changed meanwhile); MeshLockConflictError
   * when the key is not a lock; Error `Lock already held` while this instance holds it.
   */
  async destroy(): Promise<void> {
    if (this.held) throw new Error('Lock already held');
    const { entry } = await this.client.kv.get(this.o.key);
    if (!entry) return;
    if (entry.Flags !== MESH_LOCK_FLAGS) throw new MeshLockConflictError();
    if (entry.Session) throw new MeshLockInUseError();
    if (!(await this.client.kv.delete(this.o.key, { cas: entry.ModifyIndex }))) throw new MeshLockInUseError();
  }
}
