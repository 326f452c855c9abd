/**
 * A watch: a blocking read run in a loop, its handler called with each new result
 * (reference: Consul's `api/watch` plan, `plan.go`, which `consul watch` and the npm
 * client's `watch` follow):
 *
 * ```ts
 * await runMeshWatch({
 *   read: (o) => mesh.kv.get('app/config', o).then((r) => ({ value: r.entry ?? null, index: r.index })),
 *   onChange: (value, index) => console.log(index, value),
 *   signal,                                                  // aborting it ends the watch
 * });
 * ```
 *
 * The first result is always handed over; later ones only when the index moved and the
 * result differs. An index that goes backwards (a restored snapshot) starts over from 0.
 * A failed read is retried after 5 s × the square of the failures in a row, at most 3 min.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';

/** One read of a watch: the result and its index; blocks while `index` is given and current. */
export type MeshWatchRead<T> = (o: { readonly index?: number; readonly signal: AbortSignal }) => Promise<{ readonly value: T; readonly index: number }>;

/** Options of {@link runMeshWatch}. */
export interface MeshWatchOptions<T> {
  readonly read: MeshWatchRead<T>;
  /** Called with each new result; the next read waits for it to settle. */
  readonly onChange: (value: T, index: number) => unknown;
  /** Aborting it ends the watch (a read in flight is given up). */
  readonly signal?: AbortSignal;
  /** Told about each failed read and the pause before the next, ms. */
  readonly onError?: (err: unknown, retryMs: number) => void;
  /** First pause after a failed read, ms (default 5000, the reference's `retryInterval`). */
  readonly retryMs?: number;
}

/** Longest pause after failed reads, ms (the reference's `maxBackoffTime`). */
const MAX_BACKOFF_MS = 180_000;

/** Runs the watch until `o.signal` aborts (resolves then); what `onChange` throws ends it (rejects). */
export async function runMeshWatch<T>(o: MeshWatchOptions<T>): Promise<void> {
  const signal = o.signal ?? new AbortController().signal;
  let index: number | undefined;
  let last: { value: T } | undefined;
  let failures = 0;
  while (!signal.aborted) {
    let r: { value: T; index: number };
    try {
      r = await o.read({ index, signal });
    } catch (err) {
      if (signal.aborted) return;
      failures++;
      const retry = Math.min((o.retryMs ?? 5000) * failures * failures, MAX_BACKOFF_MS);
      o.onError?.(err, retry);
      await sleep(retry, undefined, { signal }).catch(() => undefined);
      continue;
    }
    failures = 0;
    if (index !== undefined && r.index === index) continue;
    // The reference's WaitIndexVal.Next: an index that went backwards starts over.
    index = index !== undefined && r.index < index ? 0 : r.index;
    if (last && isDeepStrictEqual(last.value, r.value)) continue;
    last = { value: r.value };
    await o.onChange(r.value, r.index);
  }
}
