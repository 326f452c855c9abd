/**
 * One dispatcher for the two services whose HTTP APIs follow the same family of conventions
 * (discovery: reference/mesh.md §0; scheduler: reference/sched.md §1), over a static route
 * table (DESIGN.md "Routes are data"):
 *
 * - paths under `/v1/`, each with the methods it declares (HEAD is GET);
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
 *   so a client reading right after its write sees it; `?stale` reads skip the barrier.
 *
 * What differs between the services is data: {@link ApiConventions}.
 *
 * @module
 */
import { FORWARDED_ROUTE, labelRoute } from '../metrics/http.js';
import type { Leadership, StateStore } from '../store/index.js';
import { goDurationMs } from '../util/go-duration.js';
import { badRequest, CairnError } from './errors.js';
import { forwardRequest, sendToLeader, type ForwardStyle } from './forward.js';
import { parseJsonBody } from './json-body.js';
import { serviceOpenapiDocument, type OpenApiInfo } from './openapi.js';
import { RouteTable, type CompiledPath, type Operation, type PathSpec, type RouteMatch } from './route.js';
import type { HttpRequest, HttpResponse, HttpService } from './server.js';

/** HTTP methods a route may declare. */
export type ApiMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** What a handler gets. */
export interface ApiContext<D> {
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The request's token secret as the service's conventions find it, or undefined. */
  readonly secret: string | undefined;
  /** The read's consistency mode as the service's conventions name it (`leader`, `stale`, …). */
  readonly consistency: string;
  readonly deps: D;
  /**
   * The JSON body, or undefined when empty. @throws 400 with the text of
   * {@link ApiConventions.decodeError} when it is not JSON, nests too deeply
   * (json-body.ts), or is not an object under {@link ApiConventions.objectBodies}.
   */
  body<T>(kind?: string): T | undefined;
}

/**
 * A handler's reply. `index` marks a read: it sets the query-meta headers. `forwarded` is
 * another server's reply, passed back unchanged. `stream` writes the body itself (the
 * scheduler's event stream); `headers` are added to the service's own.
 */
export interface ApiReply {
  readonly body?: unknown;
  readonly status?: number;
  readonly index?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly forwarded?: HttpResponse;
  readonly stream?: HttpResponse['stream'];
  /** True: no body at all (no `Content-Type`), e.g. the scheduler's DELETE replies. */
  readonly empty?: boolean;
  /**
   * `body` already serialised as compact JSON (exactly `JSON.stringify(body)`), sent as it is
   * unless the request asks for `?pretty` (then `body` is serialised with indentation). A
   * read serves a stored document's rendering kept per version ({@link RenderCache}) so it
   * is not serialised again for every request.
   */
  readonly json?: string;
  /**
   * A body sent as it is instead of JSON from `body`: bytes or text, with its own
   * `Content-Type` when `contentType` is set, else the one in `headers` (metrics in
   * Prometheus text; the discovery service's `?raw` KV reads).
   */
  readonly raw?: { readonly contentType?: string; readonly body: string | Buffer };
}

/** One route: its pattern (kernel route syntax), its methods and the tables a blocking GET waits on. */
export interface ApiRoute<D> {
  readonly pattern: string;
  readonly synopsis: string;
  readonly methods: Partial<Readonly<Record<ApiMethod, (ctx: ApiContext<D>) => Promise<ApiReply>>>>;
  /** Tables whose index a blocking `GET` (`?index=`) waits on. */
  readonly blocking?: readonly string[];
  /**
   * The index the read would report now, when it is finer than the `blocking` tables' (one
   * key, one prefix: reference/mesh.md §0.7, whose blocking loop runs the query again until
   * its own index passes `?index`). A blocking `GET` then waits on the tables again, within
   * the same `?wait`, while this has not passed `?index`. Absent: the tables' index decides.
   */
  readonly resultIndex?: (ctx: ApiContext<D>) => number;
  /**
   * True: the pattern's last parameter (`:name*`) takes the rest of the path as it is, `/`
   * and `.` at its end included, and `''` for the bare prefix (the discovery service's KV
   * keys are free-form; the usual capture rules are for resource names).
   */
  readonly rawTail?: boolean;
  /**
   * Served by the server that received it even when it follows another on a shared state
   * (the discovery agent's `/agent/...` endpoints act on the receiving agent's own node);
   * default false: a follower forwards it to the leader unless it is a GET.
   */
  readonly local?: boolean;
}

/** A plain-text reply of the conventions (unknown path, undeclared method). */
export interface TextReply {
  readonly status: number;
  /** Undefined: no body and no `Content-Type`. */
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What differs between the services that share this dispatcher. */
export interface ApiConventions {
  /** The request's token secret, or undefined (each service reads its own headers). */
  tokenOf(req: HttpRequest): string | undefined;
  /** Reply to a path that is not a route. */
  notFound(): TextReply;
  /** Reply to a method the route does not declare; `allow` lists the declared ones. */
  methodNotAllowed(method: string, allow: readonly string[]): TextReply;
  /** Reply to `OPTIONS`; undefined: `OPTIONS` is a method like any other. */
  options?(allow: readonly string[]): TextReply;
  /** Blocking waits in ms: `defaultMs` when `?wait` is absent, never more than `maxMs`. */
  readonly wait: { readonly defaultMs: number; readonly maxMs: number };
  /** The read's consistency mode from the query. @throws CairnError 400 for a bad combination. */
  consistency(query: URLSearchParams): string;
  /** Whether the reply is indented (`?pretty`: the discovery service takes any value, the scheduler any but `0`). */
  pretty(query: URLSearchParams): boolean;
  /**
   * Query-meta headers of a read whose result is at `index`; `leader` says whether a leader
   * is known and how long ago (ms) a follower last heard of it (0 on the leader or alone).
   */
  queryMeta(index: number, consistency: string, leader: { readonly known: boolean; readonly lastContactMs: number }): Record<string, string>;
  /**
   * Headers on every reply (e.g. the discovery service's default ACL policy): a fresh
   * object on every call, as the dispatcher adds the reply's other headers to it.
   */
  commonHeaders?(): Record<string, string>;
  /** Text of the 400 for a body that is not JSON; `kind` is what the handler asked for. */
  decodeError(why: string, kind: string | undefined): string;
  /**
   * True: every body must be a JSON object; any other JSON value (`123`, `"s"`, `null`,
   * `[]`, `true`) is a 400 with {@link decodeError}'s text before a handler sees it (the
   * discovery service). False or absent: handlers get any JSON value and decode it
   * themselves (the scheduler, with Go's texts).
   */
  readonly objectBodies?: boolean;
  /** Forwarding to other datacenters / regions; absent: never. */
  readonly forward?: {
    /** Query parameter naming the destination (`dc`, `region`). */
    readonly param: string;
    /** This server's own datacenter / region. */
    readonly local: string;
    /** Text of the 500 when no server of the destination is known. */
    readonly noPath: string;
    /** Sends the request there; undefined when no server of it is known. */
    readonly to: (destination: string, req: HttpRequest, secret: string | undefined) => Promise<HttpResponse> | undefined;
  };
}

/** The dispatcher's settings. */
export interface ApiServiceOptions<D> {
  readonly routes: readonly ApiRoute<D>[];
  readonly deps: D;
  readonly state: StateStore;
  readonly conventions: ApiConventions;
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
export const LEADER_FORWARDED_HEADER = 'x-cairn-forwarded-to-leader';
/** The reference products' text when no leader can serve a request (500). */
export const NO_CLUSTER_LEADER = 'No cluster leader';
const ALONE = { known: true, lastContactMs: 0 } as const;

const METHOD_OP: Readonly<Record<ApiMethod, Operation>> = { GET: 'read', PUT: 'update', POST: 'create', DELETE: 'delete' };
/** `Content-Type` of every error and text reply. */
export const PLAIN_TEXT = { 'Content-Type': 'text/plain; charset=utf-8' } as const;

/** Builds an {@link HttpService} from a route table and a service's conventions. */
export function apiHttpService<D>(options: ApiServiceOptions<D>): HttpService {
  const conv = options.conventions;
  let document: unknown;
  const routes: readonly ApiRoute<D>[] = options.openapi
    ? [...options.routes, { pattern: options.openapi.pattern, synopsis: 'This OpenAPI document', methods: { GET: async () => ({ body: document }) } }]
    : options.routes;
  const table = new RouteTable<ApiContext<D>, ApiReply>(
    routes.map((r): PathSpec<ApiContext<D>, ApiReply> => ({
      pattern: r.pattern,
      synopsis: r.synopsis,
      operations: Object.fromEntries(
        Object.entries(r.methods).map(([m, handle]) => [METHOD_OP[m as ApiMethod], { summary: `${m} ${r.pattern}`, handle }]),
      ),
    })),
  );
  // Built once: the table is static.
  if (options.openapi) document = serviceOpenapiDocument(options.openapi.info, [{ prefix: '/', paths: table.paths }], 'http');
  const blockingOf = new Map(routes.map((r) => [r.pattern, r.blocking]));
  const resultIndexOf = new Map(routes.map((r) => [r.pattern, r.resultIndex]));
  const tails = routes.filter((r) => r.rawTail).map((r) => rawTailOf(r.pattern, table.paths.find((p) => p.spec.pattern === r.pattern)!));
  const allowOf = new Map(routes.map((r) => [r.pattern, Object.keys(r.methods)]));
  const localOf = new Set(routes.filter((r) => r.local).map((r) => r.pattern));
  const random = options.random ?? Math.random;
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
      const match = matchRawTail(tails, req.path) ?? (rel === undefined ? undefined : table.match(rel));
      if (!match) return text(conv.notFound());
      labelRoute(req, match.path.spec.pattern);
      const allow = allowOf.get(match.path.spec.pattern)!;
      if (req.method === 'OPTIONS' && conv.options) return text(conv.options(allow));
      const method = (req.method === 'HEAD' ? 'GET' : req.method) as ApiMethod;
      const op = METHOD_OP[method] ? match.path.spec.operations[METHOD_OP[method]] : undefined;
      if (!op) return text(conv.methodNotAllowed(req.method, allow));

      const q = req.query;
      const consistency = conv.consistency(q);
      const leadership = options.leadership;
      if (leadership && !leadership.isLeader) {
        if (method !== 'GET' && !localOf.has(match.path.spec.pattern)) return forwardToLeader(req, leadership, conv.tokenOf(req), options.forwardStyle);
        if (consistency !== 'stale') await leadership.readBarrier();
      }
      const ctx: ApiContext<D> = new RequestContext(req, match.params, conv.tokenOf(req), consistency, options.deps, conv);
      const blocking = method === 'GET' ? blockingOf.get(match.path.spec.pattern) : undefined;
      // `wait` is checked with or without `index`, as the references' parseWait does.
      const waitParam = blocking && q.has('wait') ? goDurationMs(q.get('wait')!) : undefined;
      if (blocking && q.has('wait') && waitParam === undefined) throw badRequest('Invalid wait time');
      if (blocking && q.has('index')) {
        const raw = q.get('index')!;
        if (!/^\d+$/.test(raw)) throw badRequest('Invalid index');
        const after = Number(raw);
        const waitMs = Math.min(waitParam !== undefined && waitParam > 0 ? waitParam : conv.wait.defaultMs, conv.wait.maxMs);
        if (after > 0) await blockUntil(options.state, blocking, after, waitMs + random() * (waitMs / 16), resultIndexOf.get(match.path.spec.pattern), ctx, options.shutdown);
      }
      const reply = (await op.handle(ctx))!;
      if (reply.forwarded) return reply.forwarded;
      // common() is a fresh object: the other headers go into it, no copy.
      const headers = common();
      if (reply.index !== undefined) {
        const leader = leadership ? { known: leadership.knownLeader, lastContactMs: leadership.lastContactMs } : ALONE;
        Object.assign(headers, conv.queryMeta(reply.index, consistency, leader));
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
export async function forwardToLeader(req: HttpRequest, leadership: Leadership, secret: string | undefined, style: ForwardStyle | undefined): Promise<HttpResponse> {
  if (req.headers[LEADER_FORWARDED_HEADER] !== undefined || !style) throw new CairnError('internal', NO_CLUSTER_LEADER);
  try {
    return await sendToLeader({
      leader: () => leadership.leaderAddress,
      refreshLeader: () => leadership.refreshLeader(),
      send: (address) => forwardRequest(style, req, address, secret, undefined, { [LEADER_FORWARDED_HEADER]: '1' }),
    });
  } catch {
    throw new CairnError('internal', NO_CLUSTER_LEADER);
  }
}

/**
 * Waits (at most `timeoutMs`) until `tables` pass `after`, then, with `resultIndex`, again
 * within the same deadline while the read's own index has not passed `after` (a change
 * elsewhere in the tables woke it). Returns early when `signal` aborts.
 */
async function blockUntil<D>(
  state: StateStore,
  tables: readonly string[],
  after: number,
  timeoutMs: number,
  resultIndex: ((ctx: ApiContext<D>) => number) | undefined,
  ctx: ApiContext<D>,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = after;
  for (;;) {
    if (resultIndex && resultIndex(ctx) > after) return;
    seen = await state.watch(tables, seen, deadline - Date.now(), signal);
    if (!resultIndex || signal?.aborted || Date.now() >= deadline) return;
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
class RequestContext<D> implements ApiContext<D> {
  readonly query: URLSearchParams;

  constructor(
    readonly req: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly secret: string | undefined,
    readonly consistency: string,
    readonly deps: D,
    private readonly conv: ApiConventions,
  ) {
    this.query = req.query;
  }

  body<T>(kind?: string): T | undefined {
    return parseBody<T>(this.req.body, kind, this.conv);
  }
}

function parseBody<T>(body: Buffer, kind: string | undefined, conv: ApiConventions): T | undefined {
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
  return value as T;
}
