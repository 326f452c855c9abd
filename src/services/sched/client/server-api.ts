/**
 * The client agent's calls to the servers' HTTP API (the reference's client uses RPC; Cairn's
 * clients use the routes the servers serve for them: `PUT /v1/node/register`, `POST
 * /v1/node/:id/status`, `GET /v1/node/:id/allocations`, `POST
 * /v1/allocation/:id/client-status`). A server that cannot be reached, or answers 5xx (no
 * leader yet, a leader that cannot be reached to forward to), is skipped for the next one in
 * the list; the one that answered is tried first next time. Followers forward the writes to
 * their leader, so the client follows the leader through whichever server answers.
 *
 * @module
 */

/** A reply with a status other than 2xx. */
export class ServerError extends Error {
  constructor(
    readonly status: number,
    text: string,
  ) {
    super(`HTTP ${status}: ${text}`);
  }
}

/** A JSON reply and its `X-Sched-Index`. */
export interface ServerReply<T> {
  readonly body: T;
  readonly index: number;
}

/** Calls to the servers, rotating through `servers` (`host:port`) when one is unreachable. */
export class ServerApi {
  private next = 0;

  /** @param servers `host:port` of each server (at least one; a function: the agent's own address is known once listening). */
  constructor(private readonly servers: () => readonly string[]) {}

  /**
   * Sends `method path` with `token` in `X-Sched-Token` and `body` as JSON.
   * @throws {ServerError} for a non-2xx reply; the last network error when no server answers;
   *   an abort error when `signal` aborts.
   */
  async call<T>(method: string, path: string, o: { token?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<ServerReply<T>> {
    const list = this.servers();
    let lastErr: unknown = new Error('no servers configured');
    for (let i = 0; i < list.length; i++) {
      const server = list[(this.next + i) % list.length]!;
      let res: Response;
      try {
        res = await fetch(`http://${server}${path}`, {
          method,
          headers: { ...(o.token && { 'X-Sched-Token': o.token }), ...(o.body !== undefined && { 'Content-Type': 'application/json' }) },
          body: o.body === undefined ? undefined : JSON.stringify(o.body),
          signal: o.signal,
        });
      } catch (err) {
        if (o.signal?.aborted) throw err;
        lastErr = err;
        continue;
      }
      const text = await res.text();
      if (res.status >= 500 && i < list.length - 1) {
        lastErr = new ServerError(res.status, text.trim());
        continue;
      }
      this.next = (this.next + i) % list.length;
      if (res.status < 200 || res.status > 299) throw new ServerError(res.status, text.trim());
      return { body: (text === '' ? undefined : JSON.parse(text)) as T, index: Number(res.headers.get('x-sched-index') ?? 0) };
    }
    this.next = (this.next + 1) % Math.max(1, list.length);
    throw lastErr;
  }
}
