/**
 * The event broker: owns the buffer's lifecycle, the publish loop, the registry of
 * subscriptions by token and the authorisation checks (STYLE.md §2, `reference/sched.md`
 * §3.3 and §3.6). It knows nothing of HTTP.
 *
 * @module
 */

import { EventBuffer } from './buffer.js';
import type { EventBatch } from './event.js';
import { CLOSED_BY_SERVER, Subscription, SubscriptionEnded, type TopicFilter } from './subscription.js';

/** Batches waiting for the publish loop before {@link EventBroker.publish} flushes in place (reference: 64). */
const DEFAULT_PUBLISH_QUEUE_BATCHES = 64;

/** The token a subscriber presented: `accessor` keys the registry, `secret` lets the callback resolve it again. */
interface SubscriberToken {
  readonly accessor: string;
  readonly secret: string;
}

/** What a client asks for; the HTTP endpoint builds it from the query and the token header. */
export interface SubscribeRequest {
  readonly topics: TopicFilter;
  /** One namespace or `*` (all: the callback must check the token may read every namespace). */
  readonly namespace: string;
  /** First index wanted; 0 replays every held batch. */
  readonly index: number;
  readonly token: SubscriberToken;
}

/** The authorisation callback's answer; `reason` is safe to show the client. */
export type AuthorizeVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * Decides whether `request.token` may read every topic of `request` in its namespace
 * (spec 002 "Event stream topic privileges"). Runs before a subscription exists and again
 * for live ones when token, policy or role events pass; it must resolve the token afresh
 * (it may have been changed or deleted). A throw rejects a subscribe with that error (a
 * 500 for the HTTP layer) and ends a live subscription.
 */
export type Authorize = (request: SubscribeRequest) => AuthorizeVerdict | Promise<AuthorizeVerdict>;

/** Options of {@link EventBroker}; defaults are filled in its constructor. */
export interface EventBrokerOptions {
  /** Batches held for replay and slow readers; 0 or absent means 100 (`event_buffer_size`). */
  eventBufferSize?: number;
  /** Batches queued between publish and the buffer; absent means {@link DEFAULT_PUBLISH_QUEUE_BATCHES}. */
  publishQueueBatches?: number;
  authorize: Authorize;
  /** Runs the publish loop later; absent means `queueMicrotask`. Tests may drive it by hand. */
  schedule?: (drain: () => void) => void;
}

/** Where a new subscription starts, so the HTTP layer can tell the client about a gap. */
interface StartReport {
  readonly requestedIndex: number;
  /** Index of the first held batch it will read (before filtering); null when it starts with the next publish. */
  readonly firstIndex: number | null;
  /** False when batches at or after `requestedIndex` were no longer buffered: the client missed events. */
  readonly available: boolean;
}

/** A subscription and where it started. */
export interface Subscribed {
  readonly subscription: Subscription;
  readonly start: StartReport;
}

/** A subscribe request the authorisation callback refused; the HTTP layer answers 403 before any byte. */
export class SubscribeDenied extends Error {}

/** Topics whose events make the broker re-check authorisation (reference §3.6). */
const ACL_TOPICS = new Set(['ACLToken', 'ACLPolicy', 'ACLRole']);

/**
 * Fans committed batches out to subscribers. Invariants: the buffer has one writer, the
 * publish loop; publishing never waits for a reader; a subscription is registered under its
 * token's accessor from creation until it ends, and only then. Callers must publish batches
 * in index order (the store's change feed does).
 */
export class EventBroker {
  /** Replaced by {@link reset}; subscriptions keep cursors into the one they started on. */
  private buffer: EventBuffer;
  private readonly bufferSize: number;
  private readonly authorize: Authorize;
  private readonly schedule: (drain: () => void) => void;
  private readonly queueLimit: number;
  /** Written by publish, emptied by the publish loop only. */
  private queue: EventBatch[] = [];
  private drainScheduled = false;
  private lastPublished = 0;
  /** Counts ACL events applied; a subscribe whose check raced one checks again. */
  private aclEpoch = 0;
  private readonly byAccessor = new Map<string, Set<{ sub: Subscription; request: SubscribeRequest }>>();
  private stopped = false;

  constructor(options: EventBrokerOptions) {
    this.bufferSize = options.eventBufferSize ?? 0;
    this.buffer = new EventBuffer({ eventBufferSize: this.bufferSize });
    this.authorize = options.authorize;
    this.schedule = options.schedule ?? ((drain) => queueMicrotask(drain));
    this.queueLimit = options.publishQueueBatches ?? DEFAULT_PUBLISH_QUEUE_BATCHES;
    if (!Number.isInteger(this.queueLimit) || this.queueLimit < 1) throw new Error(`publishQueueBatches must be a positive integer, got ${this.queueLimit}`);
  }

  /** Batches held for replay (never more than the buffer size). */
  get bufferedBatches(): number {
    return this.buffer.length;
  }

  /** Live subscriptions. */
  get subscriptionCount(): number {
    let n = 0;
    for (const set of this.byAccessor.values()) n += set.size;
    return n;
  }

  /**
   * Hands a committed batch to the publish loop and returns at once. Batches without events
   * are skipped. When the queue is full the queued batches go into the buffer in place:
   * appending never waits for a reader. Throws when `batch.index` does not follow the last
   * one published; ignored once the broker is closed.
   */
  publish(batch: EventBatch): void {
    if (this.stopped || batch.events.length === 0) return;
    if (batch.index <= this.lastPublished) throw new Error(`event batch index ${batch.index} does not follow ${this.lastPublished}`);
    this.lastPublished = batch.index;
    if (this.queue.length >= this.queueLimit) this.drain();
    this.queue.push(batch);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      this.schedule(() => this.drain());
    }
  }

  /**
   * Authorises `request`, then registers a subscription starting at `request.index`.
   * Rejects with {@link SubscribeDenied} when the callback refuses, before anything exists;
   * the check runs again if an ACL event was applied while it ran.
   */
  async subscribe(request: SubscribeRequest): Promise<Subscribed> {
    for (;;) {
      const epoch = this.aclEpoch;
      const verdict = await this.authorize(request);
      if (!verdict.allowed) throw new SubscribeDenied(verdict.reason);
      if (this.stopped) throw new Error('event broker is closed');
      if (epoch === this.aclEpoch) break;
    }
    const pos = this.buffer.startAt(request.index);
    const sub = new Subscription({ topics: request.topics, namespace: request.namespace }, pos.cursor, pos.firstIndex ?? this.buffer.tailIndex + 1);
    const entry = { sub, request };
    const set = this.byAccessor.get(request.token.accessor) ?? new Set();
    this.byAccessor.set(request.token.accessor, set.add(entry));
    sub.onEnd(() => {
      set.delete(entry);
      if (set.size === 0 && this.byAccessor.get(request.token.accessor) === set) this.byAccessor.delete(request.token.accessor);
    });
    return { subscription: sub, start: { requestedIndex: request.index, firstIndex: pos.firstIndex, available: pos.available } };
  }

  /** Ends every subscription of the token `accessor` with the server-closed message; returns how many. */
  closeByToken(accessor: string): number {
    const entries = [...(this.byAccessor.get(accessor) ?? [])];
    for (const { sub } of entries) sub.close(new SubscriptionEnded('revoked', `${CLOSED_BY_SERVER}: token revoked`));
    return entries.length;
  }

  /**
   * Starts over after `index`: the state was reloaded at `index` (a follower that fell
   * behind the kept log, a leader that stepped down), so the batches between the last one
   * published and `index` were never announced, and published ones above it may not exist.
   * Every subscription ends with `subscription closed by server, client should resubscribe:
   * the server reloaded its state; resubscribe with index=N` (N: the next batch it would
   * have read); the held and queued batches are dropped, and a client asking again for a
   * batch up to `index` is told it missed events (`StartReport.available` false). Later
   * publishes must follow `index`. Returns how many subscriptions ended.
   */
  reset(index: number): number {
    if (this.stopped) return 0;
    this.queue = [];
    this.buffer = new EventBuffer({ eventBufferSize: this.bufferSize, after: index });
    this.lastPublished = index;
    // A subscribe authorising now registers on the new buffer; make it check again anyway.
    this.aclEpoch++;
    let ended = 0;
    for (const set of [...this.byAccessor.values()]) {
      for (const { sub } of [...set]) {
        sub.close(new SubscriptionEnded('dropped', `${CLOSED_BY_SERVER}: the server reloaded its state; resubscribe with index=${sub.resumeIndex}`));
        ended++;
      }
    }
    return ended;
  }

  /** Flushes queued batches, ends every subscription and ignores later publishes; idempotent. */
  close(): void {
    if (this.stopped) return;
    this.drain();
    this.stopped = true;
    for (const set of [...this.byAccessor.values()]) {
      for (const { sub } of [...set]) sub.close(new SubscriptionEnded('closed', `${CLOSED_BY_SERVER}: event broker shutting down`));
    }
  }

  /** The publish loop: moves queued batches into the buffer, then reacts to ACL events. */
  private drain(): void {
    this.drainScheduled = false;
    const batches = this.queue;
    this.queue = [];
    for (const batch of batches) {
      this.buffer.append(batch);
      this.reactToAcl(batch);
    }
  }

  /** Token deleted: close its streams; token changed: re-check them; policy or role changed: re-check all. */
  private reactToAcl(batch: EventBatch): void {
    let everyone = false;
    const accessors = new Set<string>();
    for (const e of batch.events) {
      if (!ACL_TOPICS.has(e.Topic)) continue;
      this.aclEpoch++;
      if (e.Topic !== 'ACLToken') everyone = true;
      else if (e.Type === 'ACLTokenDeleted') this.closeByToken(e.Key);
      else accessors.add(e.Key);
    }
    for (const [accessor, set] of this.byAccessor) {
      if (everyone || accessors.has(accessor)) for (const entry of set) void this.recheck(entry);
    }
  }

  /** Re-runs the callback for a live subscription; a refusal or a throw ends it (fail closed). */
  private async recheck({ sub, request }: { sub: Subscription; request: SubscribeRequest }): Promise<void> {
    let reason: string;
    try {
      const verdict = await this.authorize(request);
      if (verdict.allowed) return;
      reason = verdict.reason;
    } catch (e) {
      reason = `authorization failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    sub.close(new SubscriptionEnded('revoked', `${CLOSED_BY_SERVER}: ${reason}`));
  }
}
