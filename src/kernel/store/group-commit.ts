/**
 * What the SQLite and PostgreSQL backends share above their engines: the write front-ends
 * (`put`, `delete`, `batch`: validation, value copies), the **group-commit queue** and the
 * **read-your-writes overlay** of queued and committing ops (DESIGN.md "State"; the
 * contract in `backend.ts`). Each engine subclasses {@link GroupCommitBackend} and supplies
 * only the engine work: reading a stored value, committing one group, `list`, and
 * releasing its storage.
 *
 * The queue, in short: the first write of an event-loop turn schedules a flush
 * (`setImmediate`) that hands every queued call to the engine as one group, in call order;
 * while the engine holds as many groups as it takes ({@link GroupCommitBackend.maxInFlight}:
 * one for PostgreSQL, eight for SQLite's writer thread, which commits them in the order
 * received), new writes queue up and go as the next group as soon as one has settled.
 * Groups commit one after the other, in order, so later writes to a key win. The overlay
 * holds the latest uncommitted op per key, so a read sees every write whose promise exists.
 *
 * @module
 */

import type { Backend, BackendOp } from './backend.js';
import { checkKey, compareKeys, copyValue } from './keys.js';

/** A validated op; `value === null` means delete. */
export interface NormalizedOp {
  readonly key: string;
  readonly value: Buffer | null;
}

/** One queued write call: its ops (validated, values copied) and its promise. */
export interface PendingWrite {
  readonly ops: readonly NormalizedOp[];
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** One group commit: its number and its write calls, in call order. */
export interface Flush {
  readonly seq: number;
  readonly pending: readonly PendingWrite[];
}

/** One settled group, as metrics see it (issue 14 item 7). */
export interface CommitObservation {
  /** From handing the group to the engine to its promises settled, in seconds. */
  readonly seconds: number;
  /** Write calls (`put`, `delete`, `batch`) in the group. */
  readonly writes: number;
  /** The group's transaction failed as a whole. */
  readonly failed: boolean;
}

/** The latest uncommitted op on a key and the number of the group that carries it. */
interface OverlayEntry {
  readonly value: Buffer | null;
  readonly flush: number;
}

/** The overlay snapshot of a backend with nothing queued (shared, never written). */
const NO_OVERLAY: ReadonlyMap<string, Buffer | null> = new Map();

/**
 * A {@link Backend} whose writes are queued and group-committed, with an overlay of the
 * queued and committing ops that reads consult first. Subclasses implement the engine:
 * {@link readStored}, {@link startFlush} (which must end with {@link flushDone}, or with
 * {@link failAll} when the engine is gone), {@link list} and {@link release}.
 *
 * Invariants: at most {@link maxInFlight} groups are in flight and the engine settles them
 * in the order it received them; the overlay holds exactly the ops of the queue and of the
 * groups in flight, latest per key; a group's ops leave the overlay (through
 * {@link dropFromOverlay}) before its promises settle.
 */
export abstract class GroupCommitBackend implements Backend {
  /** Write transactions committed (counted by the engine, shown in its `stats`). */
  protected commits = 0;
  /** Groups whose transaction failed as a whole (every write in it was rejected). */
  protected failedCommits = 0;
  /** Write calls (`put`, `delete`, `batch`) acknowledged durable. */
  protected writes = 0;
  /** Rows written or deleted by committed transactions. */
  protected rows = 0;
  /** Groups handed to the engine while an earlier one was still committing. */
  protected pipelined = 0;

  /** Write calls waiting for the next group, in call order. */
  private queue: PendingWrite[] = [];
  /** Latest uncommitted op per key (`null` = delete): exactly the ops of {@link queue} and {@link inFlight}. */
  private readonly overlay = new Map<string, OverlayEntry>();
  /** Number of the group that {@link queue} will become. */
  private nextFlush = 1;
  /** Groups handed to the engine and not settled yet, oldest first. */
  private inFlight: Flush[] = [];
  private flushTimer: NodeJS.Immediate | undefined;
  /** Callers of `close` waiting for the queue and the group in flight to settle. */
  private drainWaiters: Array<() => void> = [];
  private closed = false;
  /** Set by {@link failAll}: every later write rejects with it. */
  private broken: Error | undefined;
  /** Told of every settled group ({@link observeCommits}). */
  private readonly commitObservers = new Set<(c: CommitObservation) => void>();
  /** When each group in flight was handed to the engine (`process.hrtime.bigint()`), by group number. */
  private readonly flushStarts = new Map<number, bigint>();
  /** {@link failedCommits} when the last group settled: a group failed when it grew since. */
  private failedSeen = 0;

  /**
   * @param label names the backend in errors, e.g. `SqliteBackend(/path/to.db)`.
   * @param maxInFlight groups the engine may hold at once (≥ 1); more than one only for an
   *   engine that commits them strictly in the order received, as a pipeline: the next
   *   group is ready when the previous one's commit ends (issue 15).
   */
  protected constructor(
    private readonly label: string,
    private readonly maxInFlight = 1,
  ) {}

  /** @inheritdoc */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.checkOpen();
    checkKey(key);
    if (this.overlay.size > 0) {
      const queued = this.overlay.get(key);
      // Copy so a caller mutating the result cannot change what will be committed.
      if (queued !== undefined) return queued.value === null ? undefined : Buffer.from(queued.value);
    }
    return this.readStored(key);
  }

  /** @inheritdoc */
  put(key: string, value: Uint8Array): Promise<void> {
    try {
      this.checkOpen();
      return this.enqueue([{ key: checkKey(key), value: copyValue(value) }]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** @inheritdoc */
  delete(key: string): Promise<void> {
    try {
      this.checkOpen();
      return this.enqueue([{ key: checkKey(key), value: null }]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * @inheritdoc
   * Every op is validated before anything is queued, so a batch with one bad op (say a
   * non-string key) rejects with a TypeError and leaves nothing, not even in the overlay.
   */
  batch(ops: readonly BackendOp[]): Promise<void> {
    try {
      this.checkOpen();
      if (!Array.isArray(ops)) throw new TypeError('batch ops must be an array');
      const normalized = ops.map((op): NormalizedOp => {
        if (op === null || typeof op !== 'object') throw new TypeError('batch op must be an object');
        return { key: checkKey(op.key), value: op.value === undefined ? null : copyValue(op.value) };
      });
      if (normalized.length === 0) return Promise.resolve();
      return this.enqueue(normalized);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** @inheritdoc */
  abstract list(prefix: string): Promise<string[]>;

  /**
   * Calls `observer` as each group settles, just before its promises do (metrics: commit
   * latency, group size), so a write's commit is observed once it is acknowledged. Returns
   * the function that stops it. An observer must not throw.
   */
  observeCommits(observer: (c: CommitObservation) => void): () => void {
    this.commitObservers.add(observer);
    return () => this.commitObservers.delete(observer);
  }

  /**
   * Commits every queued write and waits for the group in flight, then releases the
   * storage ({@link release}). Queued writes' promises settle before this resolves.
   * Every later call (including `close`) rejects with an Error.
   */
  async close(): Promise<void> {
    this.checkOpen();
    this.closed = true;
    if (this.flushTimer !== undefined) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    this.sendQueued();
    if (this.inFlight.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    await this.release();
  }

  /** The stored value at `key` (the overlay was consulted already). */
  protected abstract readStored(key: string): Uint8Array | undefined | Promise<Uint8Array | undefined>;

  /**
   * Starts committing `flush` (already in flight, the newest). The engine settles every
   * promise of it, after calling {@link dropFromOverlay}, then calls {@link flushDone};
   * groups settle in the order they were started.
   */
  protected abstract startFlush(flush: Flush): void;

  /** Releases the engine's storage once the queue is drained; called once, by `close`. */
  protected abstract release(): Promise<void>;

  /** Nothing is in flight any more (the default does nothing; SQLite unrefs its thread). */
  protected onIdle(): void {}

  /** Whether `close` was called. */
  protected get isClosed(): boolean {
    return this.closed;
  }

  /** The groups in flight, oldest first. */
  protected get flushesInFlight(): readonly Flush[] {
    return this.inFlight;
  }

  /** The oldest group in flight (the next to settle), if any. */
  protected get flushInFlight(): Flush | undefined {
    return this.inFlight[0];
  }

  /** @throws Error `<label> is closed` once `close` was called. */
  protected checkOpen(): void {
    if (this.closed) throw new Error(`${this.label} is closed`);
  }

  /** The oldest group in flight has settled: send what queued meanwhile, or wake `close`. */
  protected flushDone(): void {
    this.inFlight.shift();
    this.sendQueued();
    if (this.inFlight.length === 0) this.idle();
  }

  /** The engine is gone for good: rejects everything pending and every later write with `err`. */
  protected failAll(err: Error): void {
    this.broken ??= err;
    const flushes = [...this.inFlight.map((f) => f.pending), this.queue];
    this.inFlight = [];
    this.flushStarts.clear();
    this.queue = [];
    this.overlay.clear();
    for (const pending of flushes) for (const p of pending) p.reject(err);
    this.idle();
  }

  /**
   * Removes the ops of `flush` from the overlay, unless a later queued op replaced them.
   * Call it once per group, before the group's promises settle, so a caller continuing
   * after its write sees what the storage holds (its write, or not when it was rejected),
   * and after counting a failed group in {@link failedCommits}: commit observers are told here.
   */
  protected dropFromOverlay(flush: Flush): void {
    const started = this.flushStarts.get(flush.seq);
    this.flushStarts.delete(flush.seq);
    const failed = this.failedCommits > this.failedSeen;
    this.failedSeen = this.failedCommits;
    if (this.commitObservers.size > 0 && started !== undefined) {
      const c = { seconds: Number(process.hrtime.bigint() - started) / 1e9, writes: flush.pending.length, failed };
      for (const o of this.commitObservers) o(c);
    }
    for (const p of flush.pending) {
      for (const op of p.ops) {
        if (this.overlay.get(op.key)?.flush === flush.seq) this.overlay.delete(op.key);
      }
    }
  }

  /** The overlay's entries under `prefix` now (a copy: groups committing later must not change it). */
  protected overlaySnapshot(prefix: string): ReadonlyMap<string, Buffer | null> {
    if (this.overlay.size === 0) return NO_OVERLAY;
    const out = new Map<string, Buffer | null>();
    for (const [key, { value }] of this.overlay) if (key.startsWith(prefix)) out.set(key, value);
    return out;
  }

  private enqueue(ops: readonly NormalizedOp[]): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ops, resolve, reject });
      for (const op of ops) this.overlay.set(op.key, { value: op.value, flush: this.nextFlush });
      // One group per event-loop turn: everything queued during this turn shares one
      // transaction and one fsync. While the engine holds all the groups it takes, the
      // end of the oldest sends the queue.
      if (this.inFlight.length < this.maxInFlight) this.flushTimer ??= setImmediate(this.sendQueued);
    });
  }

  /** Hands the whole queue to the engine as one group, unless the engine holds all it takes or nothing is queued. */
  private readonly sendQueued = (): void => {
    this.flushTimer = undefined;
    const pending = this.queue;
    if (this.inFlight.length >= this.maxInFlight || pending.length === 0 || this.broken) return;
    this.queue = [];
    const flush: Flush = { seq: this.nextFlush++, pending };
    if (this.inFlight.length > 0) this.pipelined++;
    this.inFlight.push(flush);
    if (this.commitObservers.size > 0) this.flushStarts.set(flush.seq, process.hrtime.bigint());
    this.startFlush(flush);
  };

  /** Nothing in flight: tell the engine, and wake `close`. */
  private idle(): void {
    this.onIdle();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}

/**
 * Folds a snapshot of queued-but-uncommitted ops under `prefix` into a `list` result:
 * queued puts add their child name, queued deletes of leaves remove theirs. `folders` are
 * the sub-folders the storage listed (full keys ending in `/`). Returns those that queued
 * deletes may have emptied, as child names (`name/`) with the number of queued deletes
 * under each: the caller keeps such a name in `names` only if the storage holds a key
 * under `prefix + name` that is not queued for deletion.
 */
export function foldOverlay(prefix: string, overlay: ReadonlyMap<string, Buffer | null>, names: Set<string>, folders: readonly string[]): Map<string, number> {
  const deletedLeaves: string[] = [];
  const touchedFolders = new Map<string, number>(); // folder name → queued deletes under it
  const addedFolders = new Set<string>();
  for (const [key, value] of overlay) {
    const slash = key.indexOf('/', prefix.length);
    const name = slash < 0 ? key.slice(prefix.length) : key.slice(prefix.length, slash + 1);
    if (value !== null) {
      names.add(name);
      if (slash >= 0) addedFolders.add(name);
    } else if (slash < 0) {
      deletedLeaves.push(name);
    } else {
      touchedFolders.set(name, (touchedFolders.get(name) ?? 0) + 1);
    }
  }
  // The overlay is latest-wins per key, so a deleted leaf has no queued put.
  for (const name of deletedLeaves) names.delete(name);
  const storedFolders = new Set(folders.map((f) => f.slice(prefix.length)));
  for (const name of touchedFolders.keys()) {
    if (addedFolders.has(name) || !storedFolders.has(name)) touchedFolders.delete(name);
  }
  return touchedFolders;
}

/**
 * An `entries` result: the stored `rows` under a prefix with the queued and committing ops
 * of `overlay` (from {@link GroupCommitBackend.overlaySnapshot}) applied, in byte order.
 */
export function entriesWithOverlay(rows: Iterable<readonly [string, Uint8Array]>, overlay: ReadonlyMap<string, Buffer | null>): Array<[string, Uint8Array]> {
  const merged = new Map<string, Uint8Array>(rows);
  for (const [key, value] of overlay) {
    if (value === null) merged.delete(key);
    else merged.set(key, Buffer.from(value));
  }
  return [...merged].sort(([a], [b]) => compareKeys(a, b));
}
