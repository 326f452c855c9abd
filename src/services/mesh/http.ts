/**
 * The discovery service's HTTP conventions (reference/mesh.md §0), as data for the kernel's
 * route-table dispatcher (`apiHttpService`, shared with the scheduler):
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
  bearerToken,
  apiHttpService,
  OPENAPI_PATTERN,
  badRequest,
  CairnError,
  type ApiContext,
  type ApiConventions,
  type ApiQuery,
  type ApiReply,
  type ApiRoute,
  type ForwardStyle,
  type HttpRequest,
  type HttpResponse,
  type HttpService,
} from '../../kernel/http/index.js';
import { Type } from '@sinclair/typebox';
import type { Leadership, StateStore } from '../../kernel/store/index.js';
import { decodeMeshBody, meshDecodeError } from './body-decoding.js';
import { VERSION } from '../../kernel/version/index.js';
import { parseGoDuration } from '../../kernel/util/go-duration.js';

/** Consistency mode of a read (reference/mesh.md §0.6): `leader`, `stale` or `consistent`. */
type Consistency = 'leader' | 'stale' | 'consistent';

/**
 * What a handler gets; `secret` comes from `?token=`, `X-Mesh-Token` or `Authorization: Bearer`,
 * `caller` is the identity `I` the access rule was checked against (access.ts).
 */
export type MeshContext<D, I = unknown> = ApiContext<D, I>;

/** A handler's reply (kernel `ApiReply`). */
export type MeshReply = ApiReply;

/** One route of the discovery service; `A` its access rule, `I` its caller (access.ts). */
export type MeshRoute<D, A = unknown, I = unknown> = ApiRoute<D, A, I>;

/** The dispatcher's settings. */
export interface MeshHttpOptions<D, A, I> {
  readonly routes: readonly MeshRoute<D, A, I>[];
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
  /** Agents sharing one state (`storage "postgresql"`): followers forward writes to the leader. */
  readonly leadership?: Leadership;
  /** Resolves the caller and checks an operation's access rule (access.ts `authorize`). */
  readonly authorize: ApiConventions<A, I>['authorize'];
  /** Sends a `primary` operation to the primary datacenter; undefined in it (deps.ts `forwardToPrimary`). */
  readonly primary: NonNullable<ApiConventions<A, I>['primary']>;
  /** What is checked before a declared body is decoded (access.ts: `ACL support disabled`). */
  readonly beforeBody: NonNullable<ApiConventions<A, I>['beforeBody']>;
}

/** Default blocking wait: 5 minutes in ms (reference/mesh.md §0.7). */
const DEFAULT_WAIT_MS = 300_000;
/** Longest blocking wait: 10 minutes in ms. */
const MAX_WAIT_MS = 600_000;

/** How requests are forwarded to another datacenter (kernel `forwardRequest`). */
export const MESH_FORWARD_STYLE: ForwardStyle = { tokenHeader: 'X-Mesh-Token', keep: /^(content-type|allow|x-mesh-.*)$/i };

/** 400 with the reference's text. */
export const meshBadRequest = badRequest;
/** 403 with the reference's text (`Permission denied…`, `ACL not found…`). */
export const meshForbidden = (text: string) => new CairnError('forbidden', text);
/** 404 with the reference's text (`Requested token does not exist: ACL not found`). */
export const meshNotFound = (text: string) => new CairnError('not_found', text);
/** 401 `ACL support disabled` (reference/mesh.md §0.4). */
export const aclDisabled = () => new CairnError('unauthenticated', 'ACL support disabled');

/** Query parameters every request takes (reference/mesh.md §0.2–§0.4). */
const MESH_QUERY: ApiQuery = {
  dc: Type.String({ description: 'The datacenter to ask; another than this agent’s is forwarded to a server there.' }),
  token: Type.String({ description: 'The ACL token (prefer the `X-Mesh-Token` header: a query string may be logged).' }),
  pretty: Type.String({ description: 'Present: the JSON reply is indented.' }),
  ns: Type.String({ description: 'The namespace (Enterprise: refused otherwise).' }),
};

/** Query parameters every read takes: its consistency mode (reference/mesh.md §0.7). */
const MESH_READ_QUERY: ApiQuery = {
  stale: Type.String({ description: 'Present: any server answers, without a read barrier.' }),
  consistent: Type.String({ description: 'Present: the leader confirms it still leads before answering.' }),
  max_stale: Type.String({ description: 'A Go duration (`10s`); above zero: read as `stale`. Not a duration: 400 `Invalid max_stale value "<v>"`.' }),
};

/**
 * `?max_stale=<Go duration>` in ns (0 when absent or empty), as the reference's
 * `parseConsistency`. @throws 400 `Invalid max_stale value "<v>"`.
 */
function maxStaleNs(raw: string | null): number {
  if (raw === null || raw === '') return 0;
  const ns = parseGoDuration(raw);
  if (typeof ns === 'string') throw badRequest(`Invalid max_stale value ${JSON.stringify(raw)}`);
  return ns;
}

/** The request's token secret in the reference's order: `?token=`, `X-Mesh-Token`, `Authorization: Bearer` (§0.2). */
function tokenOf(req: HttpRequest): string | undefined {
  const q = req.query.get('token');
  if (q) return q;
  const h = req.headers['x-mesh-token'];
  if (typeof h === 'string' && h !== '') return h;
  return bearerToken(req.headers, 'exact-first-word');
}

/** Builds the discovery service's {@link HttpService}. */
export function meshHttpService<D, A, I>(options: MeshHttpOptions<D, A, I>): HttpService {
  const conventions: ApiConventions<A, I> = {
    tokenOf,
    authorize: options.authorize,
    primary: options.primary,
    beforeBody: options.beforeBody,
    notFound: () => ({ status: 404, body: 'Invalid URL path: not a recognized HTTP API endpoint\n' }),
    methodNotAllowed: (method, allow) => ({ status: 405, body: `method ${method} not allowed`, headers: { Allow: ['OPTIONS', ...allow].join(',') } }),
    options: (allow) => ({ status: 200, headers: { Allow: ['OPTIONS', ...allow].join(',') } }),
    query: MESH_QUERY,
    readQuery: MESH_READ_QUERY,
    wait: { defaultMs: DEFAULT_WAIT_MS, maxMs: MAX_WAIT_MS },
    consistency(q): Consistency {
      const stale = q.has('stale') || maxStaleNs(q.get('max_stale')) > 0;
      if (stale && q.has('consistent')) throw badRequest('Cannot specify ?stale with ?consistent, conflicting semantics.');
      return q.has('consistent') ? 'consistent' : stale ? 'stale' : 'leader';
    },
    pretty: (q) => q.has('pretty'),
    queryMeta: (index, consistency, leader) => ({
      'X-Mesh-Index': String(Math.max(1, index)),
      'X-Mesh-KnownLeader': String(leader.known),
      'X-Mesh-LastContact': String(leader.lastContactMs),
      'X-Mesh-Effective-Consistency': consistency,
    }),
    commonHeaders: () => ({ 'X-Mesh-Default-ACL-Policy': options.defaultPolicy() }),
    decodeError: meshDecodeError,
    objectBodies: true,
    decodeBody: decodeMeshBody,
    forward: options.forwardTo && { param: 'dc', local: options.datacenter, noPath: 'No path to datacenter', to: options.forwardTo },
  };
  return apiHttpService({
    routes: options.routes,
    deps: options.deps,
    state: options.state,
    conventions,
    random: options.random,
    shutdown: options.shutdown,
    leadership: options.leadership,
    forwardStyle: MESH_FORWARD_STYLE,
    openapi: {
      pattern: OPENAPI_PATTERN,
      info: {
        title: 'Cairn discovery service API',
        description:
          'HTTP API of the discovery service: its ACL system (tokens, policies, roles, auth methods, binding rules, namespaces) and status. All API routes are prefixed with `/v1/`.',
        version: VERSION,
      },
    },
  });
}
