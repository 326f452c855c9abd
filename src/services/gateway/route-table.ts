/**
 * The controller API's route table compiled once at start-up from the declarations of
 * routes.ts (route.ts): patterns matched by the kernel's {@link RouteTable}, one field
 * validator per route, and the OpenAPI document. A route without an access rule, a pattern
 * declared twice for one method, or a bad field schema stops start-up.
 *
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import {
  FieldValidator,
  PUBLIC,
  RouteTable,
  serviceOpenapiDocument,
  type Operation,
  type OperationSpec,
  type PathSpec,
  type RouteMatch,
} from '../../kernel/http/index.js';
import { VERSION } from '../../kernel/version/index.js';
import { CONTROLLER_TOKEN, WORKER_TOKEN, type GatewayMethod, type GatewayRoute, type RouteContext, type RouteReply } from './route.js';

/** The routes of one pattern, by method. */
type RouteMethods = Partial<Readonly<Record<GatewayMethod, GatewayRoute>>>;

/** A matched path: its pattern's routes and the captured parameters. */
export interface RouteHit {
  readonly pattern: string;
  readonly methods: RouteMethods;
  readonly params: Readonly<Record<string, string>>;
}

/** The compiled table; see the module doc. */
export interface CompiledRoutes {
  /** The routes of a path under `/v1/` (`rel`: without `/v1/` and a trailing `/`); undefined: none. */
  matchApi(rel: string): RouteHit | undefined;
  /** The routes of a path outside `/v1/` (the login pages); undefined: none. */
  matchRoot(path: string): RouteHit | undefined;
  /** The validator of a route that declares `fields` (and does not decode its request itself). */
  validator(route: GatewayRoute): FieldValidator | undefined;
  /** The OpenAPI document of the routes under `/v1/` that clients use (the controllers' internal calls left out). */
  readonly openapi: unknown;
}

/** The OpenAPI operation of each method (the kernel's logical names: POST documents `update`). */
const OPERATION: Readonly<Record<GatewayMethod, Operation>> = { GET: 'read', POST: 'update', PATCH: 'patch', DELETE: 'delete' };

/**
 * Match order: literal verb paths first (`auth-methods/oidc:authenticate:callback` would
 * match `auth-methods/:id:authenticate`), then verb patterns (`roles/:id` would match
 * `r_1:add-grants`), then the rest.
 */
const rank = (p: string) => (!p.includes('/:') && p.includes(':') ? -1 : /\/:id:[a-z-]+$/.test(p) ? 0 : 1);

type Spec = PathSpec<RouteContext, RouteReply>;

/** The kernel path spec of one pattern's routes: what the matcher and the OpenAPI document read. */
function pathSpec(pattern: string, methods: RouteMethods): Spec {
  const operations: Partial<Record<Operation, OperationSpec<RouteContext, RouteReply>>> = {};
  for (const r of Object.values(methods)) {
    const write = r.method === 'POST' || r.method === 'PATCH';
    operations[OPERATION[r.method]] = {
      summary: r.summary,
      fields: r.fields ?? {},
      required: r.required,
      rawBody: r.handlerDecodes === true && write,
      handle: r.handle,
    };
  }
  const synopsis = Object.values(methods).find((r) => r.synopsis)?.synopsis ?? [...new Set(Object.values(operations).map((o) => o.summary))].join('; ');
  return { pattern: pattern.replace(/^\//, ''), synopsis, params: pattern.includes(':id') ? { id: 'the resource id' } : undefined, operations };
}

/**
 * Compiles `routes`. @throws Error at start-up naming the route when one declares no access
 * rule (a route cannot be added without saying who may call it), when a method and pattern
 * are declared twice, or when a field schema does not compile.
 */
export function compileRoutes(routes: readonly GatewayRoute[]): CompiledRoutes {
  const byPattern = new Map<string, Partial<Record<GatewayMethod, GatewayRoute>>>();
  const validators = new Map<GatewayRoute, FieldValidator>();
  for (const r of routes) {
    const where = `${r.method} ${r.pattern}`;
    if (r.access !== PUBLIC && r.access !== CONTROLLER_TOKEN && r.access !== WORKER_TOKEN && typeof r.access !== 'function') {
      throw new Error(`gateway route ${where} declares no access rule (declare the grant it needs, a token, or PUBLIC)`);
    }
    const methods = byPattern.get(r.pattern) ?? {};
    if (methods[r.method]) throw new Error(`gateway route ${where} is declared twice`);
    methods[r.method] = r;
    byPattern.set(r.pattern, methods);
    if (r.fields && !r.handlerDecodes) validators.set(r, new FieldValidator(r.fields as Readonly<Record<string, TSchema>>, r.required ?? [], where));
  }
  const patterns = [...byPattern.keys()].sort((a, b) => rank(a) - rank(b));
  const api = new RouteTable(patterns.filter((p) => !p.startsWith('/')).map((p) => pathSpec(p, byPattern.get(p)!)));
  const root = new RouteTable(patterns.filter((p) => p.startsWith('/')).map((p) => pathSpec(p, byPattern.get(p)!)));
  const hit = (m: RouteMatch<RouteContext, RouteReply> | undefined, prefix: string): RouteHit | undefined => {
    if (!m) return undefined;
    const pattern = prefix + m.path.spec.pattern;
    return { pattern, methods: byPattern.get(pattern)!, params: m.params };
  };
  const openapi = serviceOpenapiDocument(
    {
      title: 'Cairn access gateway controller API',
      description:
        "HTTP API of the access gateway controller (its `api` listener): the domain model (scopes, auth methods, accounts, users, groups, roles, auth tokens, `:authenticate`, host catalogs, hosts, host sets, targets and `:authorize-session`, credential stores, libraries, credentials, sessions) and the workers it knows. All API routes are prefixed with `/v1/`; the domain routes take an auth token as `Authorization: Bearer <token>` or as the split cookie, `workers` the controller's recovery `auth_token`.",
      version: VERSION,
    },
    // The controllers' calls to each other (worker token) are no part of the API clients use.
    [{ prefix: '/', paths: api.paths.filter((p) => !Object.values(byPattern.get(p.spec.pattern)!).some((r) => r.access === WORKER_TOKEN)) }],
  );
  return {
    matchApi: (rel) => hit(api.match(rel), ''),
    matchRoot: (path) => hit(root.match(path.replace(/^\//, '')), '/'),
    validator: (r) => validators.get(r),
    openapi,
  };
}
