/**
 * Read-your-writes for the secrets client (spec 000 "Errors" 412; the reference's
 * `X-Vault-Index` and its client's "require state" handling): the client remembers the
 * newest `X-Secrets-Index` state a reply carried and sends it with later requests, so a
 * performance standby serves them only once it has applied that state (else 412, which
 * the client retries with backoff).
 *
 * The value is opaque to callers. The service documents it as base64 of
 * `v1:<cluster id>:<index>`; the client decodes it only to keep the newest of two states
 * of one cluster (replies of concurrent requests may arrive out of order). A value it
 * cannot decode simply replaces the one held.
 *
 * @module
 */

/** The request and reply header carrying the state. */
export const STATE_HEADER = 'x-secrets-index';

/** Decoded `v1:<cluster id>:<index>`, or undefined. */
function decode(value: string): { cluster: string; index: number } | undefined {
  const m = /^v1:([^:]+):(\d+)$/.exec(Buffer.from(value, 'base64').toString('utf8'));
  return m ? { cluster: m[1], index: Number(m[2]) } : undefined;
}

/** The newest state seen; shared by clients derived with `withToken` / `withNamespace`. */
export class ConsistencyState {
  private value: string | undefined;

  /** The state to send, or undefined before any write reply carried one. */
  get current(): string | undefined {
    return this.value;
  }

  /** Remembers a reply's state unless the one held is newer (same cluster, higher index). */
  record(value: string | string[] | undefined): void {
    const v = Array.isArray(value) ? value[0] : value;
    if (!v) return;
    const held = this.value === undefined ? undefined : decode(this.value);
    const seen = decode(v);
    if (held && seen && held.cluster === seen.cluster && held.index >= seen.index) return;
    this.value = v;
  }
}

/** Pause before retry `attempt` (1, 2, …) of a 412: `baseMs` doubling, at most 1 s, with ±20 % jitter so clients spread out. */
export function stateRetryDelayMs(attempt: number, baseMs: number): number {
  const d = Math.min(1000, baseMs * 2 ** (attempt - 1));
  return Math.round(d * (0.8 + Math.random() * 0.4));
}
