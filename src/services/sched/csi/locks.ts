/**
 * Per-key mutual exclusion for the volume operations that span a plugin call and a state
 * write (claim → publish → write; release → write → unpublish; delete → DeleteVolume →
 * write): while one holds a volume's key, no other operation changes that volume, so what a
 * plugin call was based on still holds when the write runs. The reference serialises its
 * controller RPCs per plugin for the same reason (reference/sched.md §4.12).
 *
 * @module
 */

/** Locks by string key; keys are taken in sorted order so two holders of overlapping sets cannot deadlock. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` holding every key of `keys` (duplicates allowed); releases them when it settles. */
  async with<T>(keys: Iterable<string>, fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const releases: (() => void)[] = [];
    try {
      for (const key of sorted) releases.push(await this.acquire(key));
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private async acquire(key: string): Promise<() => void> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
