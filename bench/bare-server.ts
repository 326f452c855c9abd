/**
 * The listening part of the bench's bare node:http baselines (bench/child.ts `bare`,
 * bench/secrets-transit.ts `bare-aes`): the server on a free 127.0.0.1 port with the same
 * keep-alive as the services, its request count as its stats, and a close that ends the
 * load generator's open connections.
 */
import type { Server } from 'node:http';

/** A listening bare server as bench/child.ts hands it on. */
export interface BareServer {
  readonly url: string;
  stats(): Record<string, unknown>;
  close(): Promise<void>;
}

/** Listens `server` (named `name` in errors) on 127.0.0.1:0; `requests()` is its count so far. */
export async function listenBare(name: string, server: Server, requests: () => number): Promise<BareServer> {
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error(`${name}: no TCP address`);
  return {
    url: `http://127.0.0.1:${addr.port}`,
    stats: () => ({ requests: requests() }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
