/**
 * HTTP listeners shared by every service, assembled here: plain or TLS (tls.ts), the
 * `LIST` method accepted (list-method.ts), connections capped (connection-limits.ts),
 * pipelined requests served one after another (serve.ts: body read under a byte limit,
 * request-body.ts; one transport-neutral request/response shape, exchange.ts), replies
 * queued per event-loop turn (reply-queue.ts) or streamed (stream-reply.ts), and the
 * listener's close.
 *
 * Lifecycle stages and their failure statuses: LIFECYCLE.md beside this file.
 *
 * @module
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from '../log/logger.js';
import { capConnections, nodeHttpTimeouts, refuseHttpConnection, resolveLimits, type ConnectionLimits } from './connection-limits.js';
import type { HttpService } from './exchange.js';
import { createHttpServer } from './list-method.js';
import { ReplyQueue } from './reply-queue.js';
import { bodyLimit } from './request-body.js';
import { serve, type ServeContext } from './serve.js';
import { tlsServerOptions, type TlsFiles } from './tls.js';

// The listener's contract, declared beside the parts that implement it: importing this
// file (or index.ts) is enough to start and serve a listener.
export type { HttpRequest, HttpResponse, HttpService } from './exchange.js';
export type { ClientCertPolicy } from './tls.js';
export { DEFAULT_MAX_REQUEST_BYTES } from './request-body.js';
export { STREAM_END_GRACE_MS } from './stream-reply.js';

/** Time in-flight requests get to finish once a listener closes, in ms. */
export const CLOSE_GRACE_MS = 2000;

/**
 * One listener's settings (the `listener "tcp"` block of DESIGN.md "Configuration"), with
 * its timeouts and connection caps (connection-limits.ts; absent = the defaults there).
 */
export interface ListenerOptions extends ConnectionLimits {
  /** `host:port`; port 0 picks a free port. */
  readonly address: string;
  /** PEM file paths; absent = plain HTTP (`tls_disable`). */
  readonly tls?: TlsFiles;
  /** Body limit in bytes: 0 or absent = 32 MiB, negative = unlimited (`max_request_size`). */
  readonly maxRequestBytes?: number;
  /**
   * A header every request must carry exactly once with exactly this value, else 412
   * `missing "<name>" header` before the service sees it (secrets: `X-Secrets-Request:
   * true` for `require_request_header`; reference/secrets.md §1.9). The web UI's files
   * (GET/HEAD of `/ui/…` other than its API proxy, ui.ts `isUiAssetRequest`) are exempt.
   */
  readonly requiredHeader?: { readonly name: string; readonly value: string };
}

/** A running listener. */
export interface Listener {
  /** e.g. `http://127.0.0.1:8200` */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, ends idle keep-alive sockets and ends every other connection after its
   * current reply (or after {@link CLOSE_GRACE_MS}); resolves when all are closed.
   */
  close(): Promise<void>;
}

/**
 * Starts a listener. Errors: rejects when the address is in use or a TLS file cannot
 * be read (the message names the file).
 */
export async function listen(options: ListenerOptions, service: HttpService, log: Logger): Promise<Listener> {
  const limit = bodyLimit(options.maxRequestBytes);
  const tls = options.tls ? tlsServerOptions(options.tls) : undefined;
  const limits = resolveLimits(options);
  // Pipelined requests on one connection run one after another, as clients expect (a
  // GET pipelined after a POST must see the POST): node:http emits them at once.
  const inFlight = new WeakMap<object, Promise<void>>();
  const replies = new ReplyQueue(log);
  const ctx: ServeContext = {
    service,
    limit,
    log,
    tls: tls !== undefined,
    clientCerts: tls?.requestCert === true,
    requiredHeader: options.requiredHeader,
    replies,
    closing: false,
    streams: new Set(),
  };
  // Requests in progress per connection: on close, a connection with none is ended at once.
  const busy = new Map<Socket, number>();
  // Connections over their client's cap: they get a 429 and close; Node may still parse a
  // request already sent on them, which is not served.
  const refused = new WeakSet<Socket>();
  const server: Server = createHttpServer({ tls, http: nodeHttpTimeouts(limits) }, (req, res) => {
    const socket = req.socket;
    if (refused.has(socket)) return;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
    });
    const previous = inFlight.get(socket);
    const current = previous ? previous.then(() => serve(req, res, ctx)) : serve(req, res, ctx);
    inFlight.set(socket, current);
  });
  const connections = new Set<Socket>();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  capConnections(server, limits, (socket) => {
    refused.add(socket);
    refuseHttpConnection(socket, tls !== undefined);
  });
  const { host, port } = splitAddress(options.address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${tls ? 'https' : 'http'}://${shownHost}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        ctx.closing = true;
        for (const stream of ctx.streams) stream.abort();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Node counts a connection that has not sent its first request yet as neither idle
        // nor busy; without this it would hold the close for CLOSE_GRACE_MS.
        for (const socket of connections) if (!busy.has(socket)) socket.destroy();
        // A connection Node still counts as busy (a client that vanished mid-request) would
        // otherwise hold the close until the keep-alive timeout.
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

/** Splits `host:port` / `[v6]:port`; throws naming the address when malformed. */
export function splitAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`invalid listener address "${address}": expected HOST:PORT`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}
