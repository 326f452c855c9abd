/**
 * A client-only agent's copy of its servers' JWKS (issue 27 scope 1; reference/integration.md
 * §4, "served by servers and client agents"; §8.5: verifiers next to the workloads keep
 * working when the servers are far or briefly gone). It watches
 * `GET /.well-known/jwks.json` on the servers with blocking queries (`?index=&wait=`), so a
 * rotation reaches it within one round trip, and keeps the last copy through an outage,
 * retrying with a backoff of 1 s doubling to 30 s.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { ServerApi } from './server-api.js';

/** The blocking wait of one watch: 5 minutes, as a Go duration. */
const WAIT = '5m';
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/** The JWKS as last fetched and the servers' keyring index it came with. */
export interface JwksCopy {
  readonly jwks: { readonly keys: readonly unknown[] };
  readonly index: number;
}

/** See the module doc. */
export class JwksMirror {
  private copy: JwksCopy | undefined;
  private readonly stopper = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly api: ServerApi,
    private readonly log: Logger,
  ) {}

  /** The last copy; undefined before the first fetch succeeded. */
  current(): JwksCopy | undefined {
    return this.copy;
  }

  /** Starts watching (once). */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops watching and waits for the watch to end. */
  async close(): Promise<void> {
    this.stopper.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    let backoff = FIRST_BACKOFF_MS;
    while (!signal.aborted) {
      try {
        const at = this.copy?.index ?? 0;
        const r = await this.api.call<{ keys: unknown[] }>('GET', `/.well-known/jwks.json?index=${at}&wait=${WAIT}`, { signal });
        if (r.body && Array.isArray(r.body.keys)) this.copy = { jwks: { keys: r.body.keys }, index: r.index };
        backoff = FIRST_BACKOFF_MS;
      } catch (err) {
        if (signal.aborted) return;
        this.log.warn({ err: (err as Error).message, retryMs: backoff }, 'client: fetching the JWKS from the servers failed; keeping the last copy');
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, backoff);
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }
}
