/**
 * Shared watches: one query per dependency however many templates of the task use it (as
 * consul-template's watcher de-duplicates dependencies), its listeners told each value that
 * differs from the last one (deep equality: a blocking query that wakes up with the same data,
 * or a timed re-read of an unchanged secret, re-renders nothing), and stopped when the last
 * listener goes or the source closes. The first value after a failed attempt is told even when
 * unchanged: it is how the listeners learn that the source is reachable again.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../../../../kernel/log/logger.js';
import type { DependencyListener } from '../source.js';
import { pause, retryDelayMs, sourceError, type TemplateSourceError } from './retry.js';
import type { RetrySettings } from './settings.js';

/** What a watch's loop (one per dependency kind: kv.ts, health.ts, …) works with. */
export interface WatchContext {
  /** The dependency's text (dependency.ts `describeDependency`), as errors and logs name it. */
  readonly dependency: string;
  /** Aborts when the watch stops: the loop then returns, its request in flight given up. */
  readonly signal: AbortSignal;
  /** Hands `v` to the listeners unless it equals the last value; `compareAs` (default `v`) is what is compared. */
  value(v: unknown, compareAs?: unknown): void;
  /**
   * Reports failed attempt number `failures` (1 = first in a row) to the listeners and the log,
   * then waits the backoff of `retry` (or resolves at once when the watch stops).
   */
  failed(err: unknown, failures: number, retry: RetrySettings): Promise<TemplateSourceError>;
}

/** A watch's loop: runs until `ctx.signal` aborts. Must not throw (an unexpected throw is logged and ends the watch). */
export type WatchLoop = (ctx: WatchContext) => Promise<void>;

interface Entry {
  readonly listeners: Set<DependencyListener>;
  readonly abort: AbortController;
  last?: { readonly value: unknown; readonly compareAs: unknown };
  /** The last attempt failed: the next value is told even if unchanged (the listeners learn the source is back). */
  failing?: boolean;
}

/** The shared watches of one source (module doc). */
export class WatchSet {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  /**
   * Adds `listener` to the watch of `key`, started with the loop `start` makes if it is new; a listener that
   * joins a running watch is told its last value at once (asynchronously). Returns the
   * function that removes the listener (the watch stops with its last listener).
   */
  watch(key: string, start: () => WatchLoop, listener: DependencyListener): () => void {
    if (this.closed) return () => {};
    let entry = this.entries.get(key);
    if (!entry) {
      const created: Entry = { listeners: new Set(), abort: new AbortController() };
      entry = created;
      this.entries.set(key, created);
      void start()(this.context(key, created)).catch((err: unknown) =>
        this.log.error({ dependency: key, err: (err as Error).message }, 'template source watch ended'),
      );
    } else if (entry.last) {
      const last = entry.last;
      queueMicrotask(() => {
        if (entry!.listeners.has(listener)) this.tell(key, () => listener.value(last.value));
      });
    }
    entry.listeners.add(listener);
    const own = entry;
    return () => {
      own.listeners.delete(listener);
      if (own.listeners.size === 0 && this.entries.get(key) === own) {
        this.entries.delete(key);
        own.abort.abort();
      }
    };
  }

  /** Whether the watch of `key` runs. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Stops every watch. */
  close(): void {
    this.closed = true;
    for (const e of this.entries.values()) e.abort.abort();
    this.entries.clear();
  }

  /** Calls a listener; what it throws is logged and never ends the watch the other listeners share. */
  private tell(key: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ dependency: key, err: (err as Error).message }, 'template source listener failed');
    }
  }

  private context(key: string, entry: Entry): WatchContext {
    const signal = entry.abort.signal;
    return {
      dependency: key,
      signal,
      value: (v, compareAs = v) => {
        if (signal.aborted) return;
        if (entry.last && !entry.failing && isDeepStrictEqual(entry.last.compareAs, compareAs)) return;
        entry.failing = false;
        entry.last = { value: v, compareAs };
        for (const l of [...entry.listeners]) this.tell(key, () => l.value(v));
      },
      failed: async (err, failures, retry) => {
        const e = sourceError(key, err);
        if (signal.aborted) return e;
        entry.failing = true;
        const waitMs = Math.round(retryDelayMs(failures, retry, e.failure));
        // The message names the dependency and the service's answer: never a value or a token.
        this.log.warn({ dependency: key, failure: e.failure, attempt: failures, retryInMs: waitMs }, e.message);
        for (const l of [...entry.listeners]) this.tell(key, () => l.error(e));
        await pause(waitMs, signal);
        return e;
      },
    };
  }
}
