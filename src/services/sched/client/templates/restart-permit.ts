/**
 * The job-wide limit on template restarts, client side (issue 27 scope 6; reference/
 * integration.md §8.2: one key change restarts every allocation at once, the reference's
 * splay being per allocation). Before a `change_mode = "restart"` restart the client asks the
 * servers for a permit of its allocation, `PUT /v1/allocation/:id/restart-permit` (the
 * node's secret):
 *
 * ```json
 * {"Granted": true, "ExpiresAt": "2026-11-28T16:30:00Z"}     restart now
 * {"Granted": false, "RetryAfterMs": 1500}                   ask again later
 * ```
 *
 * and releases it with `DELETE` once the task runs again. The servers hold at most the
 * group's `update.max_parallel` permits per job and task group (1 without), and drop one
 * held longer than 60 s (a client that died holding it).
 *
 * @module
 */
import type { Logger } from '../../../../kernel/log/logger.js';

/** The servers' answer to a permit request. */
export interface PermitReply {
  readonly Granted: boolean;
  /** RFC 3339: when a granted permit lapses. */
  readonly ExpiresAt?: string;
  /** When to ask again after a refusal, ms. */
  readonly RetryAfterMs?: number;
}

/** Sends a permit request for one allocation: `PUT` asks, `DELETE` releases. @throws as the client's server API (a `status` on HTTP errors). */
export type PermitCall = (method: 'PUT' | 'DELETE') => Promise<PermitReply | undefined>;

/** First pause after a failed request, ms; doubles up to {@link MAX_ERROR_RETRY_MS}. */
const FIRST_ERROR_RETRY_MS = 500;
const MAX_ERROR_RETRY_MS = 10_000;
/** Pause after a refusal without `RetryAfterMs`, ms. */
const DEFAULT_RETRY_MS = 1000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One allocation's restart permits (module doc). */
export class RestartPermits {
  constructor(
    private readonly call: PermitCall,
    private readonly o: { readonly log: Logger; readonly random?: () => number },
  ) {}

  /**
   * Resolves once the servers grant a permit; while refused, asks again after `RetryAfterMs`
   * plus up to half of it at random (so waiting allocations do not ask in step). A server
   * without the route (404, 405) grants by its silence: the restart goes ahead. Failed
   * requests are retried with a backoff. @throws the abort reason when `signal` aborts.
   */
  async acquire(signal: AbortSignal): Promise<void> {
    const random = this.o.random ?? Math.random;
    let errorRetryMs = FIRST_ERROR_RETRY_MS;
    for (;;) {
      let reply: PermitReply | undefined;
      try {
        reply = await this.call('PUT');
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        const status = (err as { status?: number }).status;
        if (status === 404 || status === 405) return;
        this.o.log.warn({ err: (err as Error).message, retryMs: errorRetryMs }, 'client: asking for a template restart permit failed; retrying');
        await sleep(errorRetryMs, signal);
        errorRetryMs = Math.min(errorRetryMs * 2, MAX_ERROR_RETRY_MS);
        continue;
      }
      if (reply?.Granted) return;
      const after = Math.max(50, reply?.RetryAfterMs ?? DEFAULT_RETRY_MS);
      await sleep(after + Math.floor(random() * (after / 2)), signal);
    }
  }

  /** Gives the permit back; a failure is logged (the servers drop it after 60 s). Never throws. */
  async release(): Promise<void> {
    try {
      await this.call('DELETE');
    } catch (err) {
      this.o.log.debug({ err: (err as Error).message }, 'client: releasing a template restart permit failed; the servers expire it');
    }
  }
}
