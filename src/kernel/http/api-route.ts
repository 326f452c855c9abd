/**
 * The route declaration of the discovery service and the scheduler (DESIGN.md "Routes are
 * data", issue 25): a route's pattern, its operations — each with who may call it
 * ({@link ApiOperation.access}), where it runs ({@link ApiOperation.forward}) and its
 * handler — and what a blocking read waits on; what a handler gets and returns; and what
 * differs between the services ({@link ApiConventions}). The dispatcher that enforces it is
 * api-service.ts.
 *
 * @module
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { HttpRequest, HttpResponse } from './exchange.js';

/**
 * Query parameters by name, each a TypeBox schema giving its type and description (the
 * route's OpenAPI parameters). Values reach handlers as text (`ctx.query`): each service
 * parses its parameters the way its reference does, with its texts.
 */
export type ApiQuery = Readonly<Record<string, TSchema>>;

/** HTTP methods a route may declare. */
export type ApiMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** What a handler gets; `I` is the service's caller identity. */
export interface ApiContext<D, I = unknown> {
  readonly req: HttpRequest;
  /**
   * The caller the kernel resolved and checked against the operation's access rule before
   * the handler ran (the value {@link ApiConventions.authorize} returned).
   * @throws Error (a 500: a programming error) on a {@link PUBLIC} operation, which resolves no caller.
   */
  readonly caller: I;
  readonly params: Readonly<Record<string, string>>;
  /**
   * The query parameters the operation declares ({@link ApiOperation.query}), those every
   * request of the service takes ({@link ApiConventions.query}) and, on a read, its consistency
   * and blocking parameters; any other parameter is left out, so a handler cannot read one
   * its route does not declare.
   */
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
  /**
   * The body decoded against the operation's declared {@link ApiOperation.body} by
   * {@link ApiConventions.decodeBody}, once: on the first read, by a `forward` function that
   * reads it, else by the kernel before the access rule; undefined when the body is empty or
   * the operation declares none. @throws the decoder's 400 (on every read while it fails).
   */
  input<T = Record<string, unknown>>(): T | undefined;
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

/**
 * The access rule of an operation that anyone may call, without a token (status, login,
 * metrics where the reference serves them openly). A route says so explicitly: an
 * operation without a rule stops the service at start-up.
 */
export const PUBLIC = Object.freeze({ public: true as const });
/** The type of {@link PUBLIC}. */
export type Public = typeof PUBLIC;

/**
 * Where an operation runs when its data lives on another server (DESIGN.md "Growing past
 * one machine"): checked by the kernel before the caller and before the handler.
 * - `primary`: in a secondary datacenter / non-authoritative region, the request goes to the
 *   primary / authoritative one ({@link ApiConventions.primary}); there it runs as a write;
 * - `leader`: always answered by the leader of a shared state, reads too (replication
 *   status; lists that call a plugin only the leader drives);
 * - `local`: answered by the server that received it, writes too (the discovery agent's
 *   `/agent/...` endpoints act on its own node).
 * Absent: a follower forwards every method but GET to the leader and serves GETs itself
 * after a read barrier (`?stale` skips it).
 */
export type ApiForward = 'primary' | 'leader' | 'local';

/**
 * One operation of a route: who may call it, where it runs and its handler. `A` is the
 * service's access rule (e.g. the discovery service's resource and access level, the
 * scheduler's namespace capability), `I` its caller identity.
 */
export interface ApiOperation<D, A, I> {
  /**
   * Who may call it: the service's rule, {@link PUBLIC}, or a function of the request that
   * returns either where the reference's rule depends on the request (a KV key, a namespace,
   * a query parameter). The kernel checks it through {@link ApiConventions.authorize} before
   * the handler runs; the handler filters list results where the reference filters, and
   * never guards on its own. A function may throw the 400 the reference answers for the input
   * the rule is computed from.
   */
  readonly access: A | Public | ((ctx: ApiContext<D, I>) => A | Public);
  /**
   * Where it runs ({@link ApiForward}); absent: writes on the leader, reads here. A function of
   * the request where that depends on it (a global ACL token goes to the authoritative region
   * or primary datacenter, a local one does not; undefined: the default). It runs first, before
   * any forwarding, and may throw the 400 the reference answers for the input it reads; reading
   * `ctx.input()` decodes the declared body then, so its 400 comes before any forwarding.
   */
  readonly forward?: ApiForward | ((ctx: ApiContext<D, I>) => ApiForward | undefined);
  /**
   * The request body's fields (a TypeBox object; for the discovery service and the scheduler
   * built with kernel/util/go-schema.ts). The kernel decodes a non-empty body against it with
   * {@link ApiConventions.decodeBody} before the access rule — the references decode before
   * their ACL check — and the route's OpenAPI document shows it. The access rule and the
   * handler read the result as `ctx.input()`.
   */
  readonly body?: TObject;
  /** The query parameters it reads beside the service's own ({@link ApiContext.query}). */
  readonly query?: ApiQuery;
  /**
   * What the service's text for a declared body that is not JSON calls it: the `kind` of
   * {@link ApiConventions.decodeError} (the discovery service's `Policy decoding failed: …`).
   * Absent: the text without one.
   */
  readonly bodyKind?: string;
  /** The handler: it gets the checked caller as `ctx.caller`. */
  readonly handle: (ctx: ApiContext<D, I>) => Promise<ApiReply>;
}

/**
 * An operation with a declared body whose handler gets it decoded and typed (undefined for an
 * empty body): `withBody(PolicyBody, { access, handle: (ctx, input) => … })`. The rule type
 * `A` comes from the route table the operation goes into, not from `access` (a {@link PUBLIC}
 * operation is one of the service's operations too).
 */
export function withBody<S extends TObject, D, A, I>(
  body: S,
  op: Omit<ApiOperation<D, NoInfer<A>, I>, 'body' | 'handle'> & { readonly handle: (ctx: ApiContext<D, I>, input: Static<S> | undefined) => Promise<ApiReply> },
): ApiOperation<D, A, I> {
  return { ...op, body, handle: (ctx) => op.handle(ctx, ctx.input<Static<S>>()) };
}

/** One route: its pattern (kernel route syntax), its operations and the tables a blocking GET waits on. */
export interface ApiRoute<D, A = unknown, I = unknown> {
  readonly pattern: string;
  readonly synopsis: string;
  readonly methods: Partial<Readonly<Record<ApiMethod, ApiOperation<D, A, I>>>>;
  /** Tables whose index a blocking `GET` (`?index=`) waits on. */
  readonly blocking?: readonly string[];
  /**
   * The index the read would report now, when it is finer than the `blocking` tables' (one
   * key, one prefix: reference/mesh.md §0.7, whose blocking loop runs the query again until
   * its own index passes `?index`). A blocking `GET` then waits on the tables again, within
   * the same `?wait`, while this has not passed `?index`. Absent: the tables' index decides.
   */
  readonly resultIndex?: (ctx: ApiContext<D, I>) => number;
  /**
   * True: the pattern's last parameter (`:name*`) takes the rest of the path as it is, `/`
   * and `.` at its end included, and `''` for the bare prefix (the discovery service's KV
   * keys are free-form; the usual capture rules are for resource names).
   */
  readonly rawTail?: boolean;
  /**
   * True: served at `/<pattern>` instead of `/v1/<pattern>` (well-known documents, RFC 8615:
   * the scheduler's `/.well-known/jwks.json`). Such routes stay out of the OpenAPI document,
   * which describes the `/v1/` API.
   */
  readonly root?: boolean;
}

/** A plain-text reply of the conventions (unknown path, undeclared method). */
export interface TextReply {
  readonly status: number;
  /** Undefined: no body and no `Content-Type`. */
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What differs between the services that share this dispatcher; `A` and `I` as in {@link ApiOperation}. */
export interface ApiConventions<A = unknown, I = unknown> {
  /** The request's token secret, or undefined (each service reads its own headers). */
  tokenOf(req: HttpRequest): string | undefined;
  /**
   * Resolves the caller of `ctx` and checks `rule` (never {@link PUBLIC}); returns the caller
   * the handler gets as `ctx.caller`. @throws CairnError with the service's status and text
   * (401/403 for an unknown token or a missing permission, 400 where the reference refuses
   * the request before its ACL check).
   */
  authorize(rule: A, ctx: ApiContext<unknown, I>): I;
  /**
   * Sends a `primary` operation's request to the primary datacenter / authoritative region;
   * undefined when this server is in it. @throws CairnError 500 with the service's text when
   * no server there is known. Absent: `primary` operations run here.
   */
  primary?(ctx: ApiContext<unknown, I>): Promise<HttpResponse> | undefined;
  /**
   * True: a blocking read's access rule is checked before its wait and again after it, on the
   * state the reply comes from (the scheduler, whose reference checks e.g. a node's secret
   * inside its blocking query: a client whose node was purged during its watch learns it when
   * the watch ends). False or absent: before the wait only. Either way a refused caller is
   * never kept waiting.
   */
  readonly accessAfterWait?: boolean;
  /** Query parameters every request takes (the forwarding parameter, `pretty`, a token, …). */
  readonly query: ApiQuery;
  /** Query parameters every read (GET) takes: its consistency mode ({@link consistency}). */
  readonly readQuery: ApiQuery;
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
  /**
   * Decodes a JSON body against an operation's declared `schema`, in the service's reading and
   * with its texts (Go's struct decoding for the scheduler; exact names and its own texts for
   * the discovery service). @throws CairnError 400 naming the field. Absent: declared bodies
   * are a start-up error.
   */
  decodeBody?(schema: TObject, value: unknown): unknown;
  /**
   * What the service checks of an operation's (static) rule before its declared body is
   * decoded, where the reference checks it before decoding (the discovery service's `/acl/*`
   * writes answer 401 `ACL support disabled` whatever the body). @throws CairnError.
   */
  beforeBody?(rule: A, ctx: ApiContext<unknown, I>): void;
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
