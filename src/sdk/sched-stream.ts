/**
 * The scheduler's streaming GETs (`/v1/event/stream`, `/v1/client/fs/logs/…`, `cat`): the
 * reply's body chunks as they arrive, with no body timeout, the connection closed when the
 * caller stops reading.
 *
 * @module
 */
import { request } from 'undici';
import { apiErrorOf, apiUrl, DEFAULT_TIMEOUT_MS, type HttpJsonTarget, jsonHeaders, unreachable } from './http-json.js';

/** The scheduler's address, connections and errors, and the client's token. */
export interface SchedStreamTarget extends HttpJsonTarget {
  readonly token: string | undefined;
}

/**
 * GETs `/v1<path>?<query>` and yields the body's chunks. `signal` aborts the request.
 * @throws the target's API error on a status ≥ 400 (before any chunk); its connection error
 *   when unreachable or when the connection fails mid-body; the abort reason as it is once
 *   `signal` aborted.
 */
export async function* streamBody(t: SchedStreamTarget, path: string, query: URLSearchParams, signal?: AbortSignal): AsyncGenerator<Uint8Array, void> {
  let body: (AsyncIterable<Uint8Array> & { destroy(): void }) | undefined;
  let status = 0;
  try {
    const res = await request(apiUrl(t.address, path, query), {
      method: 'GET',
      headers: jsonHeaders(t.tokenHeader, t.token, false),
      dispatcher: t.dispatcher,
      signal,
      headersTimeout: t.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      bodyTimeout: 0,
    });
    body = res.body;
    status = res.statusCode;
    if (status >= 400) throw apiErrorOf(t, status, await res.body.text(), { method: 'GET', path });
    yield* res.body;
  } catch (err) {
    if (status >= 400 || signal?.aborted) throw err;
    throw unreachable(t, err);
  } finally {
    body?.destroy();
  }
}
