/**
 * The domain API on the controller's api listener: every route of the domain model
 * (scopes, auth methods, accounts, users, groups, roles, auth tokens, `:authenticate`,
 * host catalogs, hosts, host sets, targets, credential stores, libraries and static
 * credentials),
 * matched by path and method, the caller resolved from its token (domain.ts) and the
 * reply rendered as JSON. Custom-action patterns are matched before `<c>/:id`, whose
 * capture would otherwise take `id:action`.
 *
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { CairnError, RouteTable, type HttpRequest, type HttpResponse, type Operation, type OperationSpec, type PathSpec } from '../../../kernel/http/index.js';
import { labelRoute } from '../../../kernel/metrics/index.js';
import { authMethodRoutes } from './auth-methods.js';
import { authTokenRoutes } from './auth-tokens.js';
import { authenticateRoutes } from './authenticate.js';
import { hostRoutes } from './hosts.js';
import { credentialLibraryRoutes } from './credential-libraries.js';
import { credentialStoreRoutes } from './credential-stores.js';
import { credentialRoutes } from './credentials.js';
import type { GatewayDomain } from './domain.js';
import { ANON_USER } from './ids.js';
import { principalRoutes } from './principals.js';
import { roleRoutes } from './roles.js';
import type { DomainRoute } from './route.js';
import { scopeRoutes } from './scopes.js';
import { targetRoutes } from './targets.js';
import { authorizeSessionRoute } from './authorize-session.js';
import { sessionRoutes } from './sessions-api.js';

/** Every domain route. */
export const DOMAIN_ROUTES: readonly DomainRoute[] = [...scopeRoutes(), ...authenticateRoutes(), ...authMethodRoutes(), ...principalRoutes(), ...roleRoutes(), ...authTokenRoutes(), ...hostRoutes(), ...targetRoutes(), ...credentialStoreRoutes(), ...credentialLibraryRoutes(), ...credentialRoutes(), authorizeSessionRoute, ...sessionRoutes()];

type Methods = Partial<Record<DomainRoute['method'], DomainRoute>>;

/** The OpenAPI operation of each method (the kernel's logical names: POST documents `update`). */
const OPERATION: Readonly<Record<DomainRoute['method'], Operation>> = { GET: 'read', POST: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Query parameters of every collection list (collection.ts, pagination.ts). */
const LIST_FIELDS: Readonly<Record<string, TSchema>> = {
  scope_id: Type.String({ description: 'the scope to list in (auth_method_id for accounts); default global' }),
  recursive: Type.Boolean({ description: 'also list in the scopes below' }),
  filter: Type.String({ description: 'a filter expression over {"item": <item>}' }),
  page_size: Type.Integer({ minimum: 0, description: 'items per page; default and at most 1000' }),
  list_token: Type.String({ description: 'the list_token of the previous page (or of a complete listing: what changed since)' }),
};

function table(routes: readonly DomainRoute[]): RouteTable<unknown, unknown> & { methods: Map<string, Methods> } {
  const methods = new Map<string, Methods>();
  for (const r of routes) methods.set(r.pattern, { ...methods.get(r.pattern), [r.method]: r });
  // Literal verb paths first (`auth-methods/oidc:authenticate:callback` would match
  // `auth-methods/:id:authenticate`), then verb patterns: `roles/:id` would match `r_1:add-grants`.
  const rank = (p: string) => (!p.includes('/:') && p.includes(':') ? -1 : /\/:id:[a-z-]+$/.test(p) ? 0 : 1);
  const patterns = [...methods.keys()].sort((a, b) => rank(a) - rank(b));
  // Operations are declared for the OpenAPI document only: serveDomain calls the routes' own handlers.
  const specs: PathSpec<unknown, unknown>[] = patterns.map((pattern) => {
    const operations: Partial<Record<Operation, OperationSpec<unknown, unknown>>> = {};
    for (const r of Object.values(methods.get(pattern)!)) {
      const list = r.method === 'GET' && !pattern.includes(':');
      operations[OPERATION[r.method]] = { summary: r.summary, fields: list ? LIST_FIELDS : {}, rawBody: r.method === 'POST' || r.method === 'PATCH', handle: () => Promise.reject(new Error(`${r.method} ${pattern} is served by serveDomain`)) };
    }
    return { pattern, synopsis: [...new Set(Object.values(operations).map((o) => o.summary))].join('; '), params: pattern.includes(':id') ? { id: 'the resource id' } : undefined, operations };
  });
  return Object.assign(new RouteTable<unknown, unknown>(specs), { methods });
}

const routes = table(DOMAIN_ROUTES);

/** The domain paths with their operations, for the controller's OpenAPI document (api.ts). */
export const DOMAIN_PATHS = routes.paths;

/** Whether `rel` (the path after `/v1/`) is a domain route (a follower forwards those that may write). */
export const isDomainRoute = (rel: string): boolean => routes.match(rel) !== undefined;

/**
 * Serves `req` when its path is a domain route (`rel` is the path after `/v1/`); undefined
 * when it is not one (the caller tries its other routes).
 * @throws CairnError: 401 bad token, 403 not granted, 404 unknown resource, 405 method not
 *   served on the path, 400 bad fields (named) or stale `version`.
 */
export async function serveDomain(d: GatewayDomain, req: HttpRequest, rel: string): Promise<HttpResponse | undefined> {
  const match = routes.match(rel);
  if (!match) return undefined;
  const pattern = match.path.spec.pattern;
  labelRoute(req, pattern);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const route = routes.methods.get(pattern)?.[method as DomainRoute['method']];
  if (!route) throw new CairnError('method_not_allowed', `method ${req.method} is not allowed on ${req.path}`);
  const caller = route.anonymous ? d.callerOf(ANON_USER) : await d.caller(req);
  const reply = await route.handle({ d, req, params: match.params, caller });
  if (reply.body === undefined) return { status: reply.status ?? 204, headers: reply.headers };
  return { status: reply.status ?? 200, headers: { 'Content-Type': 'application/json', ...reply.headers }, body: JSON.stringify(reply.body) };
}
