/**
 * The blocking-query watches of a {@link StateStore} (state.ts `watch`): each waits until
 * the index of one of its tables passes the index it was given, its timeout, or its abort
 * signal, and then reports the tables' current index.
 *
 * @module
 */

/**
 * Deadlines are kept per slot of this many ms, each slot ended by one timer: a timeout ends at
 * most this much late, never early (the references add up to wait/16 of jitter anyway).
 */
const DEADLINE_SLOT_MS = 25;

interface Waiter {
  /** Ends the wait, once (a second call does nothing); the current index is reported. */
  readonly resolve: () => void;
}

/** The watches of one query: the same tables, waiting past the same index. */
interface Group {
  readonly key: string;
  readonly tables: readonly string[];
  readonly after: number;
  readonly waiters: Set<Waiter>;
}

/** The watches whose timeout ends within one {@link DEADLINE_SLOT_MS} slot, and the one timer that ends them. */
interface Slot {
  readonly end: number;
  readonly waiters: Set<Waiter>;
  readonly timer: NodeJS.Timeout;
}

/**
 * The open watches of one store, kept per query (tables and index) and their timeouts per
 * deadline slot (issue 30 item 2): a commit that wakes a thousand watches of one query
 * finds their group at once instead of testing each watch, and ends them without a
 * `clearTimeout` each; a thousand blocking queries arriving together with the same wait
 * share one timer.
 */
export class StateWatches {
  /** Open watches by query: `after` and the tables, NUL-joined. */
  private readonly groups = new Map<string, Group>();
  /** Deadline slots by their end (`performance.now()` ms, a multiple of {@link DEADLINE_SLOT_MS}). */
  private readonly slots = new Map<number, Slot>();
  private open = 0;
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
    return this.open;
  }

  /** See {@link StateStore.watch}: `timeoutMs` in milliseconds. */
  watch(tables: readonly string[], afterIndex: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const now = this.tableIndex(...tables);
    if (now > afterIndex || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const group = this.group(tables, afterIndex);
      const slot = this.slot(performance.now() + timeoutMs);
      const aborting = signal && this.watchesOf(signal);
      const waiter: Waiter = {
        resolve: () => {
          if (!group.waiters.delete(waiter)) return;
          if (group.waiters.size === 0) this.groups.delete(group.key);
          slot.waiters.delete(waiter);
          if (slot.waiters.size === 0) {
            clearTimeout(slot.timer);
            this.slots.delete(slot.end);
          }
          aborting?.delete(waiter);
          this.open--;
          resolve(this.tableIndex(...tables));
        },
      };
      group.waiters.add(waiter);
      slot.waiters.add(waiter);
      aborting?.add(waiter);
      this.open++;
    });
  }

  /** Ends every watch (after a reload: any table may have changed). */
  wakeAll(): void {
    for (const g of [...this.groups.values()]) for (const w of [...g.waiters]) w.resolve();
  }

  /** Ends the watches on one of `touched` whose tables' index moved past theirs (after a commit). */
  wake(touched: ReadonlySet<string>): void {
    for (const g of [...this.groups.values()]) {
      if (g.tables.some((t) => touched.has(t)) && this.tableIndex(...g.tables) > g.after) for (const w of [...g.waiters]) w.resolve();
    }
  }

  /** The group of the watches of `tables` past `after`, made the first time. */
  private group(tables: readonly string[], after: number): Group {
    const key = `${after}\0${tables.join('\0')}`;
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { key, tables, after, waiters: new Set() }));
    return g;
  }

  /** The slot of a deadline (`performance.now()` ms): its end is the deadline rounded up to the slot. */
  private slot(deadline: number): Slot {
    const end = Math.ceil(deadline / DEADLINE_SLOT_MS) * DEADLINE_SLOT_MS;
    let s = this.slots.get(end);
    if (!s) {
      const waiters = new Set<Waiter>();
      const timer = setTimeout(() => [...waiters].forEach((w) => w.resolve()), end - performance.now());
      this.slots.set(end, (s = { end, waiters, timer }));
    }
    return s;
  }

  /** The open watches ended by `signal`, listening on it the first time. */
  private watchesOf(signal: AbortSignal): Set<Waiter> {
    let watches = this.bySignal.get(signal);
    if (!watches) {
      const set = new Set<Waiter>();
      signal.addEventListener('abort', () => [...set].forEach((w) => w.resolve()), { once: true });
      this.bySignal.set(signal, set);
      watches = set;
    }
    return watches;
  }
}
