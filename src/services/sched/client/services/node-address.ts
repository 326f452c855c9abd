/**
 * The address a client advertises its allocations' services at when a service names a port
 * number rather than a port label (a label's port carries its own `HostIP`): the host of the
 * node's HTTP address, or, when that listens on every interface (`0.0.0.0`, `::`), the
 * host's first non-internal IPv4 address (the reference advertises the node's address).
 *
 * @module
 */
import { networkInterfaces } from 'node:os';

/** The host to advertise for `httpAddr` (`host:port` or `[v6]:port`). */
export function advertisedHost(httpAddr: string): string {
  const host = httpAddr.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  if (host !== '' && host !== '0.0.0.0' && host !== '::') return host;
  for (const list of Object.values(networkInterfaces())) {
    const v4 = list?.find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) return v4.address;
  }
  return '127.0.0.1';
}
