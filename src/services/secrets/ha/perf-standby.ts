/**
 * A performance standby's read-only core, kept current from the storage change feed
 * (issue 8 scope 2; the reference: Vault Enterprise performance standbys, which serve
 * reads themselves and forward anything that writes).
 *
 * Every write transaction committed on the shared table, by any server, arrives from the
 * feed (kernel/store/pg-listen.ts: `LISTEN/NOTIFY`, in commit order) with the keys it
 * touched. The barrier's value cache forgets those keys at once; the core's other caches
 * (invalidate.ts) are brought up to date in order, one batch of pending changes at a
 * time. A change without keys (a sync point: the feed reconnected, or too many keys)
 * newer than what is applied reopens the core from storage.
 *
 * **Applied index**: the highest change index whose invalidation is done. A read that
 * starts afterwards sees every write up to it (PostgreSQL committed it before notifying,
 * and the caches in between were emptied). `X-Secrets-Index` is checked against it
 * (state-header.ts).
 *
 * When the caches cannot be brought up to date (storage unreachable), the core is
 * dropped, so the server forwards every request until a full reload succeeds (retried
 * every `retryMs`).
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { BackendChange } from '../../../kernel/store/index.js';
import type { SecretsCore } from '../core.js';
import { applyChanges } from './invalidate.js';

/** One committed write transaction, or a sync point (`keys` undefined), as the change feed reports it. */
export type StorageChange = BackendChange;

/** The storage's change feed (`PostgresBackend`: watchChanges, commitIndex, currentCommitIndex). */
export interface ChangeFeed {
  /** Calls `listener` with every change in commit order (and sync points); returns the unsubscribe function. */
  watchChanges(listener: (change: StorageChange) => void): () => void;
  /** Highest commit index this process committed or heard of; every write acknowledged to it is at or below. */
  readonly commitIndex: number;
  /** Whether notifications are arriving (false while the feed's connection is down: changes are being missed). */
  readonly changeFeedConnected: boolean;
  /** The commit index storage has now (one query). */
  currentCommitIndex(): Promise<number>;
}

/** Options of {@link PerformanceStandby}. */
export interface PerformanceStandbyOptions {
  readonly feed: ChangeFeed;
  /** The barrier's value cache: `keys` forgotten, or everything when undefined. */
  readonly barrier: { invalidate(keys?: readonly string[]): void };
  /** Opens a core on read-only storage (storage-guard.ts). */
  readonly open: () => Promise<SecretsCore>;
  readonly log: Logger;
  /** Pause before a failed full reload is tried again, in ms; default 1000. */
  readonly retryMs?: number;
}

/** The read-only core of a performance standby and its applied index; see the module doc. */
export class PerformanceStandby {
  private current: SecretsCore | undefined;
  private applied = 0;
  private pending: StorageChange[] = [];
  private draining = false;
  private stopped = false;
  /** Set at start and after a failure: the next batch reopens the core from storage. */
  private needsFull = true;
  private unsubscribe: (() => void) | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly o: PerformanceStandbyOptions) {}

  /**
   * The read-only core, once loaded and while it is kept current; undefined otherwise,
   * including while the change feed is disconnected (its caches could be missing changes
   * until the sync point of the reconnection reloads them): the server then forwards
   * every request, and its health says plain standby.
   */
  get core(): SecretsCore | undefined {
    return this.o.feed.changeFeedConnected ? this.current : undefined;
  }

  /** Highest change index whose invalidation is done (0 before the first load). */
  get appliedIndex(): number {
    return this.applied;
  }

  /** Subscribes to the feed, then loads the core (subscribing first: no change falls between the two). */
  start(): void {
    this.unsubscribe = this.o.feed.watchChanges((change) => this.onChange(change));
    this.kick();
  }

  /** Unsubscribes and drops the core; later changes are ignored. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.retry) clearTimeout(this.retry);
    this.current = undefined;
  }

  private onChange(change: StorageChange): void {
    if (this.stopped) return;
    // The barrier first and at once: a read starting now goes to storage for these keys.
    this.o.barrier.invalidate(change.keys);
    this.pending.push(change);
    this.kick();
  }

  private kick(): void {
    void this.drain().catch((err: unknown) => this.o.log.error({ err: (err as Error).message }, 'performance standby: change processing failed'));
  }

  /** Applies pending changes, a batch at a time, until none is left; one drain runs at once. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (!this.stopped && (this.needsFull || this.pending.length > 0)) {
        const batch = this.pending.splice(0);
        const index = Math.max(0, ...batch.map((c) => c.index));
        // A sync point at or below the applied index missed nothing: no commit lies beyond it.
        const sync = batch.some((c) => c.keys === undefined && c.index > this.applied);
        const keys = [...new Set(batch.flatMap((c) => c.keys ?? []))];
        try {
          if (this.needsFull || sync || !this.current || (await applyChanges(this.current, keys)) === 'reload') await this.reload(index);
          else this.applied = Math.max(this.applied, index);
        } catch (err) {
          this.fail(err);
          return;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** Reopens the core from storage; everything committed up to the index read first is in it. */
  private async reload(seen: number): Promise<void> {
    const index = await this.o.feed.currentCommitIndex();
    this.o.barrier.invalidate();
    const core = await this.o.open();
    if (this.stopped) return;
    this.current = core;
    this.needsFull = false;
    this.applied = Math.max(this.applied, seen, index);
  }

  /** Caches may be stale: stop serving reads (drop the core) and try a full reload later. */
  private fail(err: unknown): void {
    this.o.log.warn({ err: (err as Error).message }, 'performance standby: cannot keep caches current; forwarding every request until reloaded');
    this.current = undefined;
    this.needsFull = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.kick();
    }, this.o.retryMs ?? 1000);
  }
}
