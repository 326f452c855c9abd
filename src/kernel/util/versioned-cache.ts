/**
 * A bounded cache of values built from versioned sources (an authorizer per token, a
 * validator per auth method): a value is reused while its source's version is the one it
 * was built at and rebuilt otherwise. Least recently used entries go first.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';

interface Entry<V> {
  readonly version: string | number;
  readonly value: V;
}

/** Values by key, each with the version it was built at; at most `maxEntries` of them. */
export class VersionedCache<V> {
  readonly #entries: LRUCache<string, Entry<V>>;

  /** `maxEntries`: how many keys are kept at most (the least recently used go first). */
  constructor(maxEntries: number) {
    this.#entries = new LRUCache({ max: maxEntries });
  }

  /** The value of `key` built at `version`, from `build` when there is none (or an older one). */
  get(key: string, version: string | number, build: () => V): V {
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.version === version) return hit.value;
    const value = build();
    this.#entries.set(key, { version, value });
    return value;
  }

  /** Forgets `key` when it still holds `value` (a newer build stays). */
  forget(key: string, value: V): void {
    if (this.#entries.peek(key)?.value === value) this.#entries.delete(key);
  }
}
