/**
 * Which errors of the secrets service end a task's token and which only delay its renewal
 * (issue 27 scope 3; reference/integration.md §8.4: the reference's users see non-renewable
 * or expired tokens retried forever, and outages treated as the end of a token).
 *
 * - **final** — asking again cannot help, the token must be replaced (log in again): the
 *   token expired or was revoked (403 `permission denied`, 400 `invalid token`, `token not
 *   found`), `lease is not renewable` / `token is not renewable`, past its maximum TTL, or any
 *   other 4xx but 408 and 429 (the reference's `Code: 40(0|3|4)` and its fatal texts,
 *   client/vaultclient).
 * - **transient** — the service is away or busy: no answer (refused connection, time-out,
 *   reset), 5xx, 408, 429, or an answer that is not what was asked for. Retried with a
 *   backoff for as long as the task runs; never a re-login, never a kill.
 *
 * @module
 */
import { SecretsApiError, SecretsConnectionError } from '../../../sdk/secrets-errors.js';

/** How a failed request to the secrets service is handled (module doc). */
export type SecretsErrorClass = 'final' | 'transient';

/** Classifies `err`, thrown by the secrets SDK (module doc). */
export function classifySecretsError(err: unknown): SecretsErrorClass {
  if (err instanceof SecretsConnectionError) return 'transient';
  if (!(err instanceof SecretsApiError)) return 'transient';
  // A sealed or overloaded service answers 503 or 429: it will answer otherwise later.
  if (err.status === 408 || err.status === 429 || err.status >= 500) return 'transient';
  return 'final';
}
