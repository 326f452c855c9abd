/**
 * Writing plain replies: queued, then written back to back at the end of the event-loop
 * turn (LIFECYCLE.md "Replies are not written the moment they are ready").
 *
 * @module
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { HttpResponse } from './exchange.js';

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
export class ReplyQueue {
  private queue: Array<{ res: ServerResponse; reply: HttpResponse; method: string }> = [];

  /** `log` gets the replies that cannot be written (an invalid header from a handler). */
  constructor(private readonly log: Logger) {}

  /** Queues `reply` to the request of `method` to be written to `res`; the first reply of a turn schedules the flush. */
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

function write(res: ServerResponse, reply: HttpResponse, method: string): void {
  // One writeHead with every header: node:http then validates and frames them once, where a
  // setHeader per header keeps and checks each on its own (issue 30: a thousand woken
  // blocking queries are a thousand writes of the same small reply).
  const headers: OutgoingHttpHeaders = { 'Cache-Control': 'no-store' };
  // Names are case-insensitive (a forwarded reply's come lower-case): the reply's own replace the default.
  for (const [k, v] of Object.entries(reply.headers ?? {})) {
    const lower = k.toLowerCase();
    if (lower === 'cache-control') delete headers['Cache-Control'];
    if (lower !== 'content-length') headers[k] = v as string | string[];
  }
  if (reply.body === undefined || reply.status === 204) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  // HEAD: the length the GET would send (RFC 9110 §9.3.2), no body.
  if (method === 'HEAD') {
    headers['Content-Length'] = Buffer.byteLength(reply.body);
    res.writeHead(reply.status, headers).end();
    return;
  }
  // A large string is encoded once: measuring it for Content-Length and then writing it would
  // each walk it (~35 ms apiece for a 7 MB health reply of 10,000 instances: BENCHMARKS.md).
  const body = typeof reply.body === 'string' && reply.body.length > ENCODE_ONCE_CHARS ? Buffer.from(reply.body) : reply.body;
  headers['Content-Length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  res.writeHead(reply.status, headers).end(body);
}

/** Replies longer than this (UTF-16 code units) are encoded to a Buffer once before writing; shorter ones are cheaper as strings. */
const ENCODE_ONCE_CHARS = 64 * 1024;
