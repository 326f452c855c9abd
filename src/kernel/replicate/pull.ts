/**
 * One read of the replication source over its HTTP API.
 *
 * @module
 */

/** A JSON reply of the source and its index header. */
export interface PulledReply {
  readonly body: unknown;
  readonly index: number;
}

/**
 * GETs `url` with `headers` (the token) and returns the parsed JSON body and the number in
 * header `indexHeader`. `stop` aborts it (the loops' signal); `what` starts error messages.
 * @throws {Error} `<what>: rpc error making call: <cause>` when the source cannot be reached;
 *   `<what>: <status> (<body>)` for a status other than 200.
 */
export async function pullJson(
  url: string,
  { headers, indexHeader, stop, what }: { headers: Record<string, string>; indexHeader: string; stop: AbortSignal; what: string },
): Promise<PulledReply> {
  // One signal per request, tied to the stop signal only while the request runs: handing
  // the long-lived stop signal to every fetch leaves a listener behind per request until
  // garbage collection (nodejs/node#52635).
  const request = new AbortController();
  const abort = () => request.abort();
  stop.addEventListener('abort', abort, { once: true });
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { headers, signal: request.signal });
    text = await res.text();
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`${what}: rpc error making call: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  } finally {
    stop.removeEventListener('abort', abort);
  }
  if (res.status !== 200) throw new Error(`${what}: ${res.status} (${text.trim()})`);
  return { body: JSON.parse(text), index: Number(res.headers.get(indexHeader) ?? 0) };
}
