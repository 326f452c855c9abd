/**
 * One call to a scheduler process's HTTP API for the scheduler benchmarks (no token: their
 * agents run without ACLs).
 * @module
 */

/** `method path` on `base` with `body` as JSON; the parsed reply. @throws Error naming the call on any status but 200. */
export async function schedApi<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text) as T;
}
