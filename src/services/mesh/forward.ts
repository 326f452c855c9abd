/**
 * Forwarding a request to another datacenter's server over its HTTP API: `?dc=` on any
 * request (reference/mesh.md §0.8), and writes of global ACL objects sent to a secondary
 * datacenter, which go to the primary (§2.4). The reply is passed back as it came.
 *
 * @module
 */
import type { HttpRequest, HttpResponse } from '../../kernel/http/index.js';

/** Time a forwarded request may take, in ms (a blocking query's longest wait plus margin). */
export const FORWARD_TIMEOUT_MS = 11 * 60_000;

/** Headers passed back from the answering server. */
const KEEP = /^(content-type|allow|x-mesh-.*)$/i;

/**
 * Sends `req` (method, path, query, body, token) to `address` (`host:port`) and returns its
 * reply. `query` replaces the request's query when given (e.g. without `dc`).
 * @throws {Error} `rpc error making call: …` when the server cannot be reached.
 */
export async function forwardRequest(req: HttpRequest, address: string, secret: string | undefined, query?: URLSearchParams): Promise<HttpResponse> {
  const q = (query ?? req.query).toString();
  const headers: Record<string, string> = {};
  if (secret !== undefined) headers['X-Mesh-Token'] = secret;
  if (req.body.length > 0) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`http://${address}${req.path}${q ? `?${q}` : ''}`, {
      method: req.method,
      headers,
      body: req.body.length > 0 ? new Uint8Array(req.body) : undefined,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`rpc error making call: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (KEEP.test(k)) out[k] = v;
  });
  return { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()) };
}
