/**
 * One request on a listener: the Node message read into an {@link HttpRequest} (body
 * under the limit, required header, path checks: LIFECYCLE.md stages 2–4), handed to the
 * service, and its reply or error queued or streamed back.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../log/logger.js';
import { NUL_IN_NAME, StoreKeyError } from '../store/keys.js';
import { CairnError } from './errors.js';
import type { HttpResponse, HttpService } from './exchange.js';
import type { ReplyQueue } from './reply-queue.js';
import { readBody } from './request-body.js';
import { streamReply } from './stream-reply.js';
import { peerChain } from './tls.js';
import { isUiAssetRequest } from './ui-files.js';

/** What every request on one listener shares. */
export interface ServeContext {
  readonly service: HttpService;
  /** Body limit in bytes (request-body.ts `bodyLimit`). */
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
 * Serves one request: reads it, lets `ctx.service` handle it and queues (or streams) the
 * reply; a thrown error becomes the service's rendering of it (anything not a
 * `CairnError` a logged 500 naming the request id). Resolves once the reply is queued, or
 * once a streaming reply has ended; never rejects.
 */
export async function serve(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
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
    reply = ctx.service.renderError(toCairnError(err, ctx.log, { id, method, url: req.url }), { id, method });
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

/**
 * `err` as the error the service renders: a {@link CairnError} as it is, a name no store key
 * can hold as 400, anything else as a 500 whose request id is logged with the error.
 */
function toCairnError(err: unknown, log: Logger, { id, method, url }: { id: string; method: string; url?: string }): CairnError {
  if (err instanceof CairnError) return err;
  // A name from the request (a policy name in a body, …) that no stored entry can have.
  if (err instanceof StoreKeyError) return new CairnError('bad_request', err.userMessage);
  log.error({ request_id: id, method, path: url?.split('?')[0], err }, 'internal error');
  return new CairnError('internal', `internal error; request id ${id}`);
}
