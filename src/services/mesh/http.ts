/**
 * The discovery service's HTTP conventions (reference/mesh.md §0), as one dispatcher over
 * a static route table (DESIGN.md "Routes are data"):
 *
 * - paths under `/v1/`; an unknown one → 404 `Invalid URL path: not a recognized HTTP API
 *   endpoint`; a method the path does not declare → 405 `method X not allowed` with
 *   `Allow: OPTIONS,…`; `OPTIONS` → 200 with `Allow`;
 * - errors are plain text (not JSON) with the reference's status and wording, except that
 *   validation failures are 400 rather than the reference's 500 (reference/README.md rule 3);
 * - JSON replies, compact unless `?pretty`; reads carry `X-Mesh-Index` (never 0),
 *   `X-Mesh-KnownLeader`, `X-Mesh-LastContact`, `X-Mesh-Effective-Consistency`; every reply
 *   carries `X-Mesh-Default-ACL-Policy` (§0.5);
 * - blocking queries: `?index=N` waits until a declared table's index passes N or `?wait`
 *   (default 5 min, at most 10 min) plus a random jitter of up to wait/16 ends (§0.7);
 *   `?stale` / `?consistent` / `?leader` (§0.6).
 *
 * @module
 */
import {
  badRequest,
  CairnError,
  RouteTable,
  type HttpRequest,
  type HttpResponse,
  type HttpService,
  type Operation,
  type PathSpec,
} from '../../kernel/http/index.js';
import type { StateStore } from '../../kernel/store/index.js';
import { goDurationMs } from '../../kernel/util/go-duration.js';

/** HTTP methods a mesh route may declare. */
export type MeshMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** Consistency mode of a read (reference/mesh.md §0.6). */
export type Consistency = 'leader' | 'stale' | 'consistent';

/** What a handler gets. */
export interface MeshContext<D> {
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The request's token secret (`?token=`, `X-Mesh-Token`, `Authorization: Bearer`), or undefined. */
  readonly secret: string | undefined;
  readonly consistency: Consistency;
  readonly deps: D;
  /**
   * The JSON body, or undefined when empty. @throws 400 `<kind> decoding failed: <why>`
   * (reference/mesh.md §0.4), or `Failed to decode request body: <why>` when `kind` is undefined.
   */
  body<T>(kind?: string): T | undefined;
}

/**
 * A handler's reply. `index` marks a read: it sets the query-meta headers. `forwarded` is
 * another server's reply, passed back unchanged (forward.ts).
 */
export interface MeshReply {
  readonly body?: unknown;
  readonly status?: number;
  readonly index?: number;
  readonly forwarded?: HttpResponse;
}

/** One route: its pattern (kernel route syntax), its methods and the tables a blocking GET waits on. */
export interface MeshRoute<D> {
  readonly pattern: string;
  readonly synopsis: string;
  readonly methods: Partial<Readonly<Record<MeshMethod, (ctx: MeshContext<D>) => Promise<MeshReply>>>>;
  /** Tables whose index a blocking `GET` (`?index=`) waits on. */
  readonly blocking?: readonly string[];
}

/** The dispatcher's settings. */
export interface MeshHttpOptions<D> {
  readonly routes: readonly MeshRoute<D>[];
  readonly deps: D;
  readonly state: StateStore;
  /** `X-Mesh-Default-ACL-Policy`. */
  readonly defaultPolicy: () => 'allow' | 'deny';
  /** Random number in [0, 1) for the blocking-query jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Aborted when the agent stops: blocking queries then return at once. */
  readonly shutdown?: AbortSignal;
  /** This agent's datacenter: a `?dc=` naming another one is forwarded. */
  readonly datacenter: string;
  /**
   * Forwards a request to datacenter `dc`; undefined when no server of it is known
   * (then 500 `No path to datacenter`, as the reference).
   */
  readonly forwardTo?: (dc: string, req: HttpRequest, secret: string | undefined) => Promise<HttpResponse> | undefined;
}

/** Default blocking wait: 5 minutes in ms (reference/mesh.md §0.7). */
export const DEFAULT_WAIT_MS = 300_000;
/** Longest blocking wait: 10 minutes in ms. */
export const MAX_WAIT_MS = 600_000;

const METHOD_OP: Readonly<Record<MeshMethod, Operation>> = { GET: 'read', PUT: 'update', POST: 'create', DELETE: 'delete' };
const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

/** 400 with the reference's text. */
export const meshBadRequest = badRequest;
/** 403 with the reference's text (`Permission denied…`, `ACL not found…`). */
export const meshForbidden = (text: string) => new CairnError('forbidden', text);
/** 404 with the reference's text (`Requested token does not exist: ACL not found`). */
export const meshNotFound = (text: string) => new CairnError('not_found', text);
/** 401 `ACL support disabled` (reference/mesh.md §0.4). */
export const aclDisabled = () => new CairnError('unauthenticated', 'ACL support disabled');

/** The request's token secret in the reference's order: `?token=`, `X-Mesh-Token`, `Authorization: Bearer` (§0.2). */
export function tokenOf(req: HttpRequest): string | undefined {
  const q = req.query.get('token');
  if (q) return q;
  const h = req.headers['x-mesh-token'];
  if (typeof h === 'string' && h !== '') return h;
  const auth = req.headers.authorization;
  const m = auth ? /^Bearer (\S+)/.exec(auth) : null;
  return m?.[1];
}

/** Builds the discovery service's {@link HttpService}. */
export function meshHttpService<D>(options: MeshHttpOptions<D>): HttpService {
  const table = new RouteTable<MeshContext<D>, MeshReply>(
    options.routes.map((r): PathSpec<MeshContext<D>, MeshReply> => ({
      pattern: r.pattern,
      synopsis: r.synopsis,
      operations: Object.fromEntries(
        Object.entries(r.methods).map(([m, handle]) => [METHOD_OP[m as MeshMethod], { summary: `${m} ${r.pattern}`, handle }]),
      ),
    })),
  );
  const blockingOf = new Map(options.routes.map((r) => [r.pattern, r.blocking]));
  const allowOf = new Map(options.routes.map((r) => [r.pattern, ['OPTIONS', ...Object.keys(r.methods)].join(',')]));
  const random = options.random ?? Math.random;
  const common = () => ({ 'X-Mesh-Default-ACL-Policy': options.defaultPolicy() });

  return {
    async handle(req: HttpRequest): Promise<HttpResponse> {
      const dc = req.query.get('dc');
      if (dc && dc !== options.datacenter) {
        const forwarded = options.forwardTo?.(dc, req, tokenOf(req));
        if (!forwarded) throw new CairnError('internal', 'No path to datacenter');
        return forwarded;
      }
      const rel = req.path.startsWith('/v1/') ? req.path.slice(4).replace(/\/$/, '') : undefined;
      const match = rel === undefined ? undefined : table.match(rel);
      if (!match) return { status: 404, headers: { ...TEXT, ...common() }, body: 'Invalid URL path: not a recognized HTTP API endpoint\n' };
      const allow = allowOf.get(match.path.spec.pattern)!;
      if (req.method === 'OPTIONS') return { status: 200, headers: { ...common(), Allow: allow } };
      const method = (req.method === 'HEAD' ? 'GET' : req.method) as MeshMethod;
      const op = METHOD_OP[method] ? match.path.spec.operations[METHOD_OP[method]] : undefined;
      if (!op) return { status: 405, headers: { ...TEXT, ...common(), Allow: allow }, body: `method ${req.method} not allowed` };

      const q = req.query;
      if (q.has('stale') && q.has('consistent')) throw badRequest('Cannot specify ?stale with ?consistent, conflicting semantics.');
      const consistency: Consistency = q.has('consistent') ? 'consistent' : q.has('stale') || q.has('max_stale') ? 'stale' : 'leader';
      const blocking = method === 'GET' ? blockingOf.get(match.path.spec.pattern) : undefined;
      if (blocking && q.has('index')) {
        const raw = q.get('index')!;
        if (!/^\d+$/.test(raw)) throw badRequest('Invalid index');
        const after = Number(raw);
        let waitMs = DEFAULT_WAIT_MS;
        if (q.has('wait')) {
          const w = goDurationMs(q.get('wait')!);
          if (w === undefined) throw badRequest('Invalid wait time');
          waitMs = w;
        }
        waitMs = Math.min(waitMs, MAX_WAIT_MS);
        if (after > 0) await options.state.watch(blocking, after, waitMs + random() * (waitMs / 16), options.shutdown);
      }
      const ctx: MeshContext<D> = {
        req,
        params: match.params,
        query: q,
        secret: tokenOf(req),
        consistency,
        deps: options.deps,
        body: <T>(kind?: string) => parseBody<T>(req.body, kind),
      };
      const reply = await op.handle(ctx);
      if (reply!.forwarded) return reply!.forwarded;
      const headers: Record<string, string> = { 'Content-Type': 'application/json', ...common() };
      if (reply!.index !== undefined) {
        headers['X-Mesh-Index'] = String(Math.max(1, reply!.index));
        headers['X-Mesh-KnownLeader'] = 'true';
        headers['X-Mesh-LastContact'] = '0';
        headers['X-Mesh-Effective-Consistency'] = consistency;
      }
      const pretty = q.has('pretty');
      const body = pretty ? `${JSON.stringify(reply!.body, null, 4)}\n` : JSON.stringify(reply!.body);
      return { status: reply!.status ?? 200, headers, body };
    },
    renderError(err: CairnError): HttpResponse {
      return { status: err.status, headers: { ...TEXT, ...common() }, body: err.messages.join('; ') || err.message };
    },
  };
}

function parseBody<T>(body: Buffer, kind: string | undefined): T | undefined {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch (err) {
    const why = (err as Error).message;
    throw badRequest(kind ? `${kind} decoding failed: ${why}` : `Failed to decode request body: ${why}`);
  }
}
