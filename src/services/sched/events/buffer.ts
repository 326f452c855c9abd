/**
 * The event buffer: a bounded, singly linked list of committed batches with one writer
 * and many readers, each reading at its own pace (STYLE.md §2, `reference/sched.md` §3.3).
 * Memory is bounded by the buffer, never by the number of readers: there is no queue per
 * reader, only a cursor into this list.
 *
 * @module
 */

import type { EventBatch, StreamEvent } from './event.js';

/** Batches held when the configuration says 0 or nothing (`event_buffer_size`). */
export const DEFAULT_EVENT_BUFFER_SIZE = 100;

/**
 * One committed batch as readers see it. `next` settles once, when the writer appends the
 * following batch, so every waiting reader wakes without being iterated over. `dropped`
 * becomes true (and `whenDropped` settles) when the head moves past the item. A reader has
 * fallen behind when the item after its cursor is dropped: that batch is no longer held,
 * so a caught-up reader is never cut. Only the buffer's writer mutates items.
 */
export interface BufferItem {
  /** The commit index of the batch; 0 for the empty sentinel of an empty buffer. */
  readonly index: number;
  readonly events: readonly StreamEvent[];
  readonly next: Promise<BufferItem>;
  readonly dropped: boolean;
  readonly whenDropped: Promise<void>;
}

/** Where a reader starts: see {@link EventBuffer.startAt}. */
export interface StartPosition {
  /** The item to read forward from; it is never delivered itself. */
  readonly cursor: BufferItem;
  /** Index of the first held batch the cursor leads to; null when it waits for the next append. */
  readonly firstIndex: number | null;
  /** False when a batch at or after the requested index has already been dropped (a gap). */
  readonly available: boolean;
}

/** Options of {@link EventBuffer}. */
export interface EventBufferOptions {
  /** Batches held; 0 or absent means {@link DEFAULT_EVENT_BUFFER_SIZE}; negative is an error. */
  eventBufferSize?: number;
  /**
   * The buffer starts after this index, as if every batch up to it had been dropped: a reader
   * asking for one of them is told it missed events. Default 0 (a fresh broker).
   */
  after?: number;
}

/** A held batch. Only {@link EventBuffer} links and drops it, each exactly once. */
class Item implements BufferItem {
  dropped = false;
  /** The following item, set together with `next` settling. */
  successor: Item | null = null;
  readonly next: Promise<BufferItem>;
  readonly whenDropped: Promise<void>;
  private settleNext!: (item: BufferItem) => void;
  private settleDropped!: () => void;

  constructor(
    readonly index: number,
    readonly events: readonly StreamEvent[],
  ) {
    this.next = new Promise((resolve) => (this.settleNext = resolve));
    this.whenDropped = new Promise((resolve) => (this.settleDropped = resolve));
  }

  link(item: Item): void {
    this.successor = item;
    this.settleNext(item);
  }

  drop(): void {
    this.dropped = true;
    this.settleDropped();
  }
}

/**
 * A sentinel already linked to `first`: a reader starting here steps onto `first` without
 * a special case, and has fallen behind once `first` is dropped unread. It is not held,
 * so it is never dropped itself.
 */
function preLinked(first: Item): BufferItem {
  return { index: first.index, events: [], next: Promise.resolve(first), dropped: false, whenDropped: new Promise(() => {}) };
}

/**
 * The bounded list. Invariants: at most `maxBatches` items are held (`length` never exceeds
 * it); indexes strictly increase from head to tail; every item that leaves the list is
 * marked dropped. One writer: only the broker's publish loop may call {@link append};
 * readers only call {@link startAt} and follow `next`.
 */
export class EventBuffer {
  /** Batches held at most. */
  readonly maxBatches: number;
  /** Oldest held item; null while nothing is held. */
  private head: Item | null = null;
  /** Newest item; an empty, never held sentinel (index 0) until the first append. */
  private tail = new Item(0, []);
  private held = 0;
  /** Index of the newest dropped batch; 0 while none. */
  private lastDroppedIndex = 0;

  constructor(options: EventBufferOptions = {}) {
    const size = options.eventBufferSize ?? 0;
    if (!Number.isInteger(size) || size < 0) throw new Error(`event_buffer_size must be a non-negative integer, got ${size}`);
    this.maxBatches = size === 0 ? DEFAULT_EVENT_BUFFER_SIZE : size;
    const after = options.after ?? 0;
    if (!Number.isInteger(after) || after < 0) throw new Error(`after must be a non-negative integer, got ${after}`);
    this.tail = new Item(after, []);
    this.lastDroppedIndex = after;
  }

  /** Batches held now; never more than {@link maxBatches}. */
  get length(): number {
    return this.held;
  }

  /** Index of the oldest held batch, or null when none is held. */
  get headIndex(): number | null {
    return this.head?.index ?? null;
  }

  /** Index of the newest batch appended; 0 before the first. */
  get tailIndex(): number {
    return this.tail.index;
  }

  /**
   * Appends a batch and, past {@link maxBatches}, drops the oldest. Never waits for a
   * reader: readers wake through `next` after this returns. Throws when `batch.index` does
   * not exceed the tail's (a caller bug: commits are announced in index order).
   */
  append(batch: EventBatch): void {
    if (batch.index <= this.tail.index) throw new Error(`event batch index ${batch.index} does not follow ${this.tail.index}`);
    const item = new Item(batch.index, batch.events);
    this.tail.link(item);
    this.tail = item;
    this.head ??= item;
    this.held++;
    while (this.held > this.maxBatches) this.dropHead();
  }

  /**
   * Finds where a reader asking for `index` starts: the first held batch whose index is at
   * least `index` (0: the oldest held), or the next append when none is. `available` is
   * false when a batch the reader asked for was already dropped; `index` 0 asks for no
   * batch in particular and is always available.
   */
  startAt(index: number): StartPosition {
    const available = index === 0 || index > this.lastDroppedIndex;
    let item = this.head;
    while (item !== null && item.index < index) item = item.successor;
    if (item === null) return { cursor: this.tail, firstIndex: null, available };
    return { cursor: preLinked(item), firstIndex: item.index, available };
  }

  private dropHead(): void {
    const old = this.head!;
    this.head = old.successor;
    this.held--;
    this.lastDroppedIndex = old.index;
    old.drop();
  }
}
