/**
 * Writing a streaming reply (`HttpResponse.stream`, the scheduler's event stream): status
 * and headers at once, then the body as the stream writes it, then the connection ends
 * (LIFECYCLE.md, "A streaming reply").
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { HttpResponse } from './exchange.js';

/**
 * Time a streaming reply the server has ended gets to flush its last bytes before its
 * socket is destroyed, in ms: a client that stopped reading (the event stream's cut slow
 * subscriber) would otherwise hold the socket, and the kernel send queue behind it, for
 * as long as it stays connected.
 */
export const STREAM_END_GRACE_MS = 2000;

/** Where a streaming reply registers itself and logs. */
export interface StreamContext {
  /** Streaming replies in progress: the listener aborts them when it closes. */
  readonly streams: Set<AbortController>;
  /** Gets a stream that failed (debug level when its client left). */
  readonly log: Logger;
}

/**
 * Writes `reply`, which has a `stream`, to `res`: headers at once, then whatever
 * `reply.stream` writes, then the connection ends. While it runs, its abort controller is
 * in `ctx.streams`. Resolves when it has ended (pipelined requests behind it wait, as they
 * would behind any reply); never rejects: a failing stream is logged.
 */
export async function streamReply(res: ServerResponse, reply: HttpResponse, ctx: StreamContext): Promise<void> {
  const { streams, log } = ctx;
  const abort = new AbortController();
  streams.add(abort);
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
    if (abort.signal.aborted) log.debug({ err }, 'streaming reply ended by its client');
    else log.error({ err }, 'streaming reply failed');
  } finally {
    res.off('close', gone);
    streams.delete(abort);
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
