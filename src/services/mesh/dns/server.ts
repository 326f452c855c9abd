/**
 * The agent's DNS server (issue 16 scope 7): one UDP socket and one TCP listener on the
 * same `host:port` (`addresses.dns`, `ports.dns`; `cairn dev -mesh-dns-address`).
 *
 * TCP carries each message after a 2-byte length (RFC 1035 §4.2.2); a connection is
 * closed after {@link TCP_IDLE_TIMEOUT_MS} without a complete message (the reference's
 * DNS library's idle timeout), and the listener holds at most the agent's connection caps
 * (`limits.http_max_conns`, `http_max_conns_per_client`, kernel/http/connection-limits.ts).
 * Forwarded queries (recursion) are bounded: past {@link MAX_RECURSIONS} at once, SERVFAIL.
 *
 * @module
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, isIP, type Server, type Socket } from 'node:net';
import { capConnections, resolveLimits, type ConnectionLimits } from '../../../kernel/http/index.js';
import { handleMessage, type HandleContext } from './handle.js';
import { recurse } from './recurse.js';

/** Time a TCP connection may stay without sending a complete message, in ms (miekg/dns's `tcpIdleTimeout`). */
const TCP_IDLE_TIMEOUT_MS = 8_000;
/** Most queries forwarded to the recursors at once; more are answered SERVFAIL. */
const MAX_RECURSIONS = 256;
/** Attempts at binding TCP on the port UDP got when the port is 0 (another process may hold it on TCP). */
const PORT_ATTEMPTS = 5;

/** Options of {@link startDnsServer}. */
export interface DnsServerOptions {
  /** `host:port`; port 0 picks one free on both UDP and TCP. */
  readonly address: string;
  readonly context: HandleContext;
  /** The TCP listener's caps (its `maxConnections`, `maxConnectionsPerClient`). */
  readonly limits?: ConnectionLimits;
  /** Override of {@link TCP_IDLE_TIMEOUT_MS} (tests). */
  readonly idleTimeoutMs?: number;
}

/** A running DNS server. */
export interface DnsServer {
  /** The bound `host:port` (UDP and TCP). */
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Binds UDP and TCP on `options.address` and answers. @throws when either cannot be bound
 * (the other is closed first).
 */
export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const at = options.address.lastIndexOf(':');
  const host = options.address.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  const wanted = Number(options.address.slice(at + 1));
  let inFlight = 0;
  const { dns } = options.context;
  const context: HandleContext = {
    ...options.context,
    recurse:
      options.context.recurse ??
      (async (query) => {
        if (inFlight >= MAX_RECURSIONS) return undefined;
        inFlight++;
        try {
          return await recurse(query, dns.recursors, dns.recursorTimeoutMs);
        } finally {
          inFlight--;
        }
      }),
  };
  for (let attempt = 1; ; attempt++) {
    const udp = await bindUdp(host, wanted, context);
    const port = udp.address().port;
    try {
      const tcp = await bindTcp(host, port, context, options);
      const address = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
      return {
        address,
        port,
        close: async () => {
          await new Promise<void>((resolve) => udp.close(() => resolve()));
          await tcp.close();
        },
      };
    } catch (err) {
      udp.close();
      if (wanted !== 0 || attempt >= PORT_ATTEMPTS || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

/** The UDP socket: each datagram is one query, answered to its sender. */
function bindUdp(host: string, port: number, context: HandleContext): Promise<UdpSocket> {
  const socket = createSocket({ type: isIP(host) === 6 ? 'udp6' : 'udp4' });
  socket.on('message', (msg, from) => {
    void handleMessage(context, msg, 'udp').then((reply) => {
      if (reply) socket.send(reply, from.port, from.address, () => undefined);
    });
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      // A send error (ICMP unreachable surfaced later, …) concerns one client only.
      socket.on('error', (err) => context.log.debug({ err }, 'DNS UDP socket error'));
      resolve(socket);
    });
  });
}

/** The TCP listener and a `close` that also ends the open connections. */
async function bindTcp(host: string, port: number, context: HandleContext, options: DnsServerOptions): Promise<{ close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    serveConnection(socket, context, options.idleTimeoutMs ?? TCP_IDLE_TIMEOUT_MS);
  });
  const limits = resolveLimits(options.limits);
  capConnections(server, limits, (socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}

/**
 * One TCP connection: reads length-prefixed messages and answers each in order. The buffer
 * never holds more than one message (at most 65,537 bytes): reading pauses while a message
 * is answered.
 */
function serveConnection(socket: Socket, context: HandleContext, idleMs: number): void {
  let buffered: Buffer = Buffer.alloc(0);
  let busy = false;
  socket.setTimeout(idleMs, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  const drain = async (): Promise<void> => {
    busy = true;
    socket.pause();
    while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
      const length = buffered.readUInt16BE(0);
      const msg = buffered.subarray(2, 2 + length);
      buffered = buffered.subarray(2 + length);
      const reply = await handleMessage(context, Buffer.from(msg), 'tcp');
      if (socket.destroyed) return;
      if (reply) {
        const framed = Buffer.alloc(2 + reply.length);
        framed.writeUInt16BE(reply.length, 0);
        reply.copy(framed, 2);
        socket.write(framed);
      }
    }
    busy = false;
    socket.resume();
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    if (!busy) void drain();
  });
}
