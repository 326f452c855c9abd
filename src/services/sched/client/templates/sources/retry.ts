/**
 * What a failed attempt of a template source was, and how long to wait before the next one
 * (consul-template's `RetryFunc`: backoff × 2^attempt up to the maximum; Cairn adds jitter
 * so the tasks of a client do not retry in step, and never stops retrying).
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RetrySettings } from './settings.js';

/**
 * Why an attempt failed: `unavailable` (refused connection, time-out, 5xx, 429: the service is
 * down or busy), `denied` (403: the token may not read it; the policy may change),
 * `refused` (another 4xx: the request itself was turned down).
 */
type SourceFailure = 'unavailable' | 'denied' | 'refused';

/** A failed attempt of a watch, as `DependencyListener.error` receives it: `<dependency>: <what>: <message>`. */
export class TemplateSourceError extends Error {
  override readonly name = 'TemplateSourceError';
  constructor(
    /** The dependency's text (`kv.block(app/config)`). */
    readonly dependency: string,
    readonly failure: SourceFailure,
    /** The service's status, when it answered. */
    readonly status: number | undefined,
    cause: Error,
  ) {
    const what = failureText(failure, status);
    // The secrets service's 403 says `permission denied` itself: not twice.
    super(`${dependency}: ${what}${cause.message.trim().toLowerCase() === what ? '' : `: ${cause.message}`}`, { cause });
  }
}

function failureText(failure: SourceFailure, status: number | undefined): string {
  if (failure === 'denied') return 'permission denied';
  if (failure === 'refused') return `refused (${status})`;
  return status === undefined ? 'service unreachable' : `service unavailable (${status})`;
}

/** `err` (an SDK error: one with a numeric `status` answered, else unreachable) classified for `dependency`. */
export function sourceError(dependency: string, err: unknown): TemplateSourceError {
  const e = err instanceof Error ? err : new Error(String(err));
  const raw = (e as { status?: unknown }).status;
  const status = typeof raw === 'number' ? raw : undefined;
  const failure: SourceFailure = status === undefined || status >= 500 || status === 429 ? 'unavailable' : status === 403 ? 'denied' : 'refused';
  return new TemplateSourceError(dependency, failure, status, e);
}

/**
 * The pause before attempt `failures + 1`, ms: `backoffMs` × 2^(failures−1) capped at
 * `maxBackoffMs`, then 80–100 % of it (jitter). A denial waits the maximum at once: retrying
 * it sooner only repeats the refusal until someone changes the policy.
 */
export function retryDelayMs(failures: number, retry: RetrySettings, failure: SourceFailure): number {
  const full = failure === 'denied' ? retry.maxBackoffMs : Math.min(retry.backoffMs * 2 ** Math.min(Math.max(failures - 1, 0), 30), retry.maxBackoffMs);
  return full * (0.8 + Math.random() * 0.2);
}

/** Waits `ms`; resolves early (without throwing) when `signal` aborts. */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
