/**
 * Pending OIDC logins keyed by their `state`: single use, expiring (10 minutes in the
 * reference, reference/mesh.md §5.1), bounded in memory. Per server, like the reference:
 * the callback must reach the server that made the auth URL.
 *
 * @module
 */

/** Options of {@link PendingStates}. */
export interface PendingStatesOptions {
  /** The clock, in milliseconds since the epoch. */
  readonly now: () => number;
  /** Lifetime of an entry; 0 or absent means 10 minutes. */
  readonly ttlMs?: number;
  /** Most entries held; 0 or absent means 10,000. When full, expired entries go first, then the oldest. */
  readonly maxEntries?: number;
}

/**
 * A single-use, expiring map. Expired entries are dropped when the map is full or read,
 * so no timer has to be stopped. Invariant: insertion order is expiry order (one TTL),
 * so the first entry is always the next to expire.
 */
export class PendingStates<T> {
  readonly #entries = new Map<string, { value: T; expiresAt: number }>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(options: PendingStatesOptions) {
    this.#now = options.now;
    this.#ttlMs = options.ttlMs || 10 * 60_000;
    this.#max = options.maxEntries || 10_000;
  }

  /** Number of entries held (expired ones included until they are dropped). */
  get size(): number {
    return this.#entries.size;
  }

  /** Stores `value` under `key` for the TTL, making room first when full. */
  put(key: string, value: T): void {
    if (this.#entries.size >= this.#max) this.#dropExpired();
    while (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
  }

  /** Removes and returns the value under `key`; `undefined` when unknown or expired. */
  take(key: string): T | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    return e.expiresAt > this.#now() ? e.value : undefined;
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [k, e] of this.#entries) {
      if (e.expiresAt > now) break;
      this.#entries.delete(k);
    }
  }
}
