/**
 * A loopback HTTP proxy for the reference-client tests (issue 16 "Tests and
 * measurements"): the reference's client libraries speak `X-Consul-*` headers, Cairn's
 * discovery service `X-Mesh-*` (spec 001 "Paths are relative…"; reference/mesh-catalog.md).
 * The proxy renames request headers `X-Consul-<rest>` to `X-Mesh-<rest>` and response
 * headers back, and streams both bodies unchanged. Paths and query parameters pass as
 * they are: they are the same in both.
 */
import { createServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy: `port` on 127.0.0.1; `close()` stops it and drops open connections. */
export interface HeaderProxy {
  readonly port: number;
  close(): Promise<void>;
}

/** `headers` with every name starting `from` (case-insensitive) renamed to start with `to`. */
function renamed(headers: IncomingHttpHeaders, from: string, to: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase().startsWith(from) ? to + name.slice(from.length) : name] = value;
  }
  return out;
}

/** Starts a proxy on 127.0.0.1 port 0 in front of the agent at `target` (`http://127.0.0.1:P`). */
export async function startHeaderProxy(target: string): Promise<HeaderProxy> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...renamed(req.headers, 'x-consul-', 'x-mesh-'), host: upstream.host },
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, renamed(reply.headers, 'x-mesh-', 'x-consul-'));
        reply.pipe(res);
      },
    );
    out.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
