/**
 * The controller's API on its `api` listener (default 9200): one dispatcher over the route
 * table of routes.ts, where every route is declared with who may call it (route.ts): the
 * domain model (scopes, auth methods, accounts, users, groups, roles, auth tokens,
 * `:authenticate`, host catalogs, hosts, host sets, targets and `:authorize-session`,
 * credential stores, libraries, credentials, sessions), the Cairn-only worker list
 * (`GET /v1/workers`, recovery credential), the internal routes through which follower
 * controllers forward their workers' session calls (cluster-authority.ts), its OpenAPI
 * document (`GET /v1/openapi.json`) and, outside `/v1/`, the two pages the OIDC login ends
 * on (domain/login-pages.ts). Field names and the error body `{"kind","message"}` follow
 * the reference product's API (reference/gateway.md).
 *
 * Each request passes, in order: routing (404), a follower's forwarding to the leader
 * ({@link GatewayRoute.forward}), the method (405), the access rule (401; then a grant
 * rule's own 404/400, then 403), the leader-only check (503), field validation (400), the
 * handler. Two kinds of path answer before their method is looked at: a path behind the
 * recovery token (401: it tells a stranger nothing about the path), and the internal
 * routes, which do not exist without `worker_auth_token` (404).
 *
 * @module
 */
import {
  bearerToken,
  badRequest,
  CairnError,
  forwardToLeader,
  notFound,
  parseJsonBody,
  type ForwardStyle,
  type HttpRequest,
  type HttpResponse,
  type HttpService,
} from '../../kernel/http/index.js';
import { labelRoute } from '../../kernel/metrics/index.js';
import { secretsEqual } from '../../kernel/util/sha256.js';
import type { Caller } from './domain/domain.js';
import { forbiddenError, GatewayApiError } from './domain/errors.js';
import { Input } from './domain/input.js';
import { may } from './domain/resource.js';
import { CONTROLLER_TOKEN, WORKER_TOKEN, type ApiDeps, type GatewayMethod, type GatewayRoute, type RouteContext, type RouteReply } from './route.js';
import type { RouteHit } from './route-table.js';
import { GATEWAY_TABLE } from './routes.js';

export type { ApiDeps } from './route.js';

const KIND: Readonly<Record<number, string>> = {
  400: 'InvalidArgument',
  401: 'Unauthenticated',
  403: 'PermissionDenied',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'InvalidArgument',
  503: 'Unavailable',
};

/**
 * Renders an error as the reference's API error body `{"kind","message"}` (reference/gateway.md §4.1),
 * with `details.request_fields` naming bad fields (domain/errors.ts).
 */
export function renderApiError(err: CairnError): HttpResponse {
  const kind = err instanceof GatewayApiError ? err.kind : (KIND[err.status] ?? 'Internal');
  const fields = err instanceof GatewayApiError && err.fields ? Object.entries(err.fields).sort(([a], [b]) => (a < b ? -1 : 1)) : [];
  const body = {
    kind,
    message: err.message,
    ...(fields.length > 0 ? { details: { request_fields: fields.map(([name, description]) => ({ name, description })) } } : {}),
  };
  return { status: err.status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** How a follower controller forwards a domain request to the leader: the token travels as `Authorization`, cookies too. */
const FORWARD_STYLE: ForwardStyle = { tokenHeader: 'Authorization', keep: /^(content-type|set-cookie|location|cache-control)$/i, pass: /^cookie$/i };

/** The bearer token of `req`, or undefined. */
const bearer = (req: HttpRequest): string | undefined => bearerToken(req.headers, 'any-case-one-word');

/** {@link CONTROLLER_TOKEN}: constant-time comparison of the presented bearer token with the recovery one. */
function checkControllerToken(req: HttpRequest, token: string | undefined): void {
  if (token === undefined) throw new CairnError('unauthenticated', 'the controller has no "auth_token" configured: its api refuses every request');
  const given = bearer(req);
  if (given === undefined || !secretsEqual(given, token)) throw new CairnError('unauthenticated', 'Unauthenticated, or invalid token.');
}

/** {@link WORKER_TOKEN}: the presented bearer token is the controllers' `worker_auth_token`. */
function checkWorkerToken(req: HttpRequest, token: string): void {
  const given = bearer(req);
  if (given === undefined || !secretsEqual(given, token)) throw new CairnError('unauthenticated', 'worker authentication failed: check worker_auth_token');
}

/** The JSON object body of a route with `fields`; empty → `{}`. @throws 400 when it is not a JSON object. */
function objectBody(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  let v: unknown;
  try {
    v = parseJsonBody(body);
  } catch (err) {
    throw badRequest(`malformed JSON body: ${(err as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest('the JSON body must be an object');
  return v as Record<string, unknown>;
}

/** One request's {@link RouteContext}. */
class RequestContext implements RouteContext {
  private resolved: Caller | undefined;
  private decoded: Input | undefined;
  fields: Record<string, unknown> = {};

  constructor(
    readonly deps: ApiDeps,
    readonly req: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
  ) {}

  get d() {
    return this.deps.domain;
  }

  get caller(): Caller {
    if (!this.resolved) throw new Error(`${this.req.method} ${this.req.path}: the route's access rule resolves no caller`);
    return this.resolved;
  }

  set caller(c: Caller) {
    this.resolved = c;
  }

  // A property, not a method: handlers destructure it from the context.
  readonly input = (): Input => (this.decoded ??= Input.parse(this.req.body));
}

/** Whether a follower forwards `req` (on `hit`, declared as `route`) to the leader; see {@link GatewayRoute.forward}. */
function leaderServes(deps: ApiDeps, req: HttpRequest, hit: RouteHit, route: GatewayRoute | undefined): boolean | 'barrier' {
  // A method the path does not declare goes where the path's writes go: the leader answers its 405.
  const forward = route ? route.forward : Object.values(hit.methods).every((r) => r.forward === 'local') ? 'local' : undefined;
  if (forward === 'local') return false;
  if (forward === 'leader' || (req.method !== 'GET' && req.method !== 'HEAD')) return true;
  // A token whose use is due to be recorded goes to the leader too: only it writes.
  return deps.domain.tokenUseDue(req) || 'barrier';
}

/** Checks `route`'s access rule on `ctx` (the order is the module doc's). */
async function authorize(route: GatewayRoute, ctx: RequestContext): Promise<void> {
  const { access } = route;
  if (typeof access !== 'function') {
    if (access === CONTROLLER_TOKEN) checkControllerToken(ctx.req, ctx.deps.authToken);
    else if (access === WORKER_TOKEN) checkWorkerToken(ctx.req, ctx.deps.cluster.workerAuthToken!);
    // else PUBLIC (route-table.ts admits no other rule)
    return;
  }
  const caller = await ctx.d.caller(ctx.req);
  ctx.caller = caller;
  const rule = access(ctx);
  // FILTERED names no resource: the handler filters what it shows.
  if ('resource' in rule && !may(caller, rule.resource, rule.action, rule.owner)) throw forbiddenError();
}

/** The HTTP reply of a handler's. */
function render(reply: RouteReply): HttpResponse {
  if (reply.raw !== undefined) return { status: reply.status ?? 200, headers: reply.headers, body: reply.raw };
  if (reply.body === undefined) return { status: reply.status ?? 204, headers: reply.headers };
  return { status: reply.status ?? 200, headers: { 'Content-Type': 'application/json', ...reply.headers }, body: JSON.stringify(reply.body) };
}

/**
 * The api listener's {@link HttpService}. Errors: 404 unknown path; 405 method not
 * declared; 401 a bad token for the route's access rule; 403 not granted; 400 malformed
 * JSON, unknown or invalid fields (named); the handlers' own errors.
 */
export function apiService(deps: ApiDeps): HttpService {
  return {
    async handle(req): Promise<HttpResponse> {
      const v1 = req.path.startsWith('/v1/');
      const hit = v1 ? GATEWAY_TABLE.matchApi(req.path.slice(4).replace(/\/$/, '')) : GATEWAY_TABLE.matchRoot(req.path);
      const all = hit ? Object.values(hit.methods) : [];
      // The internal routes do not exist without the token that guards them.
      if (!hit || (all.some((r) => r.access === WORKER_TOKEN) && deps.cluster.workerAuthToken === undefined)) throw notFound(`path ${req.path} not found`);
      labelRoute(req, hit.pattern);
      const route = hit.methods[(req.method === 'HEAD' ? 'GET' : req.method) as GatewayMethod];
      // Outside /v1/ only the pages are served; any other request there is a path not found.
      if (!v1 && !route) throw notFound(`path ${req.path} not found`);
      const lead = deps.leadership;
      if (lead && !lead.isLeader) {
        const leader = leaderServes(deps, req, hit, route);
        if (leader === true) return forwardToLeader(req, lead, req.headers.authorization, FORWARD_STYLE);
        if (leader === 'barrier') await lead.readBarrier();
      }
      if (!route) {
        // A path behind the recovery token tells a stranger nothing, not even its methods.
        if (all.some((r) => r.access === CONTROLLER_TOKEN)) checkControllerToken(req, deps.authToken);
        throw new CairnError('method_not_allowed', `method ${req.method} is not allowed on ${req.path}`);
      }
      const ctx = new RequestContext(deps, req, hit.params);
      await authorize(route, ctx);
      if (route.writerOnly && !deps.cluster.writable()) throw new CairnError('unavailable', 'this controller does not lead');
      const validator = GATEWAY_TABLE.validator(route);
      if (validator) {
        const { data, ignored } = validator.validate(route.method === 'GET' ? Object.fromEntries(req.query) : objectBody(req.body));
        if (ignored.length > 0) throw badRequest(`unknown field${ignored.length > 1 ? 's' : ''} ${ignored.map((f) => `"${f}"`).join(', ')}`);
        ctx.fields = data;
      }
      return render(await route.handle(ctx));
    },
    renderError: renderApiError,
  };
}
