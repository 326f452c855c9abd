/**
 * The controller's API on its `api` listener (default 9200): the domain model's routes
 * (domain/api.ts: scopes, auth methods, accounts, users, groups, roles, auth tokens,
 * `targets/<id>:authorize-session`, sessions), the Cairn-only worker list
 * (`GET /v1/workers`, recovery credential), the internal routes through which follower
 * controllers forward their workers' session calls (cluster-authority.ts) and its OpenAPI
 * document (`GET /v1/openapi.json`). Field names and the error body `{"kind","message"}`
 * follow the reference product's API (reference/gateway.md).
 *
 * Outside `/v1/` it serves the two pages the OIDC login ends on (domain/login-pages.ts).
 *
 * The domain routes authenticate with auth tokens (`Authorization: Bearer` or the split
 * cookie) and check grants; `workers` needs `Authorization: Bearer <controller {
 * auth_token }>` (the recovery credential); without a configured token it refuses every
 * request (401). On a PostgreSQL state shared by several controllers a follower forwards
 * every domain request that may write (and every one whose token use is due to be
 * recorded, and the OIDC callback) to the leader, and serves the others after a read
 * barrier.
 *
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import {
  bearerToken,
  badRequest,
  CairnError,
  FieldValidator,
  forwardToLeader,
  type ForwardStyle,
  notFound,
  OPENAPI_PATTERN,
  parseJsonBody,
  RouteTable,
  serviceOpenapiDocument,
  type HttpRequest,
  type HttpResponse,
  type HttpService,
  type PathSpec,
} from '../../kernel/http/index.js';
import { labelRoute } from '../../kernel/metrics/index.js';
import type { Leadership } from '../../kernel/store/index.js';
import { VERSION } from '../../kernel/version/index.js';
import { secretsEqual } from '../../kernel/util/sha256.js';
import type { KnownWorker } from './cluster-protocol.js';
import { serveClusterForward, type SessionAuthorityOptions } from './cluster-authority.js';
import { DOMAIN_PATHS, isDomainRoute, serveDomain } from './domain/api.js';
import { loginPage } from './domain/login-pages.js';
import type { GatewayDomain } from './domain/domain.js';
import { GatewayApiError } from './domain/errors.js';

/** What the API reads and changes. */
export interface ApiDeps {
  /** Workers by name, from their status reports. */
  readonly workers: () => ReadonlyMap<string, KnownWorker>;
  /** The configured bearer token; undefined: every request is refused. */
  readonly authToken?: string;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** The domain model (scopes, users, roles, …); absent: only the session routes are served. */
  readonly domain?: GatewayDomain;
  /** Several controllers on one PostgreSQL state: who leads (followers forward writes). */
  readonly leadership?: Leadership;
  /** The leader's side of the workers' forwarded session calls (cluster-authority.ts). */
  readonly cluster?: SessionAuthorityOptions;
}

interface ApiContext {
  readonly deps: ApiDeps;
  readonly params: Readonly<Record<string, string>>;
  readonly input: Record<string, unknown>;
}

type Route = PathSpec<ApiContext, unknown>;

const workersPath: Route = {
  pattern: 'workers',
  synopsis: 'List the workers that reported to this controller',
  operations: {
    read: {
      summary: 'list workers',
      fields: {},
      handle: async ({ deps }) => ({
        items: [...deps.workers().values()].map((w) => ({
          name: w.name,
          address: w.address,
          state: w.state,
          active_session_count: w.sessionCount,
          last_status_time: new Date(w.lastStatusMs).toISOString(),
          release_version: w.releaseVersion,
        })),
      }),
    },
  },
};

/** `GET /v1/openapi.json`: this API's OpenAPI document (the reference publishes none; docs/compatibility.md). */
const openapiPath: Route = {
  pattern: OPENAPI_PATTERN,
  synopsis: 'This OpenAPI document',
  operations: { read: { summary: 'read the OpenAPI document of this API', fields: {}, handle: async () => openapi } },
};

const table = new RouteTable<ApiContext, unknown>([workersPath, openapiPath]);

/** Built once from the route table (DESIGN.md "Routes are data"); POST and PUT are one operation here, documented as POST. */
const openapi = serviceOpenapiDocument(
  {
    title: 'Cairn access gateway controller API',
    description:
      'HTTP API of the access gateway controller (its `api` listener): the domain model (scopes, auth methods, accounts, users, groups, roles, auth tokens, `:authenticate`, host catalogs, hosts, host sets, targets and `:authorize-session`, credential stores, libraries, credentials, sessions) and the workers it knows. All API routes are prefixed with `/v1/`; the domain routes take an auth token as `Authorization: Bearer <token>` or as the split cookie, `workers` the controller\'s recovery `auth_token`.',
    version: VERSION,
  },
  [
    { prefix: '/', paths: table.paths },
    { prefix: '/', paths: DOMAIN_PATHS },
  ],
);

/** One compiled validator per route and operation, built at startup (STYLE.md: schemas compile once). */
const validators = new Map<string, FieldValidator>();
for (const p of table.paths) {
  for (const [op, spec] of Object.entries(p.spec.operations)) {
    validators.set(`${p.spec.pattern} ${op}`, new FieldValidator(spec!.fields ?? ({} as Record<string, TSchema>), spec!.required ?? [], `${op} ${p.spec.pattern}`));
  }
}

/** Constant-time comparison of the presented bearer token with the configured one. */
function authenticate(req: HttpRequest, token: string | undefined): void {
  if (token === undefined) throw new CairnError('unauthenticated', 'the controller has no "auth_token" configured: its api refuses every request');
  const given = bearerToken(req.headers, 'any-case-one-word');
  if (given === undefined || !secretsEqual(given, token)) throw new CairnError('unauthenticated', 'Unauthenticated, or invalid token.');
}

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
  const body = { kind, message: err.message, ...(fields.length > 0 ? { details: { request_fields: fields.map(([name, description]) => ({ name, description })) } } : {}) };
  return { status: err.status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/**
 * The api listener's {@link HttpService}. Errors: 401 missing or wrong bearer token; 404
 * unknown path; 405 method not declared; 400 malformed JSON, unknown or invalid fields
 * (named); the domain routes' errors (domain/api.ts).
 */
export function apiService(deps: ApiDeps): HttpService {
  return {
    async handle(req): Promise<HttpResponse> {
      const rel = req.path.startsWith('/v1/') ? req.path.slice(4).replace(/\/$/, '') : undefined;
      if (rel === undefined && deps.domain) {
        const page = loginPage(req);
        if (page) return page;
      }
      if (rel !== undefined && deps.cluster) {
        const forwarded = await serveClusterForward(req, rel, deps.cluster);
        if (forwarded) return forwarded;
      }
      if (rel !== undefined && deps.domain) {
        const lead = deps.leadership;
        if (lead && !lead.isLeader && isDomainRoute(rel)) {
          // The OIDC callback is a GET that completes a login: the leader holds the pending ones.
          const read = (req.method === 'GET' || req.method === 'HEAD') && !rel.startsWith('auth-methods/oidc:authenticate:callback');
          // A token whose use is due to be recorded goes to the leader too: only it writes.
          if (!read || deps.domain.tokenUseDue(req)) return forwardToLeader(req, lead, req.headers.authorization, FORWARD_STYLE);
          await lead.readBarrier();
        }
        const reply = await serveDomain(deps.domain, req, rel);
        if (reply) return reply;
      }
      const match = rel === undefined ? undefined : table.match(rel);
      if (!match) throw notFound(`path ${req.path} not found`);
      labelRoute(req, match.path.spec.pattern);
      authenticate(req, deps.authToken);
      const op = req.method === 'GET' || req.method === 'HEAD' ? 'read' : req.method === 'POST' || req.method === 'PUT' ? 'update' : undefined;
      const spec = op && match.path.spec.operations[op];
      if (!op || !spec) throw new CairnError('method_not_allowed', `method ${req.method} is not allowed on ${req.path}`);
      const raw = op === 'read' ? Object.fromEntries(req.query) : parseBody(req.body);
      const { data, ignored } = validators.get(`${match.path.spec.pattern} ${op}`)!.validate(raw);
      if (ignored.length > 0) throw badRequest(`unknown field${ignored.length > 1 ? 's' : ''} ${ignored.map((f) => `"${f}"`).join(', ')}`);
      const result = await spec.handle({ deps, params: match.params, input: data });
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(result) };
    },
    renderError: renderApiError,
  };
}

/** How a follower controller forwards a domain write to the leader: the token travels as `Authorization`, cookies too. */
const FORWARD_STYLE: ForwardStyle = { tokenHeader: 'Authorization', keep: /^(content-type|set-cookie|location|cache-control)$/i, pass: /^cookie$/i };

function parseBody(body: Buffer): Record<string, unknown> {
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
