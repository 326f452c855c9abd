/**
 * A raw TCP client for the connection-limit suites (kernel, discovery, scheduler): what a
 * listener sends on a socket and when it closes it, without an HTTP client in between.
 */
import { connect, type Socket } from 'node:net';

/** A raw client socket; `received()` is what came so far, `closed` resolves with all of it once the server closes it. */
export interface RawClient {
  readonly socket: Socket;
  received(): string;
  readonly closed: Promise<string>;
}

/** Connects to `127.0.0.1:port`; resolves once connected. Socket errors are ignored (a refusal shows as `closed`). */
export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((r) => socket.once('close', () => r(data)));
  await new Promise((r) => socket.once('connect', r));
  return { socket, received: () => data, closed };
}

/** Resolves with `p`, or with `'still open'` after `ms`: a deadline on an event that must happen. */
export function within<T>(p: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([p, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref())]);
}
