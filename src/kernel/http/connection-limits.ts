/**
 * Connection limits of a listener (issue 14 item 3): how long a client may take to send
 * its request head and its whole request, how long an idle keep-alive connection is kept,
 * and how many connections a listener (and one client address) may hold at once.
 *
 * The names and defaults follow the reference products where they have them: Vault's and
 * Boundary's `listener "tcp"` keys `http_read_header_timeout` (theirs 10 s, Cairn's 5 s: a
 * client sends its head in milliseconds, and a shorter deadline frees slowloris-held
 * connections sooner), `http_read_timeout`
 * (30 s), `http_idle_timeout` (5 min, 0 falls back to the read timeout, then to the header
 * timeout); Consul's and Nomad's `limits { http_max_conns_per_client }` (200 / 100). The
 * total cap (`max_connections`, Node's `server.maxConnections`) is Cairn's own. The
 * timeouts bound only what the client sends: a reply may take as long as it needs, so
 * blocking queries and event streams are never cut by them.
 *
 * @module
 */
import type { ServerOptions } from 'node:http';
import type { Server, Socket } from 'node:net';

/** Connection limits; every field optional, absent = the default, 0 = no limit. */
export interface ConnectionLimits {
  /** Time a client has to send the request line and headers, in ms (`http_read_header_timeout`); default 5 s. */
  readonly headerTimeoutMs?: number;
  /** Time a client has to send the whole request, body included, in ms (`http_read_timeout`); default 30 s. */
  readonly requestTimeoutMs?: number;
  /**
   * Time an idle keep-alive connection is kept, in ms (`http_idle_timeout`); default 5 min;
   * 0 = the request timeout, or the header timeout when that is 0 too (Vault's rule).
   * Node waits up to 1 s more before it closes the socket.
   */
  readonly idleTimeoutMs?: number;
  /** Most connections open at once on the listener (`max_connections`); default 4096. */
  readonly maxConnections?: number;
  /** Most connections open at once from one client IP address (`http_max_conns_per_client`); default 0 = none. */
  readonly maxConnectionsPerClient?: number;
}

/** {@link ConnectionLimits} with every default filled in (0 = no limit). */
export type ResolvedLimits = { readonly [K in keyof ConnectionLimits]-?: number };

/** The defaults (Vault's listener timeouts but a 5 s header deadline; Cairn's total cap). */
export const DEFAULT_CONNECTION_LIMITS: ResolvedLimits = {
  headerTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 300_000,
  maxConnections: 4096,
  maxConnectionsPerClient: 0,
};

/**
 * The body of the 429 a client over its per-address cap gets before its connection is
 * closed: the reference products' text (Consul and Nomad `http_max_conns_per_client`).
 */
export const TOO_MANY_CONNECTIONS = 'Your IP is issuing too many concurrent connections, please rate limit your calls\n';

/** Fills the defaults in and applies Vault's idle fallback. */
export function resolveLimits(l: ConnectionLimits = {}): ResolvedLimits {
  const d = DEFAULT_CONNECTION_LIMITS;
  const headerTimeoutMs = l.headerTimeoutMs ?? d.headerTimeoutMs;
  const requestTimeoutMs = l.requestTimeoutMs ?? d.requestTimeoutMs;
  const idle = l.idleTimeoutMs ?? d.idleTimeoutMs;
  return {
    headerTimeoutMs,
    requestTimeoutMs,
    idleTimeoutMs: idle || requestTimeoutMs || headerTimeoutMs,
    maxConnections: l.maxConnections ?? d.maxConnections,
    maxConnectionsPerClient: l.maxConnectionsPerClient ?? d.maxConnectionsPerClient,
  };
}

/**
 * The node:http server options for `l`. Node checks the header and request deadlines on
 * a timer (30 s by default, far too coarse for a 5 s deadline): it runs here at a
 * quarter of the shortest deadline, between 25 ms and 1 s.
 * @throws {RangeError} when the header timeout exceeds a non-zero request timeout (Node
 *   refuses that; config parsing reports it first, naming the key).
 */
export function nodeHttpTimeouts(
  l: ResolvedLimits,
): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionsCheckingInterval'> {
  if (l.requestTimeoutMs > 0 && l.headerTimeoutMs > l.requestTimeoutMs) {
    throw new RangeError(`the header timeout (${l.headerTimeoutMs} ms) exceeds the request timeout (${l.requestTimeoutMs} ms)`);
  }
  const deadlines = [l.headerTimeoutMs, l.requestTimeoutMs].filter((ms) => ms > 0);
  const shortest = deadlines.length > 0 ? Math.min(...deadlines) : 30_000;
  return {
    headersTimeout: l.headerTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.idleTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(shortest / 4))),
  };
}

/**
 * Applies the two connection caps to a listening socket server of any kind (node:http,
 * https, net, tls, the gateway's gRPC socket server): past `maxConnections` Node drops new
 * connections at once; a client address past `maxConnectionsPerClient` has its new
 * connection passed to `refuse`, which must end it (an HTTP listener writes a 429). Counts
 * raw TCP connections, so a TLS handshake that never completes counts too. Call before
 * the server accepts connections.
 */
export function capConnections(server: Server, l: Pick<ResolvedLimits, 'maxConnections' | 'maxConnectionsPerClient'>, refuse: (socket: Socket) => void): void {
  // Node's own cap; 0 would refuse everything, so "no limit" leaves it unset.
  if (l.maxConnections > 0) server.maxConnections = l.maxConnections;
  const perClient = l.maxConnectionsPerClient;
  if (perClient <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? '';
    const n = (open.get(ip) ?? 0) + 1;
    if (n > perClient) return refuse(socket);
    open.set(ip, n);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
  });
}

/** Time a refused connection gets to take its 429 before it is destroyed, in ms. */
const REFUSE_GRACE_MS = 1000;

/**
 * Ends a connection refused for being over its client's cap: a plain-HTTP listener writes
 * the reference's 429 first, a TLS one (no handshake yet) just closes it.
 */
export function refuseHttpConnection(socket: Socket, tls: boolean): void {
  if (tls) {
    socket.destroy();
    return;
  }
  const body = TOO_MANY_CONNECTIONS;
  socket.end(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
  setTimeout(() => socket.destroy(), REFUSE_GRACE_MS).unref();
}
