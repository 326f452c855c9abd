/**
 * NDJSON framing of a subscription onto a Node `Writable` (spec 002 "Event stream",
 * `reference/sched.md` §3.2): a `{}` heartbeat at once and on a timer, one JSON line per
 * batch, and a last JSON line naming why the stream ended.
 *
 * @module
 */

import type { Writable } from 'node:stream';
import type { EventBatch, StreamEvent } from './event.js';
import { SubscriptionEnded, type Subscription } from './subscription.js';

/** Heartbeat period of the reference (a ticker, not reset by traffic). */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/** The heartbeat frame: an object with no `Index` and no `Events` (spec 002 rule 3). */
export const HEARTBEAT_FRAME = '{}\n';

/** The timer functions the writer uses; tests pass fakes to fire heartbeats by hand. */
export interface IntervalTimers {
  setInterval(tick: () => void, periodMs: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Options of {@link writeNdjson}; defaults are filled in there. */
export interface NdjsonOptions {
  /** Period of `{}` frames after the first; absent means {@link DEFAULT_HEARTBEAT_MS}. */
  heartbeatMs?: number;
  /** Absent means the global timers. */
  timers?: IntervalTimers;
}

const globalTimers: IntervalTimers = {
  setInterval: (tick, periodMs) => setInterval(tick, periodMs),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/**
 * Lines already encoded, as UTF-8 bytes, by the events array they encode: a batch every
 * subscriber sees whole shares one array (subscription.ts `filterEvents`), so 100
 * subscribers cost one `JSON.stringify` and one UTF-8 encoding, and every socket gets the
 * same bytes. Weak, so lines go with their buffer items.
 */
const encoded = new WeakMap<readonly StreamEvent[], Buffer>();

/** One batch as a line: `{"Index":N,"Events":[{Topic,Type,Key,Namespace,FilterKeys,Index,Payload}]}` and `\n`. */
export function encodeBatch(batch: EventBatch): string {
  return encodeLine(batch);
}

/** {@link encodeBatch} as UTF-8 bytes, encoded once per shared events array. */
function encodeBatchBytes(batch: EventBatch): Buffer {
  const hit = encoded.get(batch.events);
  if (hit !== undefined) return hit;
  const bytes = Buffer.from(encodeLine(batch), 'utf8');
  encoded.set(batch.events, bytes);
  return bytes;
}

function encodeLine(batch: EventBatch): string {
  const events = batch.events.map(({ Topic, Type, Key, Namespace, FilterKeys, Index, Payload }) => ({
    Topic,
    Type,
    Key,
    Namespace,
    FilterKeys,
    Index,
    Payload,
  }));
  return `${JSON.stringify({ Index: batch.index, Events: events })}\n`;
}

/**
 * The last line of a stream the server ends: `{"Error":"<message>"}`. The reference appends
 * the bare error text instead (§3.2); a JSON line keeps spec 002 rule 2 (every line parses)
 * and clients that ignore unknown fields still see the stream end.
 */
function encodeEnd(reason: SubscriptionEnded): string {
  return `${JSON.stringify({ Error: reason.message })}\n`;
}

/**
 * Writes `sub` to `out` until either ends, then resolves with the reason. Backpressure: the
 * next batch is read only after `out` drained, so memory does not grow with a slow client;
 * the subscription lags in the buffer and the buffer eventually drops it. Heartbeats are
 * skipped while `out` needs draining. When the subscription ends while `out` is writable,
 * the end line is written and `out` ended; when `out` closes or fails first, the
 * subscription is closed. Never closes `out` abruptly: its socket deadline is the caller's.
 */
export async function writeNdjson(sub: Subscription, out: Writable, options: NdjsonOptions = {}): Promise<SubscriptionEnded> {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const timers = options.timers ?? globalTimers;
  const clientGone = () => sub.close();
  out.once('close', clientGone);
  out.once('error', clientGone);
  out.write(HEARTBEAT_FRAME);
  const ticker = timers.setInterval(() => {
    if (out.writable && !out.writableNeedDrain) out.write(HEARTBEAT_FRAME);
  }, heartbeatMs);
  // Frames ready in the same event-loop turn (a reader catching up, a burst) leave in one
  // socket write: corked at the first, uncorked in the check phase.
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    out.uncork();
  };
  try {
    for (;;) {
      const batch = await sub.next();
      if (!corked) {
        corked = true;
        out.cork();
        setImmediate(uncork);
      }
      if (!out.write(encodeBatchBytes(batch))) {
        uncork();
        await drainedOrEnded(out, sub);
      }
    }
  } catch (e) {
    if (!(e instanceof SubscriptionEnded)) throw e;
    if (out.writable) out.end(encodeEnd(e));
    return e;
  } finally {
    uncork();
    timers.clearInterval(ticker);
    out.off('close', clientGone);
    out.off('error', clientGone);
    sub.close();
  }
}

/** Resolves when `out` drains or closes, or when `sub` ends; leaves no listener behind. */
function drainedOrEnded(out: Writable, sub: Subscription): Promise<void> {
  if (sub.ended !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      stopWatching();
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    const stopWatching = sub.onEnd(done);
  });
}
