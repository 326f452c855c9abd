/**
 * Pull-based replication loops (DESIGN.md "Growing past one machine"): one loop per kind of
 * object, each running rounds that usually are blocking queries on the source, so a change
 * there arrives at once and an idle source costs one request per wait. A token bucket
 * rate-limits rounds (by default one for all loops, 1 round/s with a burst of 5: the
 * discovery reference's; the scheduler's reference gives each loop its own, 10/s with a
 * burst of 10); a failed round records its time and message,
 * forgets the remote index (full resync next time) and backs off 2 s, 4 s, … up to 64 s.
 * The services decide what a round does (mesh/replication.ts, sched/replication.ts).
 *
 * @module
 */
import type { Logger } from '../log/logger.js';

/** The zero time of a status field that never happened (Go's zero `time.Time`). */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Options of {@link ReplicationLoops}. */
export interface ReplicationLoopsOptions {
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** First retry delay after a failure, in ms; default 2000 (doubling, at most 64 000). */
  readonly backoffMs?: number;
  /** Round rate limit: rounds per second, burst, and whether all loops share one bucket; default 1/s, 5, shared. */
  readonly rate?: { readonly perSecond: number; readonly burst: number; readonly shared: boolean };
}

/**
 * One round of kind `kind`: replicate what changed after `remoteIndex` (0: everything) and
 * return the source's new index. It should end early when `signal` aborts.
 */
export type ReplicationRound<K extends string> = (kind: K, remoteIndex: number, signal: AbortSignal) => Promise<number>;

const DEFAULT_RATE = { perSecond: 1, burst: 5, shared: true } as const;
const MAX_BACKOFF_MS = 64_000;

/** A token bucket of rounds. */
interface Bucket {
  tokens: number;
  refilledAt: number;
}

/** UTC, whole seconds: `2026-11-22T16:50:03Z`. */
const stamp = (ms: number) => new Date(Math.round(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Runs replication loops; see the module doc. */
export class ReplicationLoops<K extends string> {
  private running = false;
  private stop = new AbortController();
  private loops: Promise<void>[] = [];
  /** The source index each kind last replicated up to. */
  readonly indexes = new Map<K, number>();
  /** RFC3339 of the last successful round, or {@link ZERO_TIME}. */
  lastSuccess = ZERO_TIME;
  /** RFC3339 of the last failed round, or {@link ZERO_TIME}. */
  lastError = ZERO_TIME;
  lastErrorMessage = '';
  /** Epoch ms of the last successful round, 0 when none (metrics). */
  lastSuccessMs = 0;
  /** Epoch ms of the last failed round, 0 when none (metrics). */
  lastErrorMs = 0;
  /** Kinds whose latest round failed (metrics: replication in trouble). */
  readonly failing = new Set<K>();
  private readonly buckets = new Map<K | '', Bucket>();

  constructor(private readonly o: ReplicationLoopsOptions) {}

  /** True between {@link start} and {@link close}. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Aborted by {@link close}; hand it to requests of a round. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Starts one loop per kind; no-op when running. Loops may start again after {@link close} (a new leader's). */
  start(kinds: readonly K[], round: ReplicationRound<K>): void {
    if (this.running) return;
    this.running = true;
    if (this.stop.signal.aborted) this.stop = new AbortController();
    this.loops = [];
    for (const k of kinds) this.loops.push(this.loop(k, round));
  }

  /** Stops the loops and waits for them to end. */
  async close(): Promise<void> {
    this.running = false;
    this.stop.abort();
    await Promise.allSettled(this.loops);
  }

  private async loop(kind: K, round: ReplicationRound<K>): Promise<void> {
    let remote = 0;
    let backoff = this.o.backoffMs ?? 2000;
    while (this.running) {
      try {
        await this.takeRoundToken(kind);
        remote = await round(kind, remote, this.stop.signal);
        this.indexes.set(kind, remote);
        this.lastSuccessMs = this.o.now();
        this.lastSuccess = stamp(this.lastSuccessMs);
        this.failing.delete(kind);
        backoff = this.o.backoffMs ?? 2000;
      } catch (err) {
        if (!this.running) return;
        this.lastErrorMs = this.o.now();
        this.lastError = stamp(this.lastErrorMs);
        this.failing.add(kind);
        this.lastErrorMessage = (err as Error).message;
        this.o.log.warn({ kind, err: this.lastErrorMessage }, 'replication round failed');
        remote = 0;
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  private async takeRoundToken(kind: K): Promise<void> {
    const rate = this.o.rate ?? DEFAULT_RATE;
    const key = rate.shared ? '' : kind;
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = { tokens: rate.burst, refilledAt: this.o.now() }));
    const refillMs = 1000 / rate.perSecond;
    for (;;) {
      const now = this.o.now();
      bucket.tokens = Math.min(rate.burst, bucket.tokens + (now - bucket.refilledAt) / refillMs);
      bucket.refilledAt = now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      await this.sleep((1 - bucket.tokens) * refillMs);
      if (!this.running) throw new Error('stopped');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.stop.signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.stop.signal.addEventListener('abort', done, { once: true });
    });
  }
}
