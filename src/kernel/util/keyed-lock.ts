/**
 * Per-key mutual exclusion for async read-modify-write sequences (a KV v2 write reads
 * the key's metadata, adds a version and writes both back; two concurrent writers of
 * one key must not both create version N+1). Keys with no waiter hold no memory.
 *
 * @module
 */

/** Serialises async critical sections per string key; FIFO per key. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier holder of `key` has finished; returns its result. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
