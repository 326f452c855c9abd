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
 * Native path first (issue 15): a connection stays on node:http's native read path until a
 * `LIST` arrives on it, and is then handed to the framer (list-handoff.ts, {@link watchNative}).
 *
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { watchNative } from './list-handoff.js';

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
    else if (seen === 'LIS')
      buf[i] = c === 0x54 /* T */ ? 0x4b /* K */ : c === 0x4b ? 0 : c; // keep LISK from becoming LINK
    else if (seen === 'LINK' && c === SP)
      buf[i] = 0; // genuine LINK: llhttp answers 400
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
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
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
function enableListMethod<S extends http.Server>(server: S): S {
  if (enabled.has(server)) return server;
  enabled.add(server);
  const event = server instanceof tls.Server ? 'secureConnection' : 'connection';
  // Registered after node:http's own listener, which has already attached the parser.
  server.on(event, (socket: Socket) => {
    if (!watchNative(server, socket, { frame: () => frame(server, socket), framed: () => framers.has(socket) })) frame(server, socket);
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

/**
 * How a TLS listener asks for client certificates (node:tls server options): `requestCert`
 * asks every client for one; `rejectUnauthorized` with `ca` fails the handshake of a client
 * without a certificate chaining to `ca`.
 */
export interface ClientCertOptions {
  readonly requestCert?: boolean;
  readonly rejectUnauthorized?: boolean;
  /** PEM CA bundle client certificates must chain to (with `rejectUnauthorized`). */
  readonly ca?: string | Buffer;
}

/**
 * Creates a node HTTP server (HTTPS when `options.tls` holds a PEM `key` and `cert`, asking for client certificates as its {@link ClientCertOptions} say)
 * that accepts the `LIST` method: `req.method === 'LIST'` in `handler`, while a genuine
 * `LINK` gets 400. `options.http` passes node:http server options through (the
 * listener's timeouts, connection-limits.ts). The server is returned not yet listening.
 * Errors: `https` throws on an invalid key or certificate. Source: `reference/ecosystem.md §1`.
 */
export function createHttpServer(
  options: { tls?: { key: string | Buffer; cert: string | Buffer } & ClientCertOptions; http?: http.ServerOptions },
  handler: http.RequestListener,
): http.Server | https.Server {
  const base = { ...options.http, IncomingMessage: ListIncomingMessage };
  const server: http.Server = options.tls ? https.createServer({ ...base, ...options.tls }, handler) : http.createServer(base, handler);
  return enableListMethod(server);
}
