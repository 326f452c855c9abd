/**
 * The native-parser hand-off of the LIST method (issue 15): a connection stays on
 * node:http's native read path (llhttp reading the socket itself) until a `LIST` arrives
 * on it, then {@link watchNative} hands it to the LIST framer of list-method.ts.
 *
 * Why: the framer's `'data'` path costs every request on the connection (BENCHMARKS.md
 * "Where the time goes now"). llhttp stops with `HPE_INVALID_METHOD` at the `S` of a
 * `LIST`; the parser is then reset and the framer installed and fed that request again
 * from its first byte. Until then llhttp alone parses, exactly as it would behind the
 * framer (the framer edits nothing but `LIST`/`LINK` request lines); a genuine `LINK`,
 * which llhttp accepts, is refused with 400 when its head completes. Where an internal
 * this needs is missing, the caller frames every connection from its first byte.
 *
 * @module
 */
import type http from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

/** What {@link watchNative} asks of the framer side (list-method.ts) for one connection. */
export interface NativeHandoff {
  /** Puts the framer in front of node:http's parser on the connection (leaving the native read path). */
  frame(): void;
  /** Whether the connection has a framer (a `LINK` parsed without one is refused). */
  framed(): boolean;
}

/** The parts of node:http's per-connection parser (`_http_common` HTTPParser) used here. */
interface NativeParser {
  _consumed?: boolean;
  incoming: { complete: boolean } | null;
  onIncoming: ((req: http.IncomingMessage, keepAlive: boolean) => number) | null;
  getCurrentBuffer(): Buffer;
  remove(): void;
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number, connections: unknown): void;
  [k: number]: unknown;
}

/** node:http internals for the native path, or undefined when this Node lacks one. */
const native = (() => {
  try {
    const common = createRequire(import.meta.url)('_http_common') as {
      HTTPParser?: { prototype: object; REQUEST: number; kOnMessageBegin: number; kOnExecute: number; kLenientAll: number; kLenientNone: number };
      isLenient?: () => boolean;
    };
    const P = common.HTTPParser;
    const methods = ['getCurrentBuffer', 'remove', 'initialize'];
    if (!P || typeof common.isLenient !== 'function' || typeof P.kOnExecute !== 'number' || typeof P.kOnMessageBegin !== 'number') return undefined;
    if (!methods.every((m) => typeof (P.prototype as Record<string, unknown>)[m] === 'function')) return undefined;
    return { P, isLenient: common.isLenient };
  } catch {
    return undefined;
  }
})();

/** node:http's key of a server's connection list (for the parser's timeouts), found on the first server. */
let kConnections: symbol | undefined;

const UPPER_L = 0x4c;
const UPPER_I = 0x49;
const UPPER_S = 0x53;
const UPPER_U = 0x55;
const UPPER_N = 0x4e;
const LI = Buffer.from('LI', 'latin1');
const EMPTY = Buffer.alloc(0);

/**
 * Keeps `socket` on node:http's native read path and hands it to the framer when a
 * `LIST` arrives (through `framer`, the connection's side of list-method.ts); returns
 * false (nothing changed) when the connection is not read natively or an internal is missing.
 *
 * How the start of the `LIST` request is found: llhttp matches methods byte by byte and
 * reports `HPE_INVALID_METHOD` at the first byte no method continues, so for `LIST` at
 * the `S`, having taken `LI` (which may have come in earlier chunks). The only method
 * prefixes ending in `LI` are `LI` (LINK) and `UNLI` (UNLINK); so the request is a `LIST`
 * when the bytes llhttp took just before the `S` end in `LI` but not in `UNLI`. The
 * last 4 bytes llhttp took are kept after a chunk that ends inside a request's head, where
 * a method may be cut (llhttp's message-begin callback says a request began, node:http's
 * onIncoming that its head is complete); after a chunk that ends between requests or
 * inside a body, the next request starts at the next chunk's first byte, which the empty
 * tail says, and the chunk is not copied out of llhttp at all. `UNLIS…` stays llhttp's 400:
 * it may be an `UNLIST` or a body ending in `UN` followed by a `LIST`, and only framing
 * tells. After a chunk whose rest llhttp dropped (an Upgrade it serves as a normal
 * request; llhttp then stays in a state where it reports no invalid method), the
 * framer takes over from the next chunk, as it did after such a request before.
 *
 * The hand-off: the parser is taken out of the server's connection lists and
 * re-initialised as node:http initialised it (llhttp stops for good after an error),
 * the framer is installed (which moves node:http to the `'data'` path), and `LI` plus
 * the rest of the chunk is put back at the front of the socket's readable buffer, so
 * the framer and llhttp see the request from its first byte before anything read later
 * (and only once the socket reads again, if node:http paused it).
 *
 * A `'data'`/`'readable'` listener added by anyone else also moves node:http to the
 * `'data'` path: before the first byte the framer goes in first (as before this
 * change); later it cannot know where the messages are, so `LIST` then stays llhttp's
 * 400 on that connection and a genuine `LINK` is still refused.
 */
export function watchNative(server: http.Server, socket: Socket, framer: NativeHandoff): boolean {
  const parser = (socket as unknown as { parser?: NativeParser }).parser;
  kConnections ??= Object.getOwnPropertySymbols(server).find((k) => k.description === 'http.server.connections');
  const connections = kConnections;
  if (!native || !parser || parser._consumed !== true || connections === undefined) return false;
  const { P } = native;
  const onExecute = parser[P.kOnExecute];
  const onIncoming = parser.onIncoming;
  if (typeof onExecute !== 'function' || typeof onIncoming !== 'function') return false;

  /** The last ≤ 4 bytes llhttp took, when the last chunk ended between messages; else empty. */
  let tail: Buffer = EMPTY;
  /**
   * Whether the chunk llhttp ends on must be looked at (below): a request has begun whose head
   * is not complete (the chunk may end inside its method), or an Upgrade request's head just
   * completed (llhttp may have dropped the rest of the chunk). Any other chunk ends between
   * requests or inside a body.
   */
  let lookAtChunk = false;
  // node:http's server parser has no message-begin callback, and node clears ours when it frees
  // the parser (`cleanParser`), so it never outlives the connection. Should a Node version set
  // one of its own, it is left alone and every chunk is looked at, as before.
  const ownMessageBegin = typeof parser[P.kOnMessageBegin] !== 'function';
  let watching = true;
  const wrapped = ['on', 'addListener', 'prependListener'] as const;
  const nodeWrappers = wrapped.map((name) => socket[name]);
  const stopWatching = (): void => {
    watching = false;
    if (ownMessageBegin) parser[P.kOnMessageBegin] = null;
    wrapped.forEach((name, k) => ((socket as unknown as Record<string, unknown>)[name] = nodeWrappers[k]));
  };
  wrapped.forEach((name, k) => {
    (socket as unknown as Record<string, unknown>)[name] = function (this: Socket, ev: string | symbol, fn: (...a: unknown[]) => void) {
      if (watching && (ev === 'data' || ev === 'readable')) {
        stopWatching();
        if (socket.bytesRead === 0) framer.frame();
      }
      return (nodeWrappers[k] as (ev: string | symbol, fn: unknown) => Socket).call(this, ev, fn);
    };
  });

  // llhttp accepts LINK; with no framer (none yet, or none possible) it is refused as the
  // framer would have it refused: -1 makes llhttp fail the request, node:http answers 400.
  parser.onIncoming = (req, keepAlive) => {
    // Read before node:http's onIncoming, which clears `upgrade` when no one serves upgrades.
    lookAtChunk = !ownMessageBegin || (req as { upgrade?: boolean }).upgrade === true;
    return req.method === 'LINK' && !framer.framed() ? -1 : onIncoming(req, keepAlive);
  };
  if (ownMessageBegin) {
    parser[P.kOnMessageBegin] = () => {
      lookAtChunk = true;
    };
  } else lookAtChunk = true;

  parser[P.kOnExecute] = (ret: number | (Error & { code?: string; bytesParsed?: number })): unknown => {
    if (!watching) return (onExecute as (r: unknown) => unknown)(ret);
    if (typeof ret === 'number') {
      const incoming = parser.incoming;
      // Most chunks end between requests or inside a body, and the next request then starts at
      // the next chunk's first byte: nothing to keep, and the chunk is not copied out
      // (`getCurrentBuffer` copies it: with the tail's own copy, 2–3 % of a KV read, issue 30).
      if (!lookAtChunk) {
        tail = EMPTY;
        return (onExecute as (r: unknown) => unknown)(ret);
      }
      if (incoming !== null && !incoming.complete) tail = EMPTY;
      else {
        const chunk = parser.getCurrentBuffer();
        if (ret < chunk.length) {
          // llhttp dropped the rest of the chunk (an Upgrade served as a normal request) and
          // keeps its upgrade state, in which it no longer reports an invalid method: frame
          // from the next chunk on, which starts a request, as the framer did after such a request.
          stopWatching();
          framer.frame();
          return (onExecute as (r: unknown) => unknown)(ret);
        }
        // A copy of 4 bytes: a view would keep the whole chunk (up to 64 KiB) per idle connection.
        else tail = Buffer.from(chunk.length >= 4 ? chunk.subarray(chunk.length - 4) : Buffer.concat([tail, chunk]).subarray(-4));
      }
      return (onExecute as (r: unknown) => unknown)(ret);
    }
    const again = ret.code === 'HPE_INVALID_METHOD' ? listRequest(parser.getCurrentBuffer(), ret.bytesParsed ?? -1, tail) : undefined;
    if (again === undefined) return (onExecute as (r: unknown) => unknown)(ret);
    stopWatching();
    // Out of the connection lists under its current start time before initialize()
    // changes it (they are ordered by it), then back in.
    parser.remove();
    const options = server as unknown as { insecureHTTPParser?: boolean; maxHeaderSize?: number };
    const lenient = options.insecureHTTPParser === undefined ? native.isLenient() : options.insecureHTTPParser;
    parser.initialize(
      P.REQUEST,
      { type: 'HTTPINCOMINGMESSAGE', socket },
      options.maxHeaderSize || 0,
      lenient ? P.kLenientAll : P.kLenientNone,
      (server as unknown as Record<symbol, unknown>)[connections],
    );
    framer.frame();
    (socket as unknown as { _unrefTimer?: () => void })._unrefTimer?.();
    // After this callback: node:http is then reading from 'data' events.
    process.nextTick(() => socket.unshift(again));
    return undefined;
  };
  return true;
}

/**
 * The bytes to feed again when llhttp's `HPE_INVALID_METHOD` at `chunk[pos]` is a
 * `LIST` (see {@link watchNative}): `LI` and the chunk from the `S` on; else undefined.
 */
function listRequest(chunk: Buffer, pos: number, tail: Buffer): Buffer | undefined {
  if (pos < 0 || chunk[pos] !== UPPER_S) return undefined;
  const before = pos >= 4 ? chunk.subarray(pos - 4, pos) : Buffer.concat([tail, chunk.subarray(0, pos)]).subarray(-4);
  const n = before.length;
  if (n < 2 || before[n - 2] !== UPPER_L || before[n - 1] !== UPPER_I) return undefined;
  if (n === 4 && before[0] === UPPER_U && before[1] === UPPER_N) return undefined;
  return Buffer.concat([LI, chunk.subarray(pos)]);
}
