/**
 * The domain API on the controller's api listener: every route of the domain model
 * (scopes, auth methods, accounts, users, groups, roles, auth tokens, `:authenticate`),
 * matched by path and method, the caller resolved from its token (domain.ts) and the
 * reply rendered as JSON. Custom-action patterns are matched before `<c>/:id`, whose
 * capture would otherwise take `id:action`.
 *
 * @module
 */
import { CairnError, RouteTable, type HttpRequest, type HttpResponse, type PathSpec } from '../../../kernel/http/index.js';
import { labelRoute } from '../../../kernel/metrics/index.js';
import { authMethodRoutes } from './auth-methods.js';
import { authTokenRoutes } from './auth-tokens.js';
import { authenticateRoutes } from './authenticate.js';
import type { GatewayDomain } from './domain.js';
import { principalRoutes } from './principals.js';
import { roleRoutes } from './roles.js';
import type { DomainRoute } from './route.js';
import { scopeRoutes } from './scopes.js';
import { authorizeSessionRoute } from './authorize-session.js';
import { sessionRoutes } from './sessions-api.js';

/** Every domain route. */
export const DOMAIN_ROUTES: readonly DomainRoute[] = [...scopeRoutes(), ...authenticateRoutes(), ...authMethodRoutes(), ...principalRoutes(), ...roleRoutes(), ...authTokenRoutes(), authorizeSessionRoute, ...sessionRoutes()];

type Methods = Partial<Record<DomainRoute['method'], DomainRoute>>;

function table(routes: readonly DomainRoute[]): RouteTable<never, never> & { methods: Map<string, Methods> } {
  const methods = new Map<string, Methods>();
  for (const r of routes) methods.set(r.pattern, { ...methods.get(r.pattern), [r.method]: r });
  // Verb patterns first: `roles/:id` would match `r_1:add-grants`.
  const rank = (p: string) => (/\/:id:[a-z-]+$/.test(p) ? 0 : 1);
  const patterns = [...methods.keys()].sort((a, b) => rank(a) - rank(b));
  const specs: PathSpec<never, never>[] = patterns.map((pattern) => ({ pattern, synopsis: pattern, operations: {} }));
  return Object.assign(new RouteTable<never, never>(specs), { methods });
}

const routes = table(DOMAIN_ROUTES);

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
  const caller = await d.caller(req);
  const reply = await route.handle({ d, req, params: match.params, caller });
  if (reply.body === undefined) return { status: reply.status ?? 204, headers: reply.headers };
  return { status: reply.status ?? 200, headers: { 'Content-Type': 'application/json', ...reply.headers }, body: JSON.stringify(reply.body) };
}
