/**
 * `X-Secrets-Wrap-TTL`: the request header asking for the response to be wrapped
 * (reference/secrets.md §1.10, the reference's `X-Vault-Wrap-TTL`).
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest, CairnError } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';

/** The header's name, lower-cased as Node hands headers over. */
export const WRAP_TTL_HEADER = 'x-secrets-wrap-ttl';

/**
 * The wrap TTL a request asks for, in seconds: a Go duration (`5m`, `1h30m`) or plain
 * seconds (`300`). Undefined when the header is absent, empty or `0` (no wrapping, as
 * the reference: only a positive TTL wraps).
 *
 * @throws CairnError 400 `error parsing X-Secrets-Wrap-TTL header: <problem>` for a value
 *   that is not a duration or is negative (`requested wrap ttl cannot be negative`).
 */
export function requestWrapTtl(headers: IncomingHttpHeaders): number | undefined {
  const raw = headers[WRAP_TTL_HEADER];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === '') return undefined;
  let ttl: number;
  try {
    ttl = parseDuration(value.trim(), 'X-Secrets-Wrap-TTL');
  } catch (err) {
    if (!(err instanceof CairnError)) throw err;
    throw badRequest(`error parsing X-Secrets-Wrap-TTL header: ${err.messages.join('; ')}`);
  }
  if (ttl < 0) throw badRequest('error parsing X-Secrets-Wrap-TTL header: requested wrap ttl cannot be negative');
  return ttl === 0 ? undefined : ttl;
}
