/**
 * The scheduler service's HTTP conventions (reference/sched.md §1), as data for the kernel's
 * route-table dispatcher (`apiHttpService`, shared with the discovery service):
 *
 * - paths under `/v1/`; an unknown one → 404 `404 page not found`; a method the path does
 *   not declare → 405 `Invalid method` (§1.2);
 * - errors are plain text with the reference's status and wording, except that failures the
 *   reference answers 500 for bad input are 400 here (reference/README.md rule 3);
 * - JSON replies, compact unless `?pretty` (any value but `0`); reads carry `X-Sched-Index`,
 *   `X-Sched-KnownLeader`, `X-Sched-LastContact` (§1.4);
 * - the token from `X-Sched-Token`, else `Authorization: Bearer` (§1.3); every operation
 *   declares who may call it, checked before its handler (`authorize`, access.ts), and which
 *   go to the authoritative region (`primary`, reference/sched.md §2.3);
 * - blocking queries: `?index=N` waits until a declared table passes N or `?wait` (default
 *   and cap 300 s) plus up to wait/16 of jitter (§1.5); `?stale` parsed as Go's ParseBool;
 * - `?region=` naming another region is forwarded to a server there; none known → 500
 *   `No path to region` (§1.6);
 * - servers of one region sharing a state on PostgreSQL (`storage "postgresql"`): a follower
 *   forwards every request but GET to the leader (kernel `apiHttpService`), and
 *   `X-Sched-KnownLeader` / `X-Sched-LastContact` say whether it knows one and how long ago
 *   (ms) it last heard of it.
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
import { VERSION } from '../../kernel/version/index.js';
import { parseGoBool } from '../../kernel/util/go-bool.js';
import { PERMISSION_DENIED } from './acl/index.js';
import { decodeSchedBody } from './body.js';

/** What a handler gets; `secret` comes from `X-Sched-Token` or `Authorization: Bearer`; `I` is the caller. */
export type SchedContext<D, I = unknown> = ApiContext<D, I>;
/** A handler's reply (kernel `ApiReply`). */
export type SchedReply = ApiReply;

/** Default and longest blocking wait: 300 s in ms (reference/sched.md §1.5; its docs' 10 minutes are not what its code does). */
const MAX_WAIT_MS = 300_000;

/**
 * How requests are forwarded to another region (kernel `forwardRequest`): the caller's token,
 * and `X-Sched-CSI-Secrets` (volume delete, snapshot delete and list read it; without it the
 * other region's plugin call would run without the caller's secrets).
 */
export const SCHED_FORWARD_STYLE: ForwardStyle = { tokenHeader: 'X-Sched-Token', keep: /^(content-type|x-sched-.*)$/i, pass: /^x-sched-csi-secrets$/i };

/** 400 with the reference's text. */
export const schedBadRequest = badRequest;
/** 403 `Permission denied` (reference/sched.md §1.3: every denial, and an unknown or expired secret). */
export const permissionDeniedError = () => new CairnError('forbidden', PERMISSION_DENIED);
/** 404 with the reference's text (`ACL token not found`, `node not found`, …). */
export const schedNotFound = (text: string) => new CairnError('not_found', text);
/** 400 `ACL support disabled` (reference/sched.md §1.2). */
export const aclDisabled = () => new CairnError('bad_request', 'ACL support disabled');
/** 500 with the reference's text, for failures that are not the caller's input. */
export const schedInternal = (text: string) => new CairnError('internal', text);

/**
 * A write's reply: `body`, or no body at all (no `Content-Type`) when undefined, with
 * `X-Sched-Index` = `index` and no other query meta: writes set no `X-Sched-KnownLeader` /
 * `X-Sched-LastContact` (reference/sched.md §1.1, §1.4).
 */
export function writeReply(index: number, body?: unknown): SchedReply {
  const headers = { 'X-Sched-Index': String(index) };
  return body === undefined ? { empty: true, headers } : { body, headers };
}

/** The index of a read that does not block: never 0, as the reference's `setReplyQueryMeta` (reference/sched.md §1.4); the kernel floors a blocking read's itself (api-service.ts). */
export const atLeastOne = (index: number): number => Math.max(1, index);

/**
 * The request's token secret (reference/sched.md §1.3): `X-Sched-Token` (trimmed) wins;
 * else `Authorization: <scheme> <value>` with scheme `bearer` in any case, the value's first
 * word. Undefined when neither is given or the value is empty (the anonymous token).
 */
function tokenOf(req: HttpRequest): string | undefined {
  const h = req.headers['x-sched-token'];
  if (typeof h === 'string') return h.trim() || undefined;
  return bearerToken(req.headers, 'any-case-first-word');
}

/** The dispatcher's settings; `A` is the routes' access rule, `I` the caller (access.ts). */
export interface SchedHttpOptions<D, A, I> {
  readonly routes: readonly ApiRoute<D, A, I>[];
  /** Checks an operation's access rule and returns the caller (kernel `ApiConventions.authorize`). */
  readonly authorize: ApiConventions<A, I>['authorize'];
  /** Sends an operation declared `primary` to the authoritative region (kernel `ApiConventions.primary`). */
  readonly primary: NonNullable<ApiConventions<A, I>['primary']>;
  readonly deps: D;
  readonly state: StateStore;
  /** This agent's region: a `?region=` naming another one is forwarded. */
  readonly region: string;
  /** Forwards a request to region `region`; undefined when no server of it is known. */
  readonly forwardTo: (region: string, req: HttpRequest, secret: string | undefined) => Promise<HttpResponse> | undefined;
  /** Random number in [0, 1) for the blocking-query jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Aborted when the agent stops: blocking queries then return at once. */
  readonly shutdown?: AbortSignal;
  /** Servers sharing one state (`storage "postgresql"`): followers forward writes to the leader. */
  readonly leadership?: Leadership;
}

/** Query parameters every request takes (reference/sched.md §1). */
const SCHED_QUERY: ApiQuery = {
  region: Type.String({ description: 'The region to ask; another than this agent’s is forwarded to a server there.' }),
  pretty: Type.String({ description: 'Present and not `0`: the JSON reply is indented.' }),
  // The reference reads it on every request (its QueryOptions and WriteRequest): the namespace
  // of what a route names, and of the rule it checks.
  namespace: Type.String({ description: 'The namespace (`default` when absent; `*` on lists: every namespace the token may read).' }),
};

/** Query parameters every read takes: its consistency mode (reference/sched.md §1.5). */
const SCHED_READ_QUERY: ApiQuery = {
  stale: Type.Boolean({ description: '`true` (or present without a value): any server answers, without a read barrier.' }),
};

/** Builds the scheduler service's {@link HttpService}. */
export function schedHttpService<D, A, I>(options: SchedHttpOptions<D, A, I>): HttpService {
  const conventions: ApiConventions<A, I> = {
    tokenOf,
    authorize: options.authorize,
    primary: options.primary,
    // As the reference's blocking queries (and this service's handlers before issue 25):
    // who may read is decided on the state the read answers from.
    accessAfterWait: true,
    notFound: () => ({ status: 404, body: '404 page not found\n' }),
    methodNotAllowed: () => ({ status: 405, body: 'Invalid method' }),
    query: SCHED_QUERY,
    readQuery: SCHED_READ_QUERY,
    wait: { defaultMs: MAX_WAIT_MS, maxMs: MAX_WAIT_MS },
    consistency(q) {
      if (!q.has('stale')) return 'default';
      const raw = q.get('stale')!;
      const stale = raw === '' ? true : parseGoBool(raw);
      if (stale === undefined) throw badRequest('Expect `true` or `false` for `stale` query string parameter');
      return stale ? 'stale' : 'default';
    },
    pretty: (q) => q.has('pretty') && q.get('pretty') !== '0',
    queryMeta: (index, _consistency, leader) => ({
      'X-Sched-Index': String(index),
      'X-Sched-KnownLeader': String(leader.known),
      'X-Sched-LastContact': String(leader.lastContactMs),
    }),
    decodeError: (why) => why,
    // Go's struct decoding with its texts (reference/sched.md §1.1); a struct declared with
    // `typePrefix` (the ACL objects) names its package in a whole-value error.
    decodeBody: decodeSchedBody,
    forward: { param: 'region', local: options.region, noPath: 'No path to region', to: options.forwardTo },
  };
  return apiHttpService({
    routes: options.routes,
    deps: options.deps,
    state: options.state,
    conventions,
    random: options.random,
    shutdown: options.shutdown,
    leadership: options.leadership,
    forwardStyle: SCHED_FORWARD_STYLE,
    openapi: {
      pattern: OPENAPI_PATTERN,
      info: {
        title: 'Cairn scheduler service API',
        description:
          'HTTP API of the scheduler service: its ACL system, nodes, allocations, CSI volumes and plugins, events and status. All API routes are prefixed with `/v1/`.',
        version: VERSION,
      },
    },
  });
}
