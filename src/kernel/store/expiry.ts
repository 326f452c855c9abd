/**
 * Deletes expired documents from a {@link StateStore} table on a timer: the leader-only
 * "expiry" loop of issue 8 scope 3. Expired ACL tokens already behave as absent (both
 * reference products skip them on every read), but stay stored until reaped; the
 * reference leaders reap them in the background (the discovery product's token reaping,
 * the scheduler's expired-token garbage collection). Only one server runs it: the leader
 * of servers sharing a state, or the only server.
 *
 * Each round scans the table without a transaction, then deletes up to `batch` expired
 * documents in one transaction that checks each again (a token renewed in between stays).
 *
 * @module
 */
import type { Logger } from '../log/logger.js';
import type { Indexed, StateStore, Txn } from './state.js';
import { Periodic } from '../util/periodic.js';

/** Options of {@link ExpiryReaper}. */
export interface ExpiryReaperOptions<T> {
  readonly state: StateStore;
  readonly table: string;
  /** The id `doc` is stored under (e.g. a token's `AccessorID`). */
  readonly idOf: (doc: T) => string;
  /** When (epoch ms) `doc` expires, or undefined when it never does or is not this server's to delete. */
  readonly expiresAt: (doc: T) => number | undefined;
  /** Clock in epoch ms. */
  readonly now: () => number;
  readonly log: Logger;
  /** Pause between rounds, in ms; default 60000. */
  readonly intervalMs?: number;
  /** How long after expiring a document is kept, in ms (the scheduler's GC threshold); default 0. */
  readonly graceMs?: number;
  /** Most documents deleted per transaction; default 1000. */
  readonly batch?: number;
  /** Called inside the deleting transaction for each document it deletes (e.g. to keep a watermark of what went). */
  readonly onDelete?: (tx: Txn, doc: T & Indexed) => void;
}

/** See the module doc. */
export class ExpiryReaper<T> {
  private readonly periodic: Periodic;

  constructor(private readonly o: ExpiryReaperOptions<T>) {
    this.periodic = new Periodic(
      () => this.reap(),
      o.intervalMs ?? 60_000,
      (err) => o.log.warn({ table: o.table, err: err.message }, 'expired documents could not be deleted; next round retries'),
    );
  }

  /** Runs a round every `intervalMs` from now on (no-op when running). */
  start(): void {
    this.periodic.start();
  }

  /** Stops the timer and waits for a round in progress. */
  async stop(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One round: deletes the documents expired for longer than the grace period, in batches;
   * resolves with how many were deleted. @throws the store's error (e.g. not the leader).
   */
  async reap(): Promise<number> {
    const { state, table, expiresAt } = this.o;
    const limit = this.o.batch ?? 1000;
    let deleted = 0;
    for (;;) {
      const cutoff = this.o.now() - (this.o.graceMs ?? 0);
      const due = (doc: T) => {
        const at = expiresAt(doc);
        return at !== undefined && at <= cutoff;
      };
      const ids: string[] = [];
      for (const doc of state.scan<T>(table)) {
        if (due(doc)) ids.push(this.o.idOf(doc));
        if (ids.length >= limit) break;
      }
      if (ids.length === 0) return deleted;
      const { result } = await state.txn((tx) => {
        let n = 0;
        for (const id of ids) {
          const doc = tx.get<T>(table, id);
          if (!doc || !due(doc) || !tx.delete(table, id)) continue;
          this.o.onDelete?.(tx, doc);
          n++;
        }
        return n;
      });
      deleted += result;
      this.o.log.debug({ table, deleted: result }, 'deleted expired documents');
      if (ids.length < limit) return deleted;
    }
  }
}
