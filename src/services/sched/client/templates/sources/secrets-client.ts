/**
 * The secrets service as a task's template sources reach it: one SDK client (src/sdk
 * secrets-*) whose calls carry the task's current token (`token()` at each call: the vault
 * hook may have replaced it) and the client's namespace.
 *
 * @module
 */
import { SecretsClient } from '../../../../../sdk/secrets.js';

/** Where the secrets service is, the token to send (none: anonymous) and the namespace (`X-Secrets-Namespace`). */
export interface SecretsTarget {
  readonly address: string;
  readonly token: () => string | undefined;
  readonly namespace?: string;
}

/** A request of a template source never waits longer than this for its answer, ms (then it counts as a failed attempt). */
const REQUEST_TIMEOUT_MS = 30_000;

/** See the module doc. */
export class SecretsReader {
  private readonly client: SecretsClient;

  /** @throws TypeError when `target.address` is not an `http(s)://` URL. */
  constructor(private readonly target: SecretsTarget) {
    this.client = new SecretsClient({ address: target.address, namespace: target.namespace || undefined, fetchTimeoutMs: REQUEST_TIMEOUT_MS });
  }

  /** A client sending `token` (default: the task's token of the moment). */
  as(token?: string): SecretsClient {
    return this.client.withToken(token ?? (this.target.token() || undefined));
  }

  /** Closes the client's connections once the requests in flight (at most {@link REQUEST_TIMEOUT_MS}) end. */
  close(): void {
    void this.client.close().catch(() => undefined);
  }
}
