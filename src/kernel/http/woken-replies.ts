/**
 * One reply for the blocking reads one change wakes together (issue 30 item 2): a thousand
 * watchers of `GET /v1/health/service/web?index=N` with the same token are woken by the same
 * commit, in the same event-loop turn, and would each run the handler and serialise the same
 * JSON. The first of them renders; the others of that turn get its reply (the access rule
 * still runs for each). A reply is shared only between requests alike in everything a
 * handler reads — method, path, query, token and the `X-` headers — at the same state index,
 * and only within the event-loop turn it was made in: the next turn starts empty, so nothing
 * is kept and nothing goes stale.
 *
 * @module
 */
import type { HttpRequest } from './exchange.js';

/** Renderings of this turn: request key → the state index it was made at and the reply. */
export class WokenReplies<R> {
  private readonly made = new Map<string, { readonly index: number; readonly reply: Promise<R> }>();
  private clearing = false;

  /**
   * The reply of the request like `req` (its token `secret`) already made at state `index`
   * in this event-loop turn, else `make()`'s, kept for the rest of the turn. A rejected
   * `make()` is shared too: requests alike fail alike.
   */
  reply(req: HttpRequest, secret: string | undefined, index: number, make: () => Promise<R>): Promise<R> {
    const key = requestKey(req, secret);
    const hit = this.made.get(key);
    if (hit !== undefined && hit.index === index) return hit.reply;
    const reply = make();
    this.made.set(key, { index, reply });
    if (!this.clearing) {
      this.clearing = true;
      setImmediate(() => {
        this.made.clear();
        this.clearing = false;
      });
    }
    return reply;
  }
}

/** What makes two requests alike for a handler: method, path, query, token and `X-` headers. */
function requestKey(req: HttpRequest, secret: string | undefined): string {
  let key = `${req.method} ${req.path}?${req.query.toString()}\n${secret ?? ''}`;
  for (const name of Object.keys(req.headers).sort()) if (name.startsWith('x-')) key += `\n${name}:${String(req.headers[name])}`;
  return key;
}
