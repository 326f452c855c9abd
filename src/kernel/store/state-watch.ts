/**
 * The blocking-query watches of a {@link StateStore} (state.ts `watch`): each waits until
 * the index of one of its tables passes the index it was given, its timeout, or its abort
 * signal, and then reports the tables' current index.
 *
 * @module
 */

interface Waiter {
  readonly tables: readonly string[];
  readonly after: number;
  /** Ends the wait (the argument is ignored: the current index is reported). */
  readonly resolve: (ignored: number) => void;
}

/** The open watches of one store. */
export class StateWatches {
  /** Open watches: a Set, so that ending one is O(1) when a change wakes a thousand. */
  private readonly waiters = new Set<Waiter>();
  /**
   * The watches of each abort signal: one `'abort'` listener per signal ends them all, where
   * one listener per watch cost O(n) per watch in Node's EventTarget (its add and remove
   * scan the listeners) and warned of a leak past ten.
   */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Waiter>>();

  /** @param tableIndex the durable index of the given tables now (state.ts `tableIndex`). */
  constructor(private readonly tableIndex: (...tables: string[]) => number) {}

  /** Watches waiting now: the open blocking queries (metrics). */
  get size(): number {
    return this.waiters.size;
  }

  /** See {@link StateStore.watch}: `timeoutMs` in milliseconds. */
  watch(tables: readonly string[], afterIndex: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const now = this.tableIndex(...tables);
    if (now > afterIndex || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const aborting = signal && this.watchesOf(signal);
      const done = () => {
        clearTimeout(timer);
        aborting?.delete(waiter);
        this.waiters.delete(waiter);
        resolve(this.tableIndex(...tables));
      };
      const waiter: Waiter = { tables, after: afterIndex, resolve: done };
      const timer = setTimeout(done, timeoutMs);
      aborting?.add(waiter);
      this.waiters.add(waiter);
    });
  }

  /** Ends every watch (after a reload: any table may have changed). */
  wakeAll(): void {
    for (const w of [...this.waiters]) w.resolve(0);
  }

  /** Ends the watches on one of `touched` whose tables' index moved past theirs (after a commit). */
  wake(touched: ReadonlySet<string>): void {
    for (const w of [...this.waiters]) if (w.tables.some((t) => touched.has(t)) && this.tableIndex(...w.tables) > w.after) w.resolve(0);
  }

  /** The open watches ended by `signal`, listening on it the first time. */
  private watchesOf(signal: AbortSignal): Set<Waiter> {
    let watches = this.bySignal.get(signal);
    if (!watches) {
      const set = new Set<Waiter>();
      signal.addEventListener('abort', () => [...set].forEach((w) => w.resolve(0)), { once: true });
      this.bySignal.set(signal, set);
      watches = set;
    }
    return watches;
  }
}
