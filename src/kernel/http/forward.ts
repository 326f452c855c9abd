/**
 * Forwarding a request to a server of another datacenter or region over its HTTP API
 * (discovery `?dc=` and ACL writes sent to a secondary: reference/mesh.md §0.8, §2.4;
 * scheduler `?region=` and auth-method writes sent to a non-authoritative region:
 * reference/sched.md §1.6, §2.3). The reply is passed back as it came.
 *
 * @module
 */
import type { Writable } from 'node:stream';
import type { HttpRequest, HttpResponse } from './exchange.js';

/** Time a forwarded request may take, in ms (the longest blocking query's wait plus margin). */
const FORWARD_TIMEOUT_MS = 11 * 60_000;

/** How a service forwards: the header that carries the token and the reply headers it passes back. */
export interface ForwardStyle {
  /** e.g. `X-Mesh-Token`. */
  readonly tokenHeader: string;
  /** Reply headers passed back; every other is dropped. e.g. `/^(content-type|allow|x-mesh-.*)$/i`. */
  readonly keep: RegExp;
  /**
   * Request headers sent on besides the token and `Content-Type` (e.g. the scheduler's
   * `X-Sched-CSI-Secrets`, which its volume delete and snapshot routes read); default none.
   */
  readonly pass?: RegExp;
  /**
   * Largest reply body passed back, in bytes (the web UI's proxy); a longer one fails as
   * an error. Absent: unbounded (the services' own forwarding). A streamed reply (no
   * `Content-Length`) is passed on as it arrives, unbounded either way.
   */
  readonly maxReplyBytes?: number;
}

/** Where {@link forwardRequest} sends a request and what it adds. */
export interface ForwardTarget {
  /** `host:port` (plain HTTP) or an `http(s)://host:port` base URL. */
  readonly address: string;
  /** Token sent in `style.tokenHeader`; absent: none. */
  readonly secret?: string | undefined;
  /** Replaces the request's query when given (e.g. without `dc`). */
  readonly query?: URLSearchParams | undefined;
  /** Headers sent as well (e.g. the mark of a request forwarded to the leader); default none. */
  readonly extra?: Readonly<Record<string, string>>;
}

/**
 * Sends `req` (method, path, query, body, token, the headers `style.pass` names) to
 * `target.address` and returns its reply. A reply without `Content-Length` (a stream) is
 * passed on as it arrives, for as long as both sides keep it.
 * @throws {Error} `rpc error making call: …` when the server cannot be reached; `reply larger than N bytes` past `style.maxReplyBytes`.
 */
export async function forwardRequest(style: ForwardStyle, req: HttpRequest, { address, secret, query, extra = {} }: ForwardTarget): Promise<HttpResponse> {
  const q = (query ?? req.query).toString();
  const headers: Record<string, string> = { ...extra };
  if (style.pass) {
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined && style.pass.test(k)) headers[k] = Array.isArray(v) ? v.join(',') : v;
    }
  }
  if (secret !== undefined) headers[style.tokenHeader] = secret;
  if (req.body.length > 0) headers['Content-Type'] = 'application/json';
  // The time limit covers the reply's arrival (a blocking query's longest wait); a streamed
  // body (the scheduler's event stream) then runs until either side ends it.
  const abort = new AbortController();
  const limit = setTimeout(() => abort.abort(new Error(`no reply within ${FORWARD_TIMEOUT_MS} ms`)), FORWARD_TIMEOUT_MS);
  let res: Response;
  try {
    const base = /^https?:\/\//i.test(address) ? address.replace(/\/+$/, '') : `http://${address}`;
    res = await fetch(`${base}${req.path}${q ? `?${q}` : ''}`, {
      method: req.method,
      headers,
      body: req.body.length > 0 ? new Uint8Array(req.body) : undefined,
      signal: abort.signal,
    });
  } catch (err) {
    clearTimeout(limit);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`rpc error making call: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (style.keep.test(k)) out[k] = v;
  });
  // Every reply of Cairn's services carries Content-Length except a streamed one.
  if (res.headers.get('content-length') === null && res.body) {
    clearTimeout(limit);
    const body = res.body;
    return {
      status: res.status,
      headers: out,
      stream: async (sink, signal) => {
        const stop = () => abort.abort();
        signal.addEventListener('abort', stop, { once: true });
        try {
          for await (const chunk of body) {
            if (!sink.write(chunk)) await drained(sink);
            if (signal.aborted) break;
          }
        } catch {
          // The other side ended the stream, or the client left: the connection closes.
        } finally {
          signal.removeEventListener('abort', stop);
        }
      },
    };
  }
  try {
    const max = style.maxReplyBytes;
    if (max !== undefined && Number(res.headers.get('content-length')) > max) {
      abort.abort();
      throw new Error(`reply larger than ${max} bytes`);
    }
    return { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()) };
  } finally {
    clearTimeout(limit);
  }
}

/** Resolves when `sink` drains or closes, leaving no listener behind. */
function drained(sink: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      sink.off('drain', done);
      sink.off('close', done);
      resolve();
    };
    sink.on('drain', done);
    sink.on('close', done);
  });
}

/**
 * The `host:port` other servers reach a listener at: the bound address of `listenerUrl`
 * (`http://host:port`, port 0 already resolved), with `advertiseHost` in place of its host
 * when given (a wildcard listen address such as `0.0.0.0` is not reachable as such).
 */
export function advertisedAddress(listenerUrl: string, advertiseHost?: string): string {
  const url = new URL(listenerUrl);
  if (advertiseHost === undefined) return url.host;
  return `${advertiseHost.includes(':') ? `[${advertiseHost}]` : advertiseHost}:${url.port}`;
}

/** Connection errors that mean a request never reached the server, so it may go elsewhere. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether `err` (or an error in its `cause` chain) says the connection was never made: the request was not sent. */
export function neverSent(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && NEVER_SENT.has(e.code)) return true;
  }
  return false;
}

/** No leader / active server may be used: none is known, or it is this server (see {@link sendToLeader}). */
export class NoLeaderKnown extends Error {}

/**
 * Sends a request to the leader (or active server) of servers sharing a state: `send` to
 * `leader()`; when that connection was refused, the request never left ({@link neverSent}),
 * so after `refreshLeader()` (who leads, read now) it goes to the new one, once. Right after a
 * failover the address a server last read may name the dead one. A request that may have
 * reached a server is never sent twice.
 * @throws {NoLeaderKnown} when `leader()` gives none (before or after the refresh, or the
 *   same one again); the error of `send` otherwise.
 */
export async function sendToLeader<T>(o: {
  readonly leader: () => string | undefined;
  readonly refreshLeader: () => Promise<void>;
  readonly send: (address: string) => Promise<T>;
}): Promise<T> {
  const first = o.leader();
  if (first !== undefined) {
    try {
      return await o.send(first);
    } catch (err) {
      if (!neverSent(err)) throw err;
    }
  }
  await o.refreshLeader().catch(() => undefined);
  const next = o.leader();
  if (next === undefined || next === first) throw new NoLeaderKnown(first === undefined ? 'no leader is known' : `the leader ${first} refused the connection`);
  return o.send(next);
}
