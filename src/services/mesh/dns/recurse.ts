/**
 * Forwards a query for a name outside the agent's domain to the `recursors` (issue 16
 * scope 7; the reference's `handleRecurse`): each in turn over UDP, until one answers
 * NOERROR or NXDOMAIN within `dns_config.recursor_timeout`; its reply is passed back as it
 * came (its truncation included: the client retries over TCP and the agent asks again).
 *
 * @module
 */
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import { decode } from 'dns-packet';

/** Largest UDP reply accepted from a recursor, in bytes (anything longer is not DNS). */
const MAX_REPLY = 65_535;

/**
 * Sends `query` (an encoded DNS message) to each of `recursors` (`host:port`) in order and
 * resolves with the first reply whose id matches and whose response code is NOERROR or
 * NXDOMAIN; undefined when every one failed, timed out (`timeoutMs` each) or refused.
 * Never rejects.
 */
export async function recurse(query: Buffer, recursors: readonly string[], timeoutMs: number): Promise<Buffer | undefined> {
  const id = query.readUInt16BE(0);
  for (const recursor of recursors) {
    const reply = await exchange(query, recursor, timeoutMs).catch(() => undefined);
    if (!reply) continue;
    try {
      const p = decode(reply);
      const rcode = reply.readUInt16BE(2) & 0xf;
      if (p.id === id && p.type === 'response' && (rcode === 0 || rcode === 3)) return reply;
    } catch {
      // Not a DNS message: try the next recursor.
    }
  }
  return undefined;
}

/** One UDP exchange with `recursor`: the first datagram from its address, or undefined after `timeoutMs`. */
function exchange(query: Buffer, recursor: string, timeoutMs: number): Promise<Buffer | undefined> {
  const at = recursor.lastIndexOf(':');
  const host = recursor.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  const port = Number(recursor.slice(at + 1));
  const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  return new Promise<Buffer | undefined>((resolve) => {
    let finished = false;
    const done = (reply: Buffer | undefined) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on('error', () => done(undefined));
    socket.on('message', (msg, from) => {
      // A datagram from anyone else is not the answer.
      if (from.address === host && from.port === port && msg.length <= MAX_REPLY) done(msg);
    });
    socket.send(query, port, host);
  });
}
