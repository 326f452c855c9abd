/**
 * One dispatcher for the two services whose HTTP APIs follow the same family of conventions
 * (discovery: reference/mesh.md §0; scheduler: reference/sched.md §1), over a static route
 * table (DESIGN.md "Routes are data"):
 *
 * - paths under `/v1/`, each with the methods it declares (HEAD is GET); a `root` route
 *   at `/<pattern>` (well-known documents);
 * - plain-text errors (never JSON), with the texts the service's {@link ApiConventions} give
 *   for an unknown path and a method the path does not declare;
 * - JSON replies, compact unless `?pretty` (4-space indent plus a newline);
 * - blocking queries: `?index=N` on a route that declares `blocking` tables waits until one
 *   of them passes N or `?wait` (a Go duration, capped by the service) plus a random jitter
 *   of up to wait/16 ends (reference/mesh.md §0.7, reference/sched.md §1.5); a route with a
 *   finer index of its own (`resultIndex`: one KV key or prefix) waits again while that
 *   one has not passed N;
 * - `rawTail` routes take the rest of the path as it is (KV keys), and `raw` replies send
 *   bytes instead of JSON;
 * - optionally its OpenAPI document, generated from the route table (`openapi`);
 * - a request naming another datacenter / region in the service's forwarding query
 *   parameter (`dc`, `region`) goes to a server there; none known → 500 with the service's text;
 * - query-meta headers on reads (`X-<Service>-Index`, `KnownLeader`, `LastContact`, …);
 * - several servers sharing one state (issue 8 scope 3, kernel/store/leadership.ts): a
 *   follower forwards every request that may write (any method but GET) to the leader,
 *   once (a forwarded request that meets a follower again → 500 `No cluster leader`, as
 *   when no leader is known or reachable), and serves reads itself after a read barrier,
 *   so a client reading right after its write sees it; `?stale` reads skip the barrier;
 *   an operation's `forward` changes that ({@link ApiForward});
 * - every operation declares who may call it ({@link ApiOperation.access}): the kernel
 *   resolves the caller and checks the rule before the handler runs (issue 25; a table
 *   with an operation that declares none stops start-up).
 *
 * What differs between the services is data: {@link ApiConventions}.
 *
 * @module
 */
import { Type, type TObject } from '@sinclair/typebox';
import { FORWARDED_ROUTE, labelRoute } from '../metrics/http.js';
import type { Leadership, StateStore } from '../store/index.js';
import { goDurationMs } from '../util/go-duration.js';
import { badRequest, CairnError } from './errors.js';
import { forwardRequest, sendToLeader, type ForwardStyle } from './forward.js';
import { parseJsonBody } from './json-body.js';
import { WokenReplies } from './woken-replies.js';
import { serviceOpenapiDocument, type OpenApiInfo } from './openapi.js';
import { RouteTable, type CompiledPath, type Operation, type PathSpec, type RouteMatch } from './route.js';
import {
  PUBLIC,
  type ApiConventions,
  type ApiContext,
  type ApiMethod,
  type ApiOperation,
  type ApiQuery,
  type ApiReply,
  type ApiRoute,
  type Public,
  type TextReply,
} from './api-route.js';
import type { HttpRequest, HttpResponse, HttpService } from './server.js';

/** The dispatcher's settings. */
export interface ApiServiceOptions<D, A, I> {
  readonly routes: readonly ApiRoute<D, A, I>[];
  readonly deps: D;
  readonly state: StateStore;
  readonly conventions: ApiConventions<A, I>;
  /** Random number in [0, 1) for the blocking-query jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Aborted when the agent stops: blocking queries then return at once. */
  readonly shutdown?: AbortSignal;
  /** Several servers on one shared state: who leads (see the module doc); absent: this server alone. */
  readonly leadership?: Leadership;
  /** How a follower forwards requests to the leader (the service's token header, reply headers kept). */
  readonly forwardStyle?: ForwardStyle;
  /**
   * Publishes the service's OpenAPI document, generated from `routes` (this one included),
   * as `GET /v1/<pattern>`, without a token: it describes the static route table only.
   */
  readonly openapi?: { readonly pattern: string; readonly info: OpenApiInfo };
}

/** Marks a request a follower forwarded to the leader, so it is never forwarded twice. */
const LEADER_FORWARDED_HEADER = 'x-cairn-forwarded-to-leader';
/** The reference products' text when no leader can serve a request (500). */
const NO_CLUSTER_LEADER = 'No cluster leader';
const ALONE = { known: true, lastContactMs: 0 } as const;

const METHOD_OP: Readonly<Record<ApiMethod, Operation>> = { GET: 'read', PUT: 'update', POST: 'create', DELETE: 'delete' };
/** The query parameters of a blocking read (reference/mesh.md §0.7, reference/sched.md §1.5). */
const BLOCKING_QUERY: ApiQuery = {
  index: Type.Integer({ minimum: 0, description: 'Blocking query: wait until the result index passes this one.' }),
  wait: Type.String({ description: 'Blocking query: the longest wait, a Go duration such as `30s` (capped by the service).' }),
};

/** `Content-Type` of every error and text reply. */
const PLAIN_TEXT = { 'Content-Type': 'text/plain; charset=utf-8' } as const;

/**
 * Builds an {@link HttpService} from a route table and a service's conventions. Each request
 * passes, in order: `?dc=`/`?region=` forwarding, routing (404/405/`OPTIONS` in the service's
 * texts), the operation's `forward` (primary, then leader), a blocking read's `?wait` and
 * `?index` (their 400s), the declared body (the service's `beforeBody` check, then its
 * decoding: 400s naming the field), the access rule (the caller is resolved and checked by
 * {@link ApiConventions.authorize}), the blocking wait, the handler; with
 * {@link ApiConventions.accessAfterWait}, the access rule again after the wait.
 * @throws Error at start-up when an operation declares no access rule, naming method and
 *   pattern (DESIGN.md "Routes are data": a route cannot be added without saying who may call it).
 */
export function apiHttpService<D, A, I>(options: ApiServiceOptions<D, A, I>): HttpService {
  const conv = options.conventions;
  let document: unknown;
  const openapiRoute: ApiRoute<D, A, I> | undefined = options.openapi && {
    pattern: options.openapi.pattern,
    synopsis: 'This OpenAPI document',
    // It describes the static route table only, as the reference's own documents do.
    methods: { GET: { access: PUBLIC, handle: async () => ({ body: document }) } },
  };
  const routes: readonly ApiRoute<D, A, I>[] = openapiRoute ? [...options.routes, openapiRoute] : options.routes;
  for (const r of routes) {
    for (const [method, op] of Object.entries(r.methods)) {
      if (op?.access === undefined || op.access === null) throw new Error(`route ${method} /v1/${r.pattern}: no access rule (declare the rule, or PUBLIC)`);
      if (op.body && !conv.decodeBody) throw new Error(`route ${method} /v1/${r.pattern}: declares a body, but the service decodes none`);
    }
  }
  // Every query parameter an operation may read, its own and the service's: computed once.
  const queryOf = new Map<ApiOperation<D, A, I>, ApiQuery>();
  for (const r of routes) {
    for (const [m, op] of Object.entries(r.methods)) {
      const read = m === 'GET' ? { ...conv.readQuery, ...(r.blocking && BLOCKING_QUERY) } : {};
      queryOf.set(op!, { ...conv.query, ...read, ...op!.query });
    }
  }
  const allowedOf = new Map([...queryOf].map(([op, q]) => [op, new Set(Object.keys(q))]));
  const toSpec = (r: ApiRoute<D, A, I>): PathSpec<ApiContext<D, I>, ApiReply> => ({
    pattern: r.pattern,
    synopsis: r.synopsis,
    operations: Object.fromEntries(
      Object.entries(r.methods).map(([m, op]) => {
        const query = queryOf.get(op!)!;
        // The document shows a read's or delete's query parameters as its fields, a write's beside its body.
        const fields = op!.body ? { fields: op!.body.properties, query } : m === 'GET' || m === 'DELETE' ? { fields: query } : { query };
        return [METHOD_OP[m as ApiMethod], { summary: `${m} ${r.pattern}`, handle: op!.handle, ...fields }];
      }),
    ),
  });
  const table = new RouteTable<ApiContext<D, I>, ApiReply>(routes.filter((r) => !r.root).map(toSpec));
  // Routes served outside `/v1/` (well-known documents): matched on the whole path.
  const rootTable = new RouteTable<ApiContext<D, I>, ApiReply>(routes.filter((r) => r.root).map(toSpec));
  // Built once: the table is static.
  if (options.openapi) document = serviceOpenapiDocument(options.openapi.info, [{ prefix: '/', paths: table.paths }], 'http');
  const routeOf = new Map(routes.map((r) => [r.pattern, r]));
  const tails = routes
    .filter((r) => r.rawTail)
    .map((r) =>
      rawTailOf(
        r.pattern,
        table.paths.find((p) => p.spec.pattern === r.pattern)!,
      ),
    );
  const random = options.random ?? Math.random;
  const wokenReplies = new WokenReplies<ApiReply>();
  const common = () => conv.commonHeaders?.() ?? {};
  const text = (t: TextReply): HttpResponse => ({
    status: t.status,
    headers: { ...(t.body === undefined ? {} : PLAIN_TEXT), ...common(), ...t.headers },
    body: t.body,
  });

  return {
    async handle(req: HttpRequest): Promise<HttpResponse> {
      const fwd = conv.forward;
      const destination = fwd ? req.query.get(fwd.param) : null;
      if (fwd && destination && destination !== fwd.local) {
        labelRoute(req, FORWARDED_ROUTE);
        const forwarded = fwd.to(destination, req, conv.tokenOf(req));
        if (!forwarded) throw new CairnError('internal', fwd.noPath);
        return forwarded;
      }
      const rel = req.path.startsWith('/v1/') ? req.path.slice(4).replace(/\/$/, '') : undefined;
      const match = matchRawTail(tails, req.path) ?? (rel === undefined ? rootTable.match(req.path.slice(1)) : table.match(rel));
      if (!match) return text(conv.notFound());
      const pattern = match.path.spec.pattern;
      labelRoute(req, pattern);
      const route = routeOf.get(pattern)!;
      const allow = Object.keys(route.methods);
      if (req.method === 'OPTIONS' && conv.options) return text(conv.options(allow));
      const method = (req.method === 'HEAD' ? 'GET' : req.method) as ApiMethod;
      const op = METHOD_OP[method] ? route.methods[method] : undefined;
      if (!op) return text(conv.methodNotAllowed(req.method, allow));

      const q = req.query;
      const consistency = conv.consistency(q);
      const ctx = new RequestContext<D, I>(req, options.deps, conv, {
        params: match.params,
        secret: conv.tokenOf(req),
        consistency,
        schema: op.body,
        bodyKind: op.bodyKind,
        allowed: allowedOf.get(op)!,
      });
      const forward = typeof op.forward === 'function' ? op.forward(ctx) : op.forward;
      if (forward === 'primary' && conv.primary) {
        const forwarded = conv.primary(ctx);
        if (forwarded) return forwarded;
      }
      const leadership = options.leadership;
      if (leadership && !leadership.isLeader && forward !== 'local') {
        if (method !== 'GET' || forward === 'leader') return forwardToLeader(req, leadership, ctx.secret, options.forwardStyle);
        if (consistency !== 'stale') await leadership.readBarrier();
      }
      const blocking = method === 'GET' ? route.blocking : undefined;
      // `wait` is checked with or without `index`, as the references' parseWait does, and
      // before the access rule: the references parse the query before their ACL check.
      const waitParam = blocking && q.has('wait') ? goDurationMs(q.get('wait')!) : undefined;
      if (blocking && q.has('wait') && waitParam === undefined) throw badRequest('Invalid wait time');
      const rawIndex = blocking ? q.get('index') : null;
      if (rawIndex !== null && !/^\d+$/.test(rawIndex)) throw badRequest('Invalid index');
      // Decoded here at the latest, before the access rule (a `forward` function may have read it
      // already); what the service checks before any body is read comes first.
      if (op.body) {
        if (conv.beforeBody && typeof op.access !== 'function' && op.access !== PUBLIC) conv.beforeBody(op.access as A, ctx);
        ctx.input();
      }
      const check = () => {
        const rule = typeof op.access === 'function' ? (op.access as (c: ApiContext<D, I>) => A | Public)(ctx) : op.access;
        if (rule !== PUBLIC) ctx.setCaller(conv.authorize(rule as A, ctx));
      };
      check();
      let woken = false;
      if (blocking && rawIndex !== null) {
        const after = Number(rawIndex);
        const waitMs = Math.min(waitParam !== undefined && waitParam > 0 ? waitParam : conv.wait.defaultMs, conv.wait.maxMs);
        if (after > 0) {
          await blockUntil({
            state: options.state,
            tables: blocking,
            after,
            timeoutMs: waitMs + random() * (waitMs / 16),
            resultIndex: route.resultIndex,
            ctx,
            signal: options.shutdown,
          });
          // Again on the state the reply comes from: a client whose node was purged during its watch learns it now.
          if (conv.accessAfterWait) check();
          woken = true;
        }
      }
      // The reads one change woke together share one rendering (woken-replies.ts).
      const reply = woken ? await wokenReplies.reply(req, ctx.secret, options.state.index, () => serialised(op.handle(ctx))) : await op.handle(ctx);
      if (reply.forwarded) return reply.forwarded;
      // common() is a fresh object: the other headers go into it, no copy.
      const headers = common();
      if (reply.index !== undefined) {
        const leader = leadership ? { known: leadership.knownLeader, lastContactMs: leadership.lastContactMs } : ALONE;
        // A blocking read never answers index 0: sent back as `?index=0` it would not block, and
        // a watcher of an empty table would poll in a loop (the references floor it at 1 too).
        Object.assign(headers, conv.queryMeta(blocking ? Math.max(1, reply.index) : reply.index, consistency, leader));
      }
      if (reply.headers) Object.assign(headers, reply.headers);
      if (reply.stream) return { status: reply.status ?? 200, headers, stream: reply.stream };
      if (reply.empty) return { status: reply.status ?? 200, headers };
      if (reply.raw) {
        const typed = reply.raw.contentType ? { ...headers, 'Content-Type': reply.raw.contentType } : headers;
        return { status: reply.status ?? 200, headers: typed, body: reply.raw.body };
      }
      headers['Content-Type'] = 'application/json';
      const body = conv.pretty(q) ? `${JSON.stringify(reply.body, null, 4)}\n` : (reply.json ?? JSON.stringify(reply.body));
      return { status: reply.status ?? 200, headers, body };
    },
    renderError(err: CairnError): HttpResponse {
      return { status: err.status, headers: { ...PLAIN_TEXT, ...common() }, body: err.messages.join('; ') || err.message };
    },
  };
}

/**
 * Sends `req` to the leader, once; for a follower's writes, and for the few reads only the
 * leader can answer (e.g. replication status). A refused connection to the leader this
 * server knows of is retried at the leader read now ({@link sendToLeader}).
 * @throws CairnError 500 `No cluster leader` when no leader is known or reachable, or
 *   `req` was already forwarded once.
 */
export async function forwardToLeader(
  req: HttpRequest,
  leadership: Leadership,
  secret: string | undefined,
  style: ForwardStyle | undefined,
): Promise<HttpResponse> {
  if (req.headers[LEADER_FORWARDED_HEADER] !== undefined || !style) throw new CairnError('internal', NO_CLUSTER_LEADER);
  try {
    return await sendToLeader({
      leader: () => leadership.leaderAddress,
      refreshLeader: () => leadership.refreshLeader(),
      send: (address) => forwardRequest(style, req, { address, secret, extra: { [LEADER_FORWARDED_HEADER]: '1' } }),
    });
  } catch {
    throw new CairnError('internal', NO_CLUSTER_LEADER);
  }
}

/** `reply` with its JSON body serialised once (a shared reply is written many times). */
async function serialised(reply: Promise<ApiReply>): Promise<ApiReply> {
  const r = await reply;
  return r.body !== undefined && r.json === undefined && !r.raw && !r.stream && !r.empty ? { ...r, json: JSON.stringify(r.body) } : r;
}

/** What {@link blockUntil} waits for. */
interface BlockingWait<D, I> {
  readonly state: StateStore;
  readonly tables: readonly string[];
  /** The `?index` the caller has seen. */
  readonly after: number;
  readonly timeoutMs: number;
  readonly resultIndex: ((ctx: ApiContext<D, I>) => number) | undefined;
  readonly ctx: ApiContext<D, I>;
  /** Aborted when the agent stops: the wait returns at once. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Waits (at most `timeoutMs`) until `tables` pass `after`, then, with `resultIndex`, again
 * within the same deadline while the read's own index has not passed `after` (a change
 * elsewhere in the tables woke it). Returns early when `signal` aborts.
 */
async function blockUntil<D, I>(w: BlockingWait<D, I>): Promise<void> {
  const deadline = Date.now() + w.timeoutMs;
  let seen = w.after;
  for (;;) {
    if (w.resultIndex && w.resultIndex(w.ctx) > w.after) return;
    seen = await w.state.watch(w.tables, seen, deadline - Date.now(), w.signal);
    if (!w.resultIndex || w.signal?.aborted || Date.now() >= deadline) return;
  }
}

/** A `rawTail` route: the path prefix its tail follows (`/v1/kv`) and its parameter's name. */
interface RawTail<C, R> {
  readonly base: string;
  readonly name: string;
  readonly path: CompiledPath<C, R>;
}

function rawTailOf<C, R>(pattern: string, path: CompiledPath<C, R>): RawTail<C, R> {
  const m = /^(.*)\/:([A-Za-z_][A-Za-z0-9_]*)\*$/.exec(pattern);
  if (!m) throw new Error(`route pattern "${pattern}": a rawTail route must end in "/:name*"`);
  return { base: `/v1/${m[1]}`, name: m[2]!, path };
}

/** The match of the first `rawTail` route `path` falls under, the rest of the path as its parameter. */
function matchRawTail<C, R>(tails: readonly RawTail<C, R>[], path: string): RouteMatch<C, R> | undefined {
  for (const t of tails) {
    if (path === t.base) return { path: t.path, params: { [t.name]: '' } };
    if (path.startsWith(`${t.base}/`)) return { path: t.path, params: { [t.name]: path.slice(t.base.length + 1) } };
  }
  return undefined;
}

/**
 * The {@link ApiContext} of one request. A class rather than an object literal with a
 * `body` closure: one allocation per request instead of two.
 */
class RequestContext<D, I> implements ApiContext<D, I> {
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  readonly secret: string | undefined;
  readonly consistency: string;
  private resolved = false;
  private who: I | undefined;
  private parsed: unknown = NOT_PARSED;
  private decoded: unknown = NOT_PARSED;
  /** The operation's declared body. */
  private readonly schema: TObject | undefined;
  /** What the service's not-JSON text calls it (the operation's `bodyKind`). */
  private readonly bodyKind: string | undefined;

  constructor(
    readonly req: HttpRequest,
    readonly deps: D,
    private readonly conv: ApiConventions<unknown, I>,
    read: Pick<ApiContext<D, I>, 'params' | 'secret' | 'consistency'> & {
      readonly schema: TObject | undefined;
      readonly bodyKind: string | undefined;
      /** The query parameters the operation may read. */
      readonly allowed: ReadonlySet<string>;
    },
  ) {
    this.query = declaredOnly(req.query, read.allowed);
    this.params = read.params;
    this.secret = read.secret;
    this.consistency = read.consistency;
    this.schema = read.schema;
    this.bodyKind = read.bodyKind;
  }

  get caller(): I {
    if (!this.resolved) throw new Error(`${this.req.method} ${this.req.path}: a PUBLIC operation has no caller`);
    return this.who as I;
  }

  /** Set once by the dispatcher after the access rule passed. */
  setCaller(who: I): void {
    this.who = who;
    this.resolved = true;
  }

  input<T>(): T | undefined {
    // Decoded once, on the first read: a `forward` function's, else the dispatcher's before the access rule.
    if (this.decoded === NOT_PARSED)
      this.decoded = this.schema && this.req.body.length > 0 ? this.conv.decodeBody!(this.schema, this.body(this.bodyKind)) : undefined;
    return this.decoded as T | undefined;
  }

  body<T>(kind?: string): T | undefined {
    // Parsed once: an access rule computed from the body and the handler both read it.
    if (this.parsed === NOT_PARSED) this.parsed = parseBody(this.req.body, kind, this.conv);
    return this.parsed as T | undefined;
  }
}

/** `query` without the parameters `allowed` does not name; `query` itself when it has none (the usual case: no copy). */
function declaredOnly(query: URLSearchParams, allowed: ReadonlySet<string>): URLSearchParams {
  for (const k of query.keys()) if (!allowed.has(k)) return new URLSearchParams([...query].filter(([name]) => allowed.has(name)));
  return query;
}

/** {@link RequestContext.body} and {@link RequestContext.input} before their first call. */
const NOT_PARSED = Symbol('not parsed');

function parseBody(body: Buffer, kind: string | undefined, conv: ApiConventions<unknown, unknown>): unknown {
  if (body.length === 0) return undefined;
  let value: unknown;
  try {
    value = parseJsonBody(body);
  } catch (err) {
    throw badRequest(conv.decodeError((err as Error).message, kind));
  }
  if (conv.objectBodies && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw badRequest(conv.decodeError(`the body must be a JSON object, not ${got}`, kind));
  }
  return value;
}
