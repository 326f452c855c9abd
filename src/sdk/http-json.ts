/**
 * The JSON-over-HTTP transport that the discovery (`MeshClient`) and scheduler
 * (`SchedClient`) clients share: address checks, `/v1` URLs, one undici request with a time
 * limit, an error status or an unreachable service turned into the client's own error class,
 * the JSON body and the `X-…-Index` header. SDK-internal: the SDK's entry (index.ts) does not
 * export it, and it imports nothing outside src/sdk/.
 *
 * @internal
 * @module
 */
import { type Dispatcher, request } from 'undici';

/** HTTP methods the JSON APIs use. */
export type HttpJsonMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** Limit for one request when the client's options name none, in ms. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Base of the clients' API errors (`MeshApiError`, `SchedApiError`): the service answered
 * with `status` ≥ 400; `message` is its plain-text body, trimmed (`HTTP <status>` when empty).
 */
export class HttpJsonApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly request: { readonly method: string; readonly path: string },
  ) {
    super(message);
  }
}

/** What a client fixes once for all its requests. */
export interface HttpJsonTarget {
  /** The normalised `http(s)://host:port` (see {@link normalizeServiceAddress}). */
  readonly address: string;
  readonly dispatcher: Dispatcher;
  /** Limit for one request, in ms (default {@link DEFAULT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Header that carries the token, lower case (`x-mesh-token`). */
  readonly tokenHeader: string;
  /** Header that carries the modify index, lower case (`x-mesh-index`). */
  readonly indexHeader: string;
  /** The service as connection errors name it (`discovery service`, `scheduler`). */
  readonly service: string;
  /** The client's error for a status ≥ 400. */
  readonly apiError: (status: number, message: string, request: { readonly method: string; readonly path: string }) => Error;
  /** The client's error for an unreachable service or a reply that is not JSON. */
  readonly connectionError: (message: string) => Error;
}

/** One JSON request. */
export interface HttpJsonRequest {
  readonly method: HttpJsonMethod;
  /** Path under `/v1` (`/acl/tokens`); error objects name it. */
  readonly path: string;
  /** The whole query string (see {@link searchParams}). */
  readonly query: URLSearchParams;
  /** Token to send; none when empty or absent. */
  readonly token?: string;
  /** Sent as JSON when defined. */
  readonly body?: unknown;
  /** Sent as it is (`application/octet-stream`) when defined, instead of `body` (the discovery service's KV values). */
  readonly rawBody?: Buffer | string;
  /** True: a 404 resolves with an undefined body and its index instead of rejecting (a missing KV key). */
  readonly allowNotFound?: boolean;
  /** Error statuses whose JSON body resolves like a success (the discovery agent's 429/503 health answers). */
  readonly acceptStatuses?: readonly number[];
  /** Extra time the request may take on top of the target's limit, in ms (blocking queries). */
  readonly extraTimeoutMs?: number;
  /** More request headers (lower-case names), e.g. the scheduler's `x-sched-csi-secrets`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborting it ends the request (a blocking query given up); it then rejects with the connection error. */
  readonly signal?: AbortSignal;
}

/** A parsed JSON reply (undefined for an empty body), its index header (0 when absent or not a number) and every reply header. */
export interface HttpJsonReply<T> {
  readonly body: T;
  readonly index: number;
  /** The reply's headers by lower-case name (e.g. `x-sched-nexttoken`). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * `address` as `http(s)://host:port` without a trailing slash; a bare `host:port` gets `http://`.
 * @throws Error `invalid <service> address "<address>": expected http(s)://host:port or host:port` for anything else.
 */
export function normalizeServiceAddress(address: string, service: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `http://${address}`;
  if (!/^https?:\/\/[^/?#\s]+\/?$/i.test(withScheme)) throw new Error(`invalid ${service} address "${address}": expected http(s)://host:port or host:port`);
  return withScheme.replace(/\/+$/, '');
}

/** `fromEnv` over `overrides`: the defined fields of `overrides` win. */
export function withOverrides<T extends object>(fromEnv: T, overrides: Partial<T>): T {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...fromEnv, ...defined };
}

/**
 * A query string: the client's `fixed` parameters when non-empty (namespace, datacenter, …),
 * then `query`'s defined values in order; with `dropEmpty` also without `""` values.
 */
export function searchParams(
  fixed: Readonly<Record<string, string | undefined>>,
  query: Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>,
  o: { readonly dropEmpty?: boolean } = {},
): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fixed)) if (v) q.set(k, v);
  for (const [k, v] of Object.entries(query)) {
    // A list repeats the parameter (`?tag=a&tag=b`), as the discovery service's filters take it.
    if (Array.isArray(v)) v.forEach((x: string) => q.append(k, x));
    else if (v !== undefined && !(o.dropEmpty && v === '')) q.set(k, String(v));
  }
  return q;
}

/** `<address>/v1<path>` with `?<query>` when the query is not empty. */
export function apiUrl(address: string, path: string, query: URLSearchParams): string {
  const qs = query.toString();
  return `${address}/v1${path}${qs ? `?${qs}` : ''}`;
}

/** `accept: application/json`, the token header when there is a token, and `content-type` for a JSON body. */
export function jsonHeaders(tokenHeader: string, token: string | undefined, jsonBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers[tokenHeader] = token;
  if (jsonBody) headers['content-type'] = 'application/json';
  return headers;
}

/** The target's connection error for a failed request: `cannot reach the <service> at <address>: <cause>`. */
export function unreachable(target: HttpJsonTarget, err: unknown): Error {
  const e = err as Error & { cause?: { message?: string } };
  return target.connectionError(`cannot reach the ${target.service} at ${target.address}: ${e.cause?.message ?? e.message}`);
}

/** The target's API error for `status` and the reply's text (trimmed; `HTTP <status>` when empty). */
export function apiErrorOf(target: HttpJsonTarget, status: number, text: string, req: { readonly method: string; readonly path: string }): Error {
  return target.apiError(status, text.trim() || `HTTP ${status}`, req);
}

/** `timeout`, or a signal aborting with whichever of `timeout` and `signal` aborts first. */
function withAbort(timeout: AbortSignal, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}

/**
 * Sends one request and reads the whole reply.
 * @throws the target's API error on a status ≥ 400; its connection error when the service
 * cannot be reached, the time limit passes, or the reply is not JSON
 * (`<method> <path>: the reply (HTTP <status>) is not JSON`).
 */
export async function requestJson<T>(target: HttpJsonTarget, req: HttpJsonRequest): Promise<HttpJsonReply<T>> {
  const { method, path } = req;
  let status: number;
  let text: string;
  let headers: Record<string, string | string[] | undefined>;
  try {
    const res = await request(apiUrl(target.address, path, req.query), {
      method,
      headers: {
        ...jsonHeaders(target.tokenHeader, req.token, req.body !== undefined && req.rawBody === undefined),
        ...(req.rawBody !== undefined && { 'content-type': 'application/octet-stream' }),
        ...req.headers,
      },
      body: req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body)),
      dispatcher: target.dispatcher,
      signal: withAbort(AbortSignal.timeout((target.timeoutMs ?? DEFAULT_TIMEOUT_MS) + (req.extraTimeoutMs ?? 0)), req.signal),
    });
    status = res.statusCode;
    headers = res.headers;
    text = await res.body.text();
  } catch (err) {
    throw unreachable(target, err);
  }
  if (status === 404 && req.allowNotFound) text = '';
  else if (status >= 400 && !req.acceptStatuses?.includes(status)) throw apiErrorOf(target, status, text, { method, path });
  let body: T;
  try {
    body = (text === '' ? undefined : JSON.parse(text)) as T;
  } catch {
    throw target.connectionError(`${method} ${path}: the reply (HTTP ${status}) is not JSON`);
  }
  const indexHeader = headers[target.indexHeader];
  const index = Number(Array.isArray(indexHeader) ? indexHeader[0] : indexHeader);
  return { body, index: Number.isFinite(index) ? index : 0, headers };
}
