/**
 * A loopback HTTP proxy for the secrets service's reference-client test
 * (reference-clients.test.ts): the reference's client libraries speak `X-Vault-*` headers,
 * Cairn's secrets service `X-Secrets-*` (spec: the secrets API's headers). The proxy
 * renames request headers `X-Vault-<rest>` to `X-Secrets-<rest>` and response headers
 * back; method, path, query and bodies pass unchanged. It listens with Cairn's own HTTP
 * listener (src/kernel/http), because node:http's server refuses the `LIST` method the
 * clients send (test/mesh/header-proxy.ts, the discovery service's, needs no `LIST`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { listen, type HttpRequest, type HttpResponse } from '../../src/kernel/http/index.js';
import { silentLogger } from '../../src/kernel/log/logger.js';

/** A running proxy: `port` on 127.0.0.1; `close()` stops it. */
export interface VaultHeaderProxy {
  readonly port: number;
  close(): Promise<void>;
}

/** Headers not forwarded: the hop's own, and what fetch sets itself. */
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** `x-vault-*` request headers as `x-secrets-*`, others as they are. */
function requestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP.has(name)) continue;
    out[name.startsWith('x-vault-') ? `x-secrets-${name.slice('x-vault-'.length)}` : name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Sends `req` on to `target` and returns its reply with `x-secrets-*` headers renamed `x-vault-*`. */
async function forward(target: string, req: HttpRequest): Promise<HttpResponse> {
  const path = req.path.split('/').map(encodeURIComponent).join('/');
  const query = req.query.toString();
  const res = await fetch(`${target}${path}${query ? `?${query}` : ''}`, {
    method: req.method,
    headers: requestHeaders(req.headers),
    body: req.body.length > 0 ? new Uint8Array(req.body) : undefined,
    redirect: 'manual',
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!HOP.has(name)) headers[name.startsWith('x-secrets-') ? `x-vault-${name.slice('x-secrets-'.length)}` : name] = value;
  });
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Starts a proxy on 127.0.0.1 port 0 in front of the secrets service at `target` (`http://127.0.0.1:P`). */
export async function startVaultHeaderProxy(target: string): Promise<VaultHeaderProxy> {
  const listener = await listen(
    { address: '127.0.0.1:0' },
    {
      handle: (req) => forward(target, req),
      renderError: (err) => ({ status: 502, headers: { 'content-type': 'text/plain' }, body: `proxy: ${err.message}` }),
    },
    silentLogger(),
  );
  return { port: listener.port, close: () => listener.close() };
}
