/**
 * The HA errors of the secrets service, as clients see them (spec 000 "Errors": 412, 503).
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';

/**
 * Whether `err` (or a cause of it) is the storage fence refusing a write: this server lost
 * activeness while serving the request (kernel/store/pg-errors.ts `FencedWriteError`,
 * `code: 'CAIRN_FENCED'`). Nothing of that write was stored.
 */
export function isFencedWrite(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'CAIRN_FENCED') return true;
  }
  return false;
}

/**
 * 503 for a write the fence refused: the reference answers a node that lost leadership
 * mid-request with a retryable 503 rather than an internal error.
 */
export const noLongerActive = () => new CairnError('unavailable', 'this server is no longer the active one; retry the request');

/**
 * 412 for a performance standby behind the client's `X-Secrets-Index` (the reference's
 * `ErrMissingRequiredState`, "required index state not present"; spec 000 "Errors" 412).
 */
export const missingState = () =>
  new CairnError(
    'precondition_failed',
    'required index state not present: this performance standby has not applied the state in X-Secrets-Index yet; retry with backoff, or send "X-Secrets-Inconsistent: forward-active-node"',
  );
