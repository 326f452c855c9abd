/**
 * A subscription: a cursor into the event buffer plus the topic, key and namespace filter
 * of `reference/sched.md` §3.5. The HTTP endpoint parses the query; this file owns what a
 * `topic=Topic:Key` value means.
 *
 * @module
 */

import type { BufferItem } from './buffer.js';
import type { EventBatch, StreamEvent } from './event.js';

/** Topic name to the keys asked for; topic `*` stands for every topic, key `*` for every key. */
export type TopicFilter = ReadonlyMap<string, readonly string[]>;

/** What a subscription lets through. */
export interface SubscriptionFilter {
  readonly topics: TopicFilter;
  /** One namespace, or `*` for all; events with Namespace `""` pass every namespace. */
  readonly namespace: string;
}

/**
 * Parses repeated `topic` query values (`Node`, `Node:*`, `Node:<id>`, `*`) into a
 * {@link TopicFilter}. No value means `*:*` (spec 002 "Event stream": all topics). Throws
 * {@link TopicParseError} for a value with more than one colon (`reference/sched.md` §3.1).
 */
export function parseTopics(values: readonly string[]): TopicFilter {
  const topics = new Map<string, string[]>();
  if (values.length === 0) return new Map([['*', ['*']]]);
  for (const value of values) {
    const parts = value.split(':');
    if (parts.length > 2 || parts[0] === '') throw new TopicParseError(value);
    const [topic, key = '*'] = parts;
    const keys = topics.get(topic!) ?? [];
    if (!keys.includes(key)) keys.push(key);
    topics.set(topic!, keys);
  }
  return topics;
}

/** A `topic` value that is not `Topic` or `Topic:Key`; its message is the reference's 400 text. */
export class TopicParseError extends Error {
  constructor(readonly value: string) {
    super(`Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: ${value}`);
  }
}

/** Whether one of `keys` is `*`, the event's Key or one of its FilterKeys (runs per event per subscriber: no allocation). */
function keysMatch(keys: readonly string[] | undefined, e: StreamEvent): boolean {
  if (keys === undefined) return false;
  for (const k of keys) if (k === '*' || k === e.Key || (e.FilterKeys?.includes(k) ?? false)) return true;
  return false;
}

/**
 * The events of `events` that `filter` lets through, in order, each at most once.
 * An event passes when its namespace is `""`, equals the filter's or the filter's is `*`,
 * and the keys asked for its topic plus those of topic `*` contain `*`, its Key or one of
 * its FilterKeys; when every event passes, `events` itself is returned. Unlike the reference, a `*` among several keys means every key, and an
 * event matching two keys appears once.
 */
export function filterEvents(filter: SubscriptionFilter, events: readonly StreamEvent[]): readonly StreamEvent[] {
  const any = filter.topics.get('*');
  const passed = events.filter((e) => {
    if (e.Namespace !== '' && filter.namespace !== '*' && e.Namespace !== filter.namespace) return false;
    return keysMatch(any, e) || keysMatch(filter.topics.get(e.Topic), e);
  });
  // Every event passed: hand back the shared array, so the NDJSON line of the batch is
  // encoded once for all the subscribers that see it whole (ndjson.ts encodeBatch).
  return passed.length === events.length ? events : passed;
}

/** Why a subscription ended; the HTTP layer renders each its own way. */
export type EndCode = 'dropped' | 'revoked' | 'closed';

/** The end of a subscription, with a message safe to show the client. */
export class SubscriptionEnded extends Error {
  constructor(
    readonly code: EndCode,
    message: string,
  ) {
    super(message);
  }
}

/** The error a reader gets when it fell behind; names the index to resubscribe from. */
function droppedError(resumeIndex: number): SubscriptionEnded {
  return new SubscriptionEnded(
    'dropped',
    `event dropped from buffer: the subscriber fell behind the buffered events and was closed; resubscribe with index=${resumeIndex}`,
  );
}

/** Message of a subscription the server ends while the client is still reading (reference §3.6). */
export const CLOSED_BY_SERVER = 'subscription closed by server, client should resubscribe';

/**
 * One reader: follows the buffer from its cursor and yields the batches its filter lets
 * through. Invariants: the cursor is the last item stepped onto (or the start sentinel)
 * and is released (null) once the subscription ends, so an ended subscription holds no
 * buffer memory; a subscription whose next batch is dropped before it steps onto it ends
 * at once with a `dropped` error, even while nobody calls {@link next}. Only the holder
 * calls {@link next}, one call at a time; anyone may call {@link close}.
 */
export class Subscription {
  private cursor: BufferItem | null;
  private ending: SubscriptionEnded | null = null;
  /** Index of the last batch stepped onto; resuming asks for the one after it. */
  private lastIndex: number;
  private waiter: { resolve: (item: BufferItem) => void; reject: (e: Error) => void } | null = null;
  private readonly endListeners = new Set<(reason: SubscriptionEnded) => void>();

  constructor(
    readonly filter: SubscriptionFilter,
    start: BufferItem,
    /** Index the subscriber resumes from if it falls behind before its first batch. */
    startIndex: number,
  ) {
    this.cursor = start;
    this.lastIndex = startIndex - 1;
    this.watch(start);
  }

  /** The index a client resumes from to miss nothing: the one after the last batch stepped onto. */
  get resumeIndex(): number {
    return this.lastIndex + 1;
  }

  /** The reason once ended, else null. */
  get ended(): SubscriptionEnded | null {
    return this.ending;
  }

  /**
   * Resolves with the next batch holding events that pass the filter (only those events).
   * Rejects with the {@link SubscriptionEnded} reason once the subscription has ended.
   */
  async next(): Promise<EventBatch> {
    if (this.waiter !== null) throw new Error('Subscription.next called again before the previous call settled');
    for (;;) {
      const from = this.cursor;
      if (from === null) throw this.ending!;
      const item = await this.step(from);
      if (item.dropped) this.close(droppedError(this.lastIndex + 1));
      if (this.cursor !== from) throw this.ending!;
      this.cursor = item;
      this.lastIndex = item.index;
      this.watch(item);
      const events = filterEvents(this.filter, item.events);
      if (events.length > 0) return { index: item.index, events };
    }
  }

  /** Ends the subscription; idempotent, the first reason wins. Default reason: closed by the client. */
  close(reason: SubscriptionEnded = new SubscriptionEnded('closed', 'subscription closed')): void {
    if (this.ending !== null) return;
    this.ending = reason;
    this.cursor = null;
    this.waiter?.reject(reason);
    this.waiter = null;
    for (const listener of this.endListeners) listener(reason);
    this.endListeners.clear();
  }

  /** Calls `listener` once when the subscription ends (at once if it has); returns an unregister function. */
  onEnd(listener: (reason: SubscriptionEnded) => void): () => void {
    if (this.ending !== null) {
      listener(this.ending);
      return () => {};
    }
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** Waits for the item after `from`, or rejects when the subscription ends first. */
  private step(from: BufferItem): Promise<BufferItem> {
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      this.waiter = waiter;
      void from.next.then((item) => {
        if (this.waiter !== waiter) return;
        this.waiter = null;
        resolve(item);
      });
    });
  }

  /** Ends the subscription as soon as the batch after `item` is dropped while `item` is still the cursor. */
  private watch(item: BufferItem): void {
    void item.next
      .then((following) => following.whenDropped)
      .then(() => {
        if (this.cursor === item) this.close(droppedError(this.lastIndex + 1));
      });
  }
}
