/**
 * `GET /v1/event/stream` (spec 002 "Event stream"; reference/sched.md §3): the cluster's
 * events as newline-delimited JSON, from the event broker (events/).
 *
 * Query: `index` (Go `Atoi`; default 0 = replay every buffered batch; the first batch at or
 * after it is sent, inclusive; a negative value wraps to "after the newest", as the
 * reference's uint conversion), repeated `topic=Topic[:Key]` (none = `*:*`, all topics),
 * `namespace` (default `default`; `*` = every namespace). Token from `X-Sched-Token` or
 * `Authorization: Bearer`.
 *
 * Order of checks, all before the first byte: 400 `Unable to parse index: strconv.Atoi:
 * parsing "x": invalid syntax`; 400 `Invalid topic query: error parsing topics: Invalid key
 * value pair for topic, topic: a:b:c`; 500 `EventBroker not configured`
 * (`enable_event_broker = false`); 403 `Permission denied` for an unknown or expired secret or
 * a topic the token may not read (events-acl.ts). The reference sends its 200 before it checks
 * the token (§3.2); Cairn answers the 403 as a normal plain-text error (reference/README.md
 * rule 3).
 *
 * Then 200 with `Content-Type: application/json` and `Cache-Control: no-cache`, no length:
 * a `{}` heartbeat at once and every `eventHeartbeatMs` (default 30 s), one line
 * `{"Index": N, "Events": [...]}` per committed write with events that pass the filter, until
 * the client leaves or the server ends it with a last line `{"Error": "<why>"}`:
 * `event dropped from buffer: … resubscribe with index=N` (the reader fell behind the buffer),
 * `subscription closed by server, client should resubscribe: token revoked` (its token was
 * deleted) or `…: Permission denied` (a token, policy or role change, or a new namespace
 * under `namespace=*`, took away a privilege), `ACL token expired` (at the token's
 * `ExpirationTime`), `…: event broker shutting down` / `…: server stopping`, `…: the server
 * reloaded its state; resubscribe with index=N` (servers sharing a state on PostgreSQL: a
 * follower that fell behind, a leader that stepped down; agent.ts).
 *
 * Gap: when batches at or after the requested `index` were no longer buffered (the broker's
 * `StartReport.available` false), the reply carries the header
 * `X-Sched-Event-Gap: <index of the first batch served>`; the client missed the batches
 * between its `index` and that one. The reference starts at the oldest held batch silently
 * (§3.3); the header is a Cairn addition that clients not looking for it ignore.
 *
 * @module
 */
import type { Writable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { TOKEN_EXPIRED } from '../acl/index.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx, SchedDeps } from '../deps.js';
import { subscriptionAuthorizer } from '../events-acl.js';
import {
  CLOSED_BY_SERVER,
  DEFAULT_HEARTBEAT_MS,
  parseTopics,
  SubscribeDenied,
  SubscriptionEnded,
  TopicParseError,
  writeNdjson,
  type SubscribeRequest,
  type Subscribed,
  type TopicFilter,
} from '../events/index.js';
import { permissionDeniedError, schedBadRequest, schedInternal, type SchedReply } from '../http.js';
import { DEFAULT_NAMESPACE, T } from '../state.js';

/** Response header naming the first batch index served when the requested one was no longer buffered. */
const EVENT_GAP_HEADER = 'X-Sched-Event-Gap';

/** Longest `setTimeout` delay Node accepts, in ms (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The `index` query value as the reference reads it (Go `strconv.Atoi`, empty = 0). A
 * negative index wraps to a huge unsigned one in the reference, i.e. past the newest batch:
 * here {@link Number.MAX_SAFE_INTEGER}; values above it are clamped to it (no index gets
 * that high). @throws 400 `Unable to parse index: strconv.Atoi: parsing "<v>": invalid syntax`
 * or `…: value out of range` (outside int64).
 */
function parseEventIndex(raw: string | null): number {
  if (raw === null || raw === '') return 0;
  const fail = (why: string) => schedBadRequest(`Unable to parse index: strconv.Atoi: parsing ${JSON.stringify(raw)}: ${why}`);
  if (!/^[+-]?\d+$/.test(raw)) throw fail('invalid syntax');
  const n = BigInt(raw);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw fail('value out of range');
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  return Number(n);
}

/** `topic` values as a filter. @throws 400 with the reference's `Invalid topic query: …` text. */
function topicsOf(ctx: Ctx): TopicFilter {
  try {
    return parseTopics(ctx.query.getAll('topic'));
  } catch (e) {
    if (e instanceof TopicParseError) throw schedBadRequest(e.message);
    throw e;
  }
}

/**
 * Who may stream: a token allowed every requested topic in the namespace (`*`: in every
 * namespace; events-acl.ts). The query's 400s and a missing broker's 500 come first.
 * @throws 400 `Unable to parse index: …`, the topic parser's texts; 500 `EventBroker not configured`.
 */
function streamAccess(ctx: Ctx): SchedAccess {
  parseEventIndex(ctx.query.get('index'));
  const topics = topicsOf(ctx);
  if (!ctx.deps.broker) throw schedInternal('EventBroker not configured');
  return { events: { topics, namespace: ctx.query.get('namespace') || DEFAULT_NAMESPACE } };
}

/**
 * Subscribes and replies with the stream (see the module doc), once its route's rule let the
 * caller in. HEAD gets the same checks and headers without a subscription. The broker checks
 * the subscription again (and again on namespace changes): its refusal is a 403 too.
 */
async function eventStream(ctx: Ctx): Promise<SchedReply> {
  const index = parseEventIndex(ctx.query.get('index'));
  const topics = topicsOf(ctx);
  const namespace = ctx.query.get('namespace') || DEFAULT_NAMESPACE;
  const broker = ctx.deps.broker!;
  const who = ctx.caller;
  const request: SubscribeRequest = { topics, namespace, index, token: { accessor: who.token.AccessorID, secret: ctx.secret ?? '' } };
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (ctx.req.method === 'HEAD') return { empty: true, headers };
  let subscribed: Subscribed;
  try {
    subscribed = await broker.subscribe(request);
  } catch (e) {
    if (e instanceof SubscribeDenied) throw permissionDeniedError();
    throw e;
  }
  const { start } = subscribed;
  if (!start.available) headers[EVENT_GAP_HEADER] = String(start.firstIndex ?? 0);
  const expiresAt = who.token.ExpirationTime === undefined ? undefined : Date.parse(who.token.ExpirationTime);
  const watchNamespaces = namespace === '*' && ctx.deps.config.acl.enabled && !who.management;
  return {
    headers,
    stream: (out, signal) => serve(ctx.deps, subscribed, { request, expiresAt, watchNamespaces }, { out, signal }),
  };
}

/** What {@link serve} watches besides the subscription itself. */
interface Watch {
  readonly request: SubscribeRequest;
  /** Token expiry, epoch ms; undefined: never. */
  readonly expiresAt: number | undefined;
  /** Re-authorise when a namespace is created (`namespace=*` with a non-management token). */
  readonly watchNamespaces: boolean;
}

/** The client's end of an event stream: where events are written, and its leaving. */
interface StreamClient {
  readonly out: Writable;
  /** Aborted when the client leaves or the listener closes. */
  readonly signal: AbortSignal;
}

/**
 * Writes the subscription to `client.out` until it ends: the client leaves or the listener
 * closes (`client.signal`), the agent stops, the token expires, a new namespace is not readable, or the
 * broker ends it (dropped, revoked). Every watcher is removed when it returns.
 */
async function serve(deps: SchedDeps, { subscription: sub }: Subscribed, watch: Watch, { out, signal }: StreamClient): Promise<void> {
  const end = (message: string) => sub.close(new SubscriptionEnded('closed', message));
  const cleanups: (() => void)[] = [];
  const onAbort = (abort: AbortSignal, message: string) => {
    const listener = () => end(message);
    if (abort.aborted) listener();
    abort.addEventListener('abort', listener, { once: true });
    cleanups.push(() => abort.removeEventListener('abort', listener));
  };
  // The client may have left before the stream started: its `close` event is gone then.
  if (out.destroyed || out.writableEnded) return sub.close();
  onAbort(signal, `${CLOSED_BY_SERVER}: connection closed`);
  onAbort(deps.shutdown, `${CLOSED_BY_SERVER}: server stopping`);

  if (watch.expiresAt !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      const left = watch.expiresAt! - deps.now();
      if (left <= 0) return sub.close(new SubscriptionEnded('revoked', TOKEN_EXPIRED));
      timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
      timer.unref();
    };
    arm();
    cleanups.push(() => clearTimeout(timer));
  }

  if (watch.watchNamespaces) {
    const authorize = subscriptionAuthorizer(deps.acl, deps.state, true);
    cleanups.push(
      deps.state.subscribe((batch) => {
        if (!batch.changes.some((c) => c.table === T.namespaces && c.op === 'put' && c.previous === undefined)) return;
        void Promise.resolve(authorize(watch.request)).then(
          (verdict) => verdict.allowed || end(`${CLOSED_BY_SERVER}: ${verdict.reason}`),
          (err: unknown) => end(`${CLOSED_BY_SERVER}: authorization failed: ${err instanceof Error ? err.message : String(err)}`),
        );
      }),
    );
  }

  try {
    await writeNdjson(sub, out, { heartbeatMs: deps.config.eventHeartbeatMs ?? DEFAULT_HEARTBEAT_MS });
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

/** Routes of this file. */
export const eventRoutes: readonly SchedRoute[] = [
  {
    pattern: 'event/stream',
    synopsis: 'Stream cluster events as NDJSON; ?index=, repeated ?topic=Topic[:Key], ?namespace= (`*`: all)',
    methods: {
      GET: {
        access: streamAccess,
        query: {
          index: Type.Integer({ minimum: 0, description: 'Start with the events after this index (the buffer’s oldest when it is older).' }),
          topic: Type.Array(Type.String(), { description: 'Repeatable `Topic[:Key]` (`*` for all); every topic by default.' }),
        },
        handle: eventStream,
      },
    },
  },
];
