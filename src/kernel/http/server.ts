/**
 * HTTP listeners shared by every service: plain or TLS, the `LIST` method accepted,
 * request bodies read under a byte limit, and one transport-neutral request/response
 * shape handed to the service's dispatcher (STYLE.md §3, §4: the core works on its own
 * request type; this file converts the Node message and writes the reply).
 *
 * Lifecycle stages and their failure statuses: LIFECYCLE.md beside this file.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { Writable } from 'node:stream';
import type { Logger } from '../log/logger.js';
import { NUL_IN_NAME, StoreKeyError } from '../store/keys.js';
import { capConnections, nodeHttpTimeouts, refuseHttpConnection, resolveLimits, type ConnectionLimits } from './connection-limits.js';
import { CairnError } from './errors.js';
import { createHttpServer, type ClientCertOptions } from './list-method.js';
import { isUiAssetRequest } from './ui-paths.js';

/** Time in-flight requests get to finish once a listener closes, in ms. */
export const CLOSE_GRACE_MS = 2000;

/**
 * Time a streaming reply the server has ended gets to flush its last bytes before its
 * socket is destroyed, in ms: a client that stopped reading (the event stream's cut slow
 * subscriber) would otherwise hold the socket, and the kernel send queue behind it, for
 * as long as it stays connected.
 */
export const STREAM_END_GRACE_MS = 2000;

/** Default request body limit: 32 MiB (spec 000 "Limits"; reference/secrets.md §1.8). */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * One listener's settings (the `listener "tcp"` block of DESIGN.md "Configuration"), with
 * its timeouts and connection caps (connection-limits.ts; absent = the defaults there).
 */
export interface ListenerOptions extends ConnectionLimits {
  /** `host:port`; port 0 picks a free port. */
  readonly address: string;
  /** PEM file paths; absent = plain HTTP (`tls_disable`). */
  readonly tls?: {
    readonly certFile: string;
    readonly keyFile: string;
    /** Whether clients are asked for a certificate; absent = never. */
    readonly clientCerts?: ClientCertPolicy;
  };
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

/**
 * How a TLS listener asks clients for a certificate (the reference's
 * `tls_require_and_verify_client_cert`, `tls_client_ca_file`): `request` asks every client
 * and accepts the connection whatever it sends (an auth method verifies the certificate
 * against its own trusted ones); `require` fails the handshake of a client without a
 * certificate chaining to `caFile` (PEM bundle; absent = the system roots).
 */
export interface ClientCertPolicy {
  readonly mode: 'request' | 'require';
  readonly caFile?: string;
}

/** A request as the services see it. `body` is the whole body, already read. */
export interface HttpRequest {
  readonly id: string;
  /** Upper-case method; `LIST` is possible. */
  readonly method: string;
  /** The URL path, percent-decoded, with its leading `/`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly remoteAddress: string;
  readonly tls: boolean;
  /**
   * The certificate chain the client presented in the TLS handshake, DER, its own
   * certificate first: `[]` on a TLS connection without one (or on a listener that does not
   * ask), undefined on plain HTTP. Not verified here unless the listener `require`s it.
   */
  readonly clientCertificates?: readonly Buffer[];
}

/** A reply; `body` undefined = no body. */
export interface HttpResponse {
  readonly status: number;
  /** A list value sends the header once per element (`Set-Cookie`). */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string | Buffer;
  /**
   * A body written over time instead of `body` (the scheduler's event stream): called once
   * the status and headers are sent, with the response to write to and a signal aborted
   * when the client goes away or the listener closes. The connection is closed when the
   * returned promise settles (no `Content-Length`; the end of the body is the end of the
   * connection, as the reference's stream).
   */
  readonly stream?: (out: Writable, signal: AbortSignal) => Promise<void>;
}

/** What a service plugs into a listener. */
export interface HttpService {
  /** Maps a request to a reply. May throw; thrown values go to `renderError`. */
  handle(req: HttpRequest): Promise<HttpResponse>;
  /** Renders an error in the service's wire style (secrets: `{"errors":[…]}`). */
  renderError(err: CairnError, req: { id: string; method: string }): HttpResponse;
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
  const limit =
    options.maxRequestBytes === undefined || options.maxRequestBytes === 0
      ? DEFAULT_MAX_REQUEST_BYTES
      : options.maxRequestBytes < 0
        ? Infinity
        : options.maxRequestBytes;
  const tls = options.tls
    ? {
        cert: readPem(options.tls.certFile, 'tls_cert_file'),
        key: readPem(options.tls.keyFile, 'tls_key_file'),
        ...clientCertOptions(options.tls.clientCerts),
      }
    : undefined;
  const limits = resolveLimits(options);
  // Pipelined requests on one connection run one after another, as clients expect (a
  // GET pipelined after a POST must see the POST): node:http emits them at once.
  const inFlight = new WeakMap<object, Promise<void>>();
  const replies = new ReplyQueue(log);
  const ctx: ServeContext = { service, limit, log, tls: tls !== undefined, clientCerts: tls?.requestCert === true, requiredHeader: options.requiredHeader, replies, closing: false, streams: new Set() };
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

/** The node:tls server options for `policy`. @throws Error naming `tls_client_ca_file` when it cannot be read. */
function clientCertOptions(policy: ClientCertPolicy | undefined): ClientCertOptions {
  if (policy === undefined) return {};
  if (policy.mode === 'request') return { requestCert: true, rejectUnauthorized: false };
  return { requestCert: true, rejectUnauthorized: true, ca: policy.caFile === undefined ? undefined : readPem(policy.caFile, 'tls_client_ca_file') };
}

/** Client certificate chains by connection: read once per TLS connection, not per request. */
const peerChains = new WeakMap<Socket, readonly Buffer[]>();

/**
 * The chain the peer of `socket` presented (DER, its own certificate first), following
 * node:tls's issuer links until a self-signed certificate or the end; `[]` without one.
 */
function peerChain(socket: TLSSocket): readonly Buffer[] {
  let chain = peerChains.get(socket);
  if (chain !== undefined) return chain;
  const out: Buffer[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw !== undefined && out.length < MAX_CHAIN) {
    out.push(cert.raw);
    const next: DetailedPeerCertificate | undefined = cert.issuerCertificate;
    if (next === cert || next?.raw === undefined || next.raw.equals(cert.raw)) break;
    cert = next;
  }
  chain = out;
  peerChains.set(socket, chain);
  return chain;
}

/** Most certificates taken from one client chain (a longer one is cut: no verifier accepts it anyway). */
const MAX_CHAIN = 10;

function readPem(file: string, key: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`${key}: cannot read "${file}": ${(err as Error).message}`);
  }
}

interface ServeContext {
  readonly service: HttpService;
  readonly limit: number;
  readonly log: Logger;
  readonly tls: boolean;
  /** The listener asks clients for certificates: requests carry the peer's chain. */
  readonly clientCerts: boolean;
  readonly requiredHeader?: { readonly name: string; readonly value: string };
  readonly replies: ReplyQueue;
  /** Set when the listener is closing: replies then end their connections. */
  closing: boolean;
  /** Streaming replies in progress, aborted when the listener closes. */
  readonly streams: Set<AbortController>;
}

/**
 * Replies waiting to be written at the end of the current event-loop turn.
 *
 * Why: writing each reply as soon as it is ready makes one socket write per request
 * interleaved with the handling of the next request, and on loopback each write wakes
 * the waiting client (on this 2-vCPU VM: ~30 µs of system time per reply for KV reads,
 * against ~10 µs when the replies of one turn go out back to back; BENCHMARKS.md).
 * Queued replies are written in the check phase (`setImmediate`), i.e. right after the
 * poll phase has handed over every request that had arrived, so a reply waits at most
 * for the other requests of the same turn. Order per connection is kept (FIFO, and
 * node:http keeps pipelined responses in order anyway).
 */
class ReplyQueue {
  private queue: Array<{ res: ServerResponse; reply: HttpResponse; method: string }> = [];

  constructor(private readonly log: Logger) {}

  /** Queues `reply` to be written to `res`; the first reply of a turn schedules the flush. */
  push(res: ServerResponse, reply: HttpResponse, method: string): void {
    if (this.queue.push({ res, reply, method }) === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const queue = this.queue;
    this.queue = [];
    for (const { res, reply, method } of queue) {
      try {
        write(res, reply, method);
      } catch (err) {
        // An invalid header from a handler: that connection cannot get a sane reply.
        this.log.error({ err }, 'cannot write reply');
        res.destroy();
      }
    }
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  const id = randomUUID();
  const method = (req.method ?? 'GET').toUpperCase();
  let reply: HttpResponse;
  try {
    const body = await readBody(req, ctx.limit);
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    let path: string;
    try {
      path = decodeURIComponent(q < 0 ? target : target.slice(0, q));
    } catch {
      throw new CairnError('bad_request', 'invalid percent-encoding in the URL path');
    }
    // After the body is read (LIFECYCLE.md stage 3), so the connection stays reusable. The
    // web UI's own files are exempt: a browser's page load cannot set the header, and they
    // are the same public bytes for everyone (ui.ts); the UI's API calls send it.
    const required = ctx.requiredHeader;
    if (required && !isUiAssetRequest(method, path)) {
      const values = req.headersDistinct[required.name.toLowerCase()];
      if (values?.length !== 1 || values[0] !== required.value) {
        throw new CairnError('precondition_failed', `missing "${required.name}" header`);
      }
    }
    if (!path.startsWith('/')) throw new CairnError('bad_request', 'the request target must be a path');
    // No stored name can hold NUL (store/keys.ts); refused here for every service alike.
    if (path.includes('\0')) throw new CairnError('bad_request', `invalid request path: ${NUL_IN_NAME}`);
    reply = await ctx.service.handle({
      id,
      method,
      path,
      query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)),
      headers: req.headers,
      body,
      remoteAddress: req.socket.remoteAddress ?? '',
      tls: ctx.tls,
      clientCertificates: !ctx.tls ? undefined : ctx.clientCerts ? peerChain(req.socket as TLSSocket) : [],
    });
  } catch (err) {
    if (clientLeft(req, err)) {
      // Not a server fault, and there is no one to answer.
      ctx.log.debug({ request_id: id, method, path: req.url?.split('?')[0] }, 'client closed the connection before its request was read');
      return;
    }
    reply = ctx.service.renderError(toCairnError(err, id, ctx.log, method, req.url), { id, method });
    if (err instanceof CairnError && err.code === 'payload_too_large') {
      // The rest of the body was not read: the connection cannot be reused.
      res.shouldKeepAlive = false;
    }
  }
  // Once closing, every reply ends its connection: a client reusing a keep-alive socket
  // (a replication loop, a load generator) must not hold the close open forever.
  if (ctx.closing) res.shouldKeepAlive = false;
  if (reply.stream && method !== 'HEAD') return streamReply(res, reply, ctx);
  ctx.replies.push(res, reply, method);
}

/** Whether `err` only says the client went away while its request was being read (node:http's `aborted`). */
function clientLeft(req: IncomingMessage, err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' && req.socket.destroyed;
}

function toCairnError(err: unknown, id: string, log: Logger, method: string, url?: string): CairnError {
  if (err instanceof CairnError) return err;
  // A name from the request (a policy name in a body, …) that no stored entry can have.
  if (err instanceof StoreKeyError) return new CairnError('bad_request', err.userMessage);
  log.error({ request_id: id, method, path: url?.split('?')[0], err }, 'internal error');
  return new CairnError('internal', `internal error; request id ${id}`);
}

/**
 * Writes a streaming reply: headers at once, then whatever `reply.stream` writes, then the
 * connection ends. Resolves when it has (pipelined requests behind it wait, as they would
 * behind any reply).
 */
async function streamReply(res: ServerResponse, reply: HttpResponse, ctx: ServeContext): Promise<void> {
  const abort = new AbortController();
  ctx.streams.add(abort);
  res.shouldKeepAlive = false;
  res.statusCode = reply.status;
  res.setHeader('Cache-Control', 'no-cache');
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  res.flushHeaders();
  const gone = () => abort.abort();
  res.on('close', gone);
  try {
    await reply.stream!(res, abort.signal);
  } catch (err) {
    // A client that left (or a closing listener) makes writes fail: not a server fault.
    if (abort.signal.aborted) ctx.log.debug({ err }, 'streaming reply ended by its client');
    else ctx.log.error({ err }, 'streaming reply failed');
  } finally {
    res.off('close', gone);
    ctx.streams.delete(abort);
    endForGood(res);
  }
}

/**
 * Ends a streaming reply and destroys its socket {@link STREAM_END_GRACE_MS} later if it
 * is still open: `end()` alone waits for the client to read everything queued, which a
 * paused client never does.
 */
function endForGood(res: ServerResponse): void {
  const socket = res.socket;
  res.end();
  if (!socket || socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), STREAM_END_GRACE_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

function write(res: ServerResponse, reply: HttpResponse, method: string): void {
  res.statusCode = reply.status;
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if (reply.body === undefined || reply.status === 204) {
    res.end();
    return;
  }
  // HEAD: the length the GET would send (RFC 9110 §9.3.2), no body.
  if (method === 'HEAD') {
    res.setHeader('Content-Length', Buffer.byteLength(reply.body));
    res.end();
    return;
  }
  // A large string is encoded once: measuring it for Content-Length and then writing it would
  // each walk it (~35 ms apiece for a 7 MB health reply of 10,000 instances: BENCHMARKS.md).
  const body = typeof reply.body === 'string' && reply.body.length > ENCODE_ONCE_CHARS ? Buffer.from(reply.body) : reply.body;
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}

/** Replies longer than this (UTF-16 code units) are encoded to a Buffer once before writing; shorter ones are cheaper as strings. */
const ENCODE_ONCE_CHARS = 64 * 1024;

const EMPTY = Buffer.alloc(0);

/** Reads the whole body, failing with 413 past `limit` bytes without buffering more. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // No Content-Length and no Transfer-Encoding: the request has no body (RFC 9112 §6.3);
  // skip the stream round trip that most GETs would otherwise pay.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve(EMPTY);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function tooLarge(): CairnError {
  return new CairnError('payload_too_large', 'http: request body too large');
}
