/**
 * Accepting Vault's non-standard `LIST` method on Node's own HTTP/1.1 server.
 *
 * llhttp (Node's parser) rejects `LIST` with 400 and has no option to accept it, so we
 * keep llhttp (and its strict anti-smuggling checks) and cheat at the byte level: a
 * per-connection framer sees every chunk before llhttp does, follows the HTTP/1.1
 * message framing, and rewrites in place (same length) a request line starting
 * `LIST ` into `LINK ` and a genuine `LINK ` into `LINK\0` (which llhttp rejects with
 * 400). {@link ListIncomingMessage} then reports `LINK` as `LIST`. Only request-line
 * bytes are ever edited, never bodies. Source: `reference/ecosystem.md §1`
 * (approach "a-inplace").
 *
 * Relies on two node:http internals, stable since Node 12: adding a `'data'` listener
 * makes node:http feed llhttp from `'data'` events, and all listeners get the same
 * Buffer. If that ever changes, LIST fails closed (400), and the pipelining tests fail.
 *
 * Native path first (issue 15): that `'data'` path costs every request on the connection
 * (BENCHMARKS.md "Where the time goes now"), so a connection stays on node:http's native
 * read path (llhttp reading the socket itself) until a `LIST` arrives on it: llhttp then
 * stops with `HPE_INVALID_METHOD` at the `S`, and {@link watchNative} resets the parser,
 * installs the framer and feeds it that request again from its first byte. Until then
 * llhttp alone parses, exactly as it would behind the framer (the framer edits nothing
 * but `LIST`/`LINK` request lines); a genuine `LINK`, which llhttp accepts, is refused
 * with 400 when its head completes. Where an internal this needs is missing, every
 * connection is framed from its first byte, as before.
 *
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import tls from 'node:tls';

const LF = 0x0a;
const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const CR = 0x0d;
const SP = 0x20;
/** Longest line (request line, header, chunk-size line) we follow, in characters.
 *  llhttp gives up far earlier (node's maxHeaderSize, 16 KiB by default). */
const MAX_LINE = 1 << 20;

// Framer states. START skips the CR/LF that llhttp tolerates between requests.
const START = 0;
const REQUEST_LINE = 1;
const HEADER = 2;
const BODY = 3;
const CHUNK_SIZE = 4;
const CHUNK_DATA = 5;
const CHUNK_END = 6;
const TRAILER = 7;
const PASS = 8;

/** A header that changes framing (a body, or an upgrade), at the start of a header line (case-insensitive). */
const FRAMING = /\r\n(?:content-length|transfer-encoding|upgrade)[ \t]*:|\r\nconnection[ \t]*:[^\r]*upgrade/gi;
/** A `Content-Length` line whose value is plain digits, as llhttp accepts it. */
const PLAIN_LENGTH = /^\r\ncontent-length:[ \t]*(\d{1,15})[ \t]*\r\n/i;
/** A bare LF or a folded line: llhttp rejects or treats them specially; take the slow path. */
const IRREGULAR = /(?:^|[^\r])\n|\r\n[ \t]/;

/**
 * The fast path for most requests: a whole head (request line and headers) in this
 * chunk, no method starting with `L` (nothing to rewrite), and no header that frames a
 * body or upgrades the connection except one plain `Content-Length` (a typical POST),
 * no `CONNECT`.
 * Returns the index after the head and the body length, or undefined when the request
 * needs the line-by-line framer.
 */
function plainRequest(buf: Buffer, i: number): { next: number; bodyLength: number } | undefined {
  const end = buf.indexOf(HEADER_END, i);
  if (end < 0) return undefined;
  const head = buf.toString('latin1', i, end + 2);
  // CONNECT opens a tunnel: the line-by-line framer stops following the connection.
  if (IRREGULAR.test(head) || head.startsWith('CONNECT ')) return undefined;
  FRAMING.lastIndex = 0;
  const first = FRAMING.exec(head);
  if (first === null) return { next: end + 4, bodyLength: 0 };
  if (FRAMING.exec(head) !== null) return undefined; // a second framing header
  const length = PLAIN_LENGTH.exec(head.slice(first.index));
  return length === null ? undefined : { next: end + 4, bodyLength: Number(length[1]) };
}

/** Tracks HTTP/1.1 request framing on one connection and edits request lines in place. */
class Framer {
  state = START;
  /** Original (unedited) bytes of the current line, latin1. */
  line = '';
  /** Bytes of the current body or chunk still to skip. */
  remaining = 0;
  method = '';
  contentLength: number | undefined;
  transferEncoding: string | undefined;
  upgrade = false;
  connectionUpgrade = false;
  /** llhttp drops the rest of the chunk after an Upgrade request that node serves as a normal one. */
  dropAfterMessage = false;
  /** LIST request lines rewritten to LINK and not yet claimed by ListIncomingMessage. */
  lists = 0;

  constructor(
    readonly server: http.Server,
    readonly socket: Socket,
  ) {}

  readonly onData = (buf: Buffer): void => {
    const n = buf.length;
    let i = 0;
    while (i < n && this.state !== PASS) {
      switch (this.state) {
        case START:
          if (buf[i] === CR || buf[i] === LF) i++;
          else {
            const plain = buf[i] === 0x4c /* L: LIST, LINK */ ? undefined : plainRequest(buf, i);
            if (plain === undefined) this.beginRequest();
            else {
              i = plain.next;
              this.remaining = plain.bodyLength;
              if (this.remaining > 0) this.state = BODY;
            }
          }
          break;
        case REQUEST_LINE:
          // Edit the first five bytes one by one (a chunk may end anywhere), then take the rest.
          while (i < n && this.line.length < 5 && buf[i] !== LF) {
            const c = buf[i];
            this.rewrite(buf, i);
            this.line += String.fromCharCode(c); // the original byte: later decisions read it
            i++;
          }
          if (i < n) i = this.takeLine(buf, i);
          break;
        case HEADER:
          i = this.line === '' ? this.takeHeaderBlock(buf, i) : this.takeLine(buf, i);
          break;
        case CHUNK_SIZE:
        case TRAILER:
          i = this.takeLine(buf, i);
          break;
        case BODY:
        case CHUNK_DATA: {
          const skip = Math.min(this.remaining, n - i);
          i += skip;
          this.remaining -= skip;
          if (this.remaining === 0) {
            if (this.state === BODY) this.endMessage();
            else this.state = CHUNK_END;
          }
          break;
        }
        case CHUNK_END: {
          // The CRLF after chunk data; llhttp itself rejects anything else there.
          const j = buf.indexOf(LF, i);
          if (j < 0) i = n;
          else {
            i = j + 1;
            this.state = CHUNK_SIZE;
          }
          break;
        }
      }
      if (this.state === START && this.dropAfterMessage) {
        this.dropAfterMessage = false;
        i = n;
      }
    }
  };

  private beginRequest(): void {
    this.state = REQUEST_LINE;
    this.line = '';
    this.method = '';
    this.contentLength = undefined;
    this.transferEncoding = undefined;
    this.upgrade = false;
    this.connectionUpgrade = false;
  }

  /**
   * Edits byte `i`, at request-line position `this.line.length`, judging by the
   * original bytes before it. `LIST` and `LINK` share `LI`, so every decision needs only
   * bytes already seen. No llhttp method starts with `LIS`, so editing `S` early is safe.
   */
  private rewrite(buf: Buffer, i: number): void {
    const seen = this.line;
    const c = buf[i];
    if (seen === 'LI' && c === 0x53 /* S */) buf[i] = 0x4e; /* N */
    else if (seen === 'LIS') buf[i] = c === 0x54 /* T */ ? 0x4b /* K */ : c === 0x4b ? 0 : c; // keep LISK from becoming LINK
    else if (seen === 'LINK' && c === SP) buf[i] = 0; // genuine LINK: llhttp answers 400
    else if (seen === 'LIST' && c === SP) this.lists++;
  }

  /**
   * Fast path for the common case of a whole header block in one chunk: one search for
   * the blank line and one split, instead of a string per line. Lines whose first letter
   * cannot start a framing header (Content-Length, Transfer-Encoding, Upgrade,
   * Connection) are not looked at further. Falls back to line by line (returns `i`
   * unchanged via takeLine) when the block is split across chunks or holds a bare LF.
   */
  private takeHeaderBlock(buf: Buffer, i: number): number {
    if (buf[i] === CR || buf[i] === LF) return this.takeLine(buf, i);
    const end = buf.indexOf(HEADER_END, i);
    if (end < 0) return this.takeLine(buf, i);
    const block = buf.toString('latin1', i, end);
    if (block.includes('\n')) return this.takeLine(buf, i);
    for (const line of block.split('\r\n')) {
      const c = line.charCodeAt(0) | 0x20;
      if (c === 0x20 || c === 0x29 /* TAB | 0x20 */) return this.stopAt(buf.length);
      if (c === 0x63 /* c */ || c === 0x74 /* t */ || c === 0x75 /* u */) this.onHeader(line);
      if (this.state === PASS) return buf.length;
    }
    this.endHeaders();
    return end + 4;
  }

  /** {@link stop}, returning `n` so the caller's loop ends. */
  private stopAt(n: number): number {
    this.stop();
    return n;
  }

  /** Appends bytes up to the next LF to `line`; on LF handles the line. Returns the next index. */
  private takeLine(buf: Buffer, i: number): number {
    const j = buf.indexOf(LF, i);
    this.line += buf.toString('latin1', i, j < 0 ? buf.length : j);
    if (this.line.length > MAX_LINE) this.stop();
    else if (j >= 0) {
      const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
      this.line = '';
      this.onLine(line);
    }
    return j < 0 ? buf.length : j + 1;
  }

  private onLine(line: string): void {
    switch (this.state) {
      case REQUEST_LINE:
        this.method = line.slice(0, line.indexOf(' '));
        this.state = HEADER;
        return;
      case HEADER:
        if (line === '') return this.endHeaders();
        return this.onHeader(line);
      case CHUNK_SIZE: {
        const hex = /^[0-9A-Fa-f]{1,12}(?![0-9A-Fa-f])/.exec(line);
        if (!hex) return this.stop(); // llhttp rejects it (or it is absurdly large)
        this.remaining = parseInt(hex[0], 16);
        this.state = this.remaining === 0 ? TRAILER : CHUNK_DATA;
        return;
      }
      case TRAILER:
        if (line === '') this.endMessage();
        return;
    }
  }

  /** Records the headers that decide framing, as llhttp reads them (names case-insensitive). */
  private onHeader(line: string): void {
    // Folded lines are rejected by llhttp; stopping keeps us from guessing.
    if (line[0] === ' ' || line[0] === '\t') return this.stop();
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim().toLowerCase();
    if (name === 'content-length') {
      // llhttp rejects duplicates and anything but digits: we stop and let it answer 400.
      if (this.contentLength !== undefined || !/^\d{1,15}$/.test(value)) return this.stop();
      this.contentLength = Number(value);
    } else if (name === 'transfer-encoding') {
      this.transferEncoding = this.transferEncoding === undefined ? value : `${this.transferEncoding},${value}`;
    } else if (name === 'upgrade') {
      this.upgrade = true;
    } else if (name === 'connection') {
      if (value.split(',').some((t) => t.trim() === 'upgrade')) this.connectionUpgrade = true;
    }
  }

  private endHeaders(): void {
    if (this.method === 'CONNECT') return this.stop(); // a tunnel (or node destroys the socket)
    if (this.upgrade && this.connectionUpgrade) {
      // node:http hands the socket to 'upgrade' listeners; without one it serves a normal
      // request, but llhttp discards the rest of the chunk that completes it.
      if (this.server.listenerCount('upgrade') > 0) return this.stop();
      this.dropAfterMessage = true;
    }
    if (this.transferEncoding !== undefined) {
      // CL+TE together, or a final coding other than chunked: llhttp answers 400.
      const codings = this.transferEncoding.split(',');
      if (this.contentLength !== undefined || codings[codings.length - 1].trim() !== 'chunked') return this.stop();
      this.state = CHUNK_SIZE;
    } else if (this.contentLength) {
      this.remaining = this.contentLength;
      this.state = BODY;
    } else this.endMessage();
  }

  private endMessage(): void {
    this.state = START;
  }

  /** Stops rewriting for the rest of the connection: upgrades, tunnels and anything llhttp rejects. */
  private stop(): void {
    this.state = PASS;
    this.socket.removeListener('data', this.onData);
  }
}

/** The framer of each connection, so ListIncomingMessage only renames LINKs the framer made. */
const framers = new WeakMap<object, Framer>();
const enabled = new WeakSet<http.Server>();
const kMethod = Symbol('cairn.method');

/**
 * `http.IncomingMessage` whose `method` reads `LIST` where llhttp parsed a `LINK` that
 * the framer of {@link enableListMethod} rewrote from `LIST`. Any other `LINK` (no
 * framer on the socket, or the framer stopped following the connection) stays `LINK`,
 * so a framing mismatch fails closed. Pass it as the server's `IncomingMessage` option.
 * The renaming is a setter on the prototype, so it applies to `'request'`,
 * `'checkContinue'` and `'upgrade'` alike (restoring the method in a `'checkContinue'`
 * listener instead would stop node from emitting `'request'`). Source:
 * `reference/ecosystem.md §1`.
 */
export class ListIncomingMessage extends http.IncomingMessage {}

// An accessor rather than a class member: node assigns `this.method` inside the
// IncomingMessage constructor, before subclass fields would exist.
Object.defineProperty(ListIncomingMessage.prototype, 'method', {
  configurable: true,
  enumerable: true,
  get(this: { [kMethod]?: string | null }) {
    return this[kMethod];
  },
  set(this: { [kMethod]?: string | null; socket: Socket | null }, value: string | null) {
    const framer = value === 'LINK' && this.socket ? framers.get(this.socket) : undefined;
    if (framer && framer.lists > 0) {
      framer.lists--;
      value = 'LIST';
    }
    this[kMethod] = value;
  },
});

/**
 * Installs the LIST framer on every connection of `server` (an `http.Server` or
 * `https.Server` created with `IncomingMessage: ListIncomingMessage`) and returns it.
 * Hooks `'connection'` for plain HTTP and `'secureConnection'` (the decrypted
 * TLSSocket) for HTTPS. A connection node:http reads natively stays unframed until a
 * `LIST` arrives on it ({@link watchNative}). Call before the server accepts
 * connections; calling twice is a no-op. Source: `reference/ecosystem.md §1`.
 */
export function enableListMethod<S extends http.Server>(server: S): S {
  if (enabled.has(server)) return server;
  enabled.add(server);
  const event = server instanceof tls.Server ? 'secureConnection' : 'connection';
  // Registered after node:http's own listener, which has already attached the parser.
  server.on(event, (socket: Socket) => {
    if (!watchNative(server, socket)) frame(server, socket);
  });
  return server;
}

/** Puts the framer in front of node:http's parser on `socket` (which leaves the native read path). */
function frame(server: http.Server, socket: Socket): Framer {
  const framer = new Framer(server, socket);
  framers.set(socket, framer);
  socket.prependListener('data', framer.onData);
  return framer;
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
      HTTPParser?: { prototype: object; REQUEST: number; kOnExecute: number; kLenientAll: number; kLenientNone: number };
      isLenient?: () => boolean;
    };
    const P = common.HTTPParser;
    const methods = ['getCurrentBuffer', 'remove', 'initialize'];
    if (!P || typeof common.isLenient !== 'function' || typeof P.kOnExecute !== 'number') return undefined;
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
 * `LIST` arrives; returns false (nothing changed) when the connection is not read
 * natively or an internal is missing.
 *
 * How the start of the `LIST` request is found: llhttp matches methods byte by byte and
 * reports `HPE_INVALID_METHOD` at the first byte no method continues, so for `LIST` at
 * the `S`, having taken `LI` (which may have come in earlier chunks). The only method
 * prefixes ending in `LI` are `LI` (LINK) and `UNLI` (UNLINK); so the request is a `LIST`
 * when the bytes llhttp took just before the `S` end in `LI` but not in `UNLI`. The
 * last 4 bytes llhttp took are kept after each chunk that ends between messages (where
 * a method may be cut); after a chunk that ends inside a message a request cannot have
 * begun before the next chunk, which the empty tail says. `UNLIS…` stays llhttp's 400:
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
function watchNative(server: http.Server, socket: Socket): boolean {
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
  let watching = true;
  const wrapped = ['on', 'addListener', 'prependListener'] as const;
  const nodeWrappers = wrapped.map((name) => socket[name]);
  const stopWatching = (): void => {
    watching = false;
    wrapped.forEach((name, k) => ((socket as unknown as Record<string, unknown>)[name] = nodeWrappers[k]));
  };
  wrapped.forEach((name, k) => {
    (socket as unknown as Record<string, unknown>)[name] = function (this: Socket, ev: string | symbol, fn: (...a: unknown[]) => void) {
      if (watching && (ev === 'data' || ev === 'readable')) {
        stopWatching();
        if (socket.bytesRead === 0) frame(server, socket);
      }
      return (nodeWrappers[k] as (ev: string | symbol, fn: unknown) => Socket).call(this, ev, fn);
    };
  });

  // llhttp accepts LINK; with no framer (none yet, or none possible) it is refused as the
  // framer would have it refused: -1 makes llhttp fail the request, node:http answers 400.
  parser.onIncoming = (req, keepAlive) => (req.method === 'LINK' && !framers.has(socket) ? -1 : onIncoming(req, keepAlive));

  parser[P.kOnExecute] = (ret: number | (Error & { code?: string; bytesParsed?: number })): unknown => {
    if (!watching) return (onExecute as (r: unknown) => unknown)(ret);
    if (typeof ret === 'number') {
      const incoming = parser.incoming;
      if (incoming !== null && !incoming.complete) tail = EMPTY;
      else {
        const chunk = parser.getCurrentBuffer();
        if (ret < chunk.length) {
          // llhttp dropped the rest of the chunk (an Upgrade served as a normal request) and
          // keeps its upgrade state, in which it no longer reports an invalid method: frame
          // from the next chunk on, which starts a request, as the framer did after such a request.
          stopWatching();
          frame(server, socket);
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
    frame(server, socket);
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

/**
 * Creates a node HTTP server (HTTPS when `options.tls` holds a PEM `key` and `cert`)
 * that accepts the `LIST` method: `req.method === 'LIST'` in `handler`, while a genuine
 * `LINK` gets 400. `options.http` passes node:http server options through (the
 * listener's timeouts, connection-limits.ts). The server is returned not yet listening.
 * Errors: `https` throws on an invalid key or certificate. Source: `reference/ecosystem.md §1`.
 */
export function createHttpServer(
  options: { tls?: { key: string | Buffer; cert: string | Buffer }; http?: http.ServerOptions },
  handler: http.RequestListener,
): http.Server | https.Server {
  const base = { ...options.http, IncomingMessage: ListIncomingMessage };
  const server: http.Server = options.tls
    ? https.createServer({ ...base, key: options.tls.key, cert: options.tls.cert }, handler)
    : http.createServer(base, handler);
  return enableListMethod(server);
}
