/**
 * The worker's proxy listener (purpose `proxy`, default port 9202): clients connect with
 * a session's authorization token, the worker has the controller check it, dials the
 * session's target and copies bytes both ways (issue 4 scope 3).
 *
 * Wire handshake, then raw bytes (Cairn's own, much smaller than the reference's
 * certificate-and-websocket protocol; docs/compatibility.md):
 *
 * ```
 * client → worker   <authorization_token>\n          (at most 1 KiB, within 10 s)
 * worker → client   OK <session_id> <connection_id>\n  then the target's bytes
 *               or  ERR <message>\n                     and the connection closes
 * ```
 *
 * Bytes the client sends after its token line are kept and delivered to the target.
 * Half-closes pass through (a client that ends its side still gets the target's reply).
 * The listener may be TLS (`tls_cert_file`/`tls_key_file` on the `proxy` listener).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../../kernel/log/logger.js';
import { capConnections, DEFAULT_CONNECTION_LIMITS, splitAddress } from '../../kernel/http/index.js';

/** Longest token line accepted, in bytes. */
const MAX_HANDSHAKE_BYTES = 1024;
/** Time a client has to send its token line, in ms. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Time allowed to reach the target, in ms. */
const TARGET_CONNECT_TIMEOUT_MS = 10_000;

/** What the controller answered for a token: where to proxy, until when. */
export interface ProxyGrant {
  readonly sessionId: string;
  readonly connectionId: string;
  /** `host:port`. */
  readonly endpoint: string;
  /** Epoch milliseconds; the connection is closed then. */
  readonly expirationMs: number;
}

/** The end of one granted connection, for the controller. */
export interface ClosedConnection {
  readonly sessionId: string;
  readonly connectionId: string;
  /** Bytes client → target. */
  readonly bytesUp: number;
  /** Bytes target → client. */
  readonly bytesDown: number;
  readonly reason: string;
}

/** Options of {@link ProxyServer}. */
export interface ProxyServerOptions {
  /** `host:port`; port 0 picks a free port. */
  readonly address: string;
  /** PEM files: serve TLS instead of plain TCP. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /**
   * Asks the controller about a token. Rejects with an error whose message is shown to
   * the client (`ERR <message>`).
   */
  readonly authorize: (token: string, clientAddress: string) => Promise<ProxyGrant>;
  /** Called once per granted connection when it ends. */
  readonly onClosed: (c: ClosedConnection) => void;
  readonly log: Logger;
  /** Clock in epoch ms; default `Date.now`. */
  readonly now?: () => number;
  /**
   * Most connections open at once, handshaking or proxied (`max_connections`); further
   * ones are closed at once. Absent = 4096, 0 = no limit.
   */
  readonly maxConnections?: number;
}

interface Proxied {
  readonly grant: ProxyGrant;
  readonly client: net.Socket;
  readonly handshakeBytes: number;
  target?: net.Socket;
  reason?: string;
  timer?: NodeJS.Timeout;
}

/** A running proxy listener and the connections it holds. */
export class ProxyServer {
  private readonly server: net.Server;
  private readonly options: ProxyServerOptions;
  private readonly now: () => number;
  /** Open connections by session id. */
  private readonly bySession = new Map<string, Set<Proxied>>();
  private readonly pending = new Set<net.Socket>();
  private readonly drainWaiters: Array<() => void> = [];
  private boundAddress = '';

  constructor(options: ProxyServerOptions) {
    this.options = options;
    this.now = options.now ?? (() => Date.now());
    const onSocket = (socket: net.Socket) => this.accept(socket);
    this.server = options.tls
      ? tls.createServer({ cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile), allowHalfOpen: true }, onSocket)
      : net.createServer({ allowHalfOpen: true }, onSocket);
    const maxConnections = options.maxConnections ?? DEFAULT_CONNECTION_LIMITS.maxConnections;
    capConnections(this.server, { maxConnections, maxConnectionsPerClient: 0 }, (socket) => socket.destroy());
  }

  /** Binds the listener. @throws {Error} naming the address when it cannot be bound. */
  async listen(): Promise<void> {
    const { host, port } = splitAddress(this.options.address);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', (err) => reject(new Error(`cannot listen on proxy address "${this.options.address}": ${err.message}`)));
      this.server.listen(port, host, () => resolve());
    });
    const a = this.server.address() as net.AddressInfo;
    this.boundAddress = `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  }

  /** `host:port` actually bound. */
  get address(): string {
    return this.boundAddress;
  }

  /** Sessions with at least one open connection (reference/gateway.md §4.4 `active_session_count`). */
  get activeSessionCount(): number {
    return this.bySession.size;
  }

  /** Open connections per session, for status reports and `session_connections`. */
  sessionConnections(): { session_id: string; connection_count: number }[] {
    return [...this.bySession].map(([id, set]) => ({ session_id: id, connection_count: set.size }));
  }

  /** Open proxied connections in all. */
  get connectionCount(): number {
    let n = 0;
    for (const set of this.bySession.values()) n += set.size;
    return n;
  }

  /** Closes every connection of the sessions `ids`, reporting `reason`. */
  closeSessions(ids: readonly string[], reason: string): void {
    for (const id of ids) for (const p of this.bySession.get(id) ?? []) this.destroy(p, reason);
  }

  /** Stops accepting new connections; open ones go on. */
  stopAccepting(): void {
    this.server.close();
    for (const s of this.pending) s.destroy();
  }

  /** Resolves once no proxied connection is open. */
  drain(): Promise<void> {
    if (this.bySession.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Stops accepting and closes every connection with `reason`. */
  close(reason: string): void {
    this.stopAccepting();
    for (const set of this.bySession.values()) for (const p of set) this.destroy(p, reason);
  }

  private accept(client: net.Socket): void {
    this.pending.add(client);
    client.setNoDelay(true);
    client.on('error', () => client.destroy());
    client.once('close', () => this.pending.delete(client));
    const fail = (message: string) => client.end(`ERR ${message}\n`, () => client.destroy());
    const timer = setTimeout(() => fail('no authorization token received in time'), HANDSHAKE_TIMEOUT_MS);
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const nl = buffered.indexOf(0x0a);
      if (nl < 0) {
        if (buffered.length > MAX_HANDSHAKE_BYTES) {
          client.off('data', onData);
          clearTimeout(timer);
          fail('authorization token line too long');
        }
        return;
      }
      client.off('data', onData);
      client.pause();
      clearTimeout(timer);
      const rest = buffered.subarray(nl + 1);
      if (rest.length > 0) client.unshift(rest);
      const token = buffered.subarray(0, nl).toString('utf8').replace(/\r$/, '').trim();
      void this.authorizeAndConnect(client, token, nl + 1, fail);
    };
    client.on('data', onData);
  }

  private async authorizeAndConnect(client: net.Socket, token: string, handshakeBytes: number, fail: (m: string) => void): Promise<void> {
    const peer = `${client.remoteAddress ?? ''}:${client.remotePort ?? ''}`;
    let grant: ProxyGrant;
    try {
      if (token === '') throw new Error('an authorization token is required');
      grant = await this.options.authorize(token, peer);
    } catch (err) {
      this.options.log.info({ client: peer, err: (err as Error).message }, 'gateway proxy connection refused');
      return fail((err as Error).message.replace(/[\r\n]+/g, ' '));
    }
    if (client.destroyed) {
      this.options.onClosed({ sessionId: grant.sessionId, connectionId: grant.connectionId, bytesUp: 0, bytesDown: 0, reason: 'closed by client' });
      return;
    }
    this.pending.delete(client);
    const p: Proxied = { grant, client, handshakeBytes };
    this.track(p);
    const { host, port } = splitAddress(grant.endpoint);
    const target = net.connect({ host, port, allowHalfOpen: true, timeout: TARGET_CONNECT_TIMEOUT_MS });
    p.target = target;
    target.setNoDelay(true);
    target.once('timeout', () => target.destroy(new Error('timed out')));
    let connected = false;
    target.once('connect', () => {
      connected = true;
      target.setTimeout(0);
      if (client.destroyed) return;
      client.write(`OK ${grant.sessionId} ${grant.connectionId}\n`);
      client.pipe(target);
      target.pipe(client);
    });
    target.once('end', () => (p.reason ??= 'closed by target'));
    client.once('end', () => (p.reason ??= 'closed by client'));
    target.once('error', (err) => {
      if (connected || client.destroyed) return this.destroy(p, 'network error');
      p.reason ??= 'target unreachable';
      client.end(`ERR cannot reach target ${grant.endpoint}: ${err.message}\n`, () => client.destroy());
    });
    client.once('error', () => this.destroy(p, 'network error'));
    let closed = 0;
    const onClose = () => {
      if (++closed === 2) this.untrack(p);
    };
    target.once('close', onClose);
    client.once('close', onClose);
    const left = grant.expirationMs - this.now();
    p.timer = setTimeout(() => this.destroy(p, 'session expired'), Math.max(0, Math.min(left, 2 ** 31 - 1)));
  }

  private destroy(p: Proxied, reason: string): void {
    p.reason ??= reason;
    p.client.destroy();
    p.target?.destroy();
  }

  private track(p: Proxied): void {
    let set = this.bySession.get(p.grant.sessionId);
    if (!set) this.bySession.set(p.grant.sessionId, (set = new Set()));
    set.add(p);
  }

  private untrack(p: Proxied): void {
    clearTimeout(p.timer);
    const set = this.bySession.get(p.grant.sessionId);
    if (!set?.delete(p)) return;
    if (set.size === 0) this.bySession.delete(p.grant.sessionId);
    this.options.onClosed({
      sessionId: p.grant.sessionId,
      connectionId: p.grant.connectionId,
      bytesUp: Math.max(0, p.client.bytesRead - p.handshakeBytes),
      bytesDown: p.target?.bytesRead ?? 0,
      reason: p.reason ?? 'closed',
    });
    if (this.bySession.size === 0) for (const wake of this.drainWaiters.splice(0)) wake();
  }
}
