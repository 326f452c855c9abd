/**
 * The controller API's route declaration (DESIGN.md "Routes are data"; issue 25): one
 * entry per method and path pattern, stating who may call it ({@link GatewayAccess}),
 * where it runs, the fields the dispatcher validates, and the handler. Every route of the
 * `api` listener — the OIDC login pages, the workers' forwarded session calls, the domain
 * model, the worker list and the OpenAPI document — is one such entry in routes.ts; the
 * dispatcher (api.ts over route-table.ts) resolves the caller and checks the rule before the
 * handler runs.
 *
 * @module
 */
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { HttpRequest, Public } from '../../kernel/http/index.js';
import type { Leadership } from '../../kernel/store/index.js';
import type { KnownWorker } from './cluster-protocol.js';
import type { SessionAuthorityOptions } from './cluster-authority.js';
import type { AclResource } from './domain/acl.js';
import type { Caller, GatewayDomain } from './domain/domain.js';
import type { Input } from './domain/input.js';

/** What the API reads and changes. */
export interface ApiDeps {
  /** Workers by name, from their status reports. */
  readonly workers: () => ReadonlyMap<string, KnownWorker>;
  /** The configured recovery `auth_token`; undefined: the routes it guards refuse every request. */
  readonly authToken?: string;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** The domain model (scopes, users, roles, …) and its state. */
  readonly domain: GatewayDomain;
  /** Several controllers on one PostgreSQL state: who leads (followers forward writes). */
  readonly leadership?: Leadership;
  /** The leader's side of the workers' forwarded session calls (cluster-authority.ts). */
  readonly cluster: SessionAuthorityOptions;
}

/**
 * A grant the caller must hold: `action` on `resource` (the reference's ACL check,
 * domain/acl.ts); `owner` is the user the resource belongs to, for `<action>:self` grants.
 */
export interface Grant {
  readonly resource: AclResource;
  readonly action: string;
  readonly owner?: string;
}

/**
 * The rule of a list the handler filters (a recursive list: the reference shows the items
 * of the scopes where the caller may list and leaves the others out, never refusing):
 * the caller is resolved (401 for a bad token), and the handler asks the ACL per scope.
 */
export const FILTERED = Object.freeze({ filtered: true as const });

/** The controller's recovery `auth_token` as `Authorization: Bearer` (Cairn-only routes: the worker list, the OpenAPI document). */
export const CONTROLLER_TOKEN = Object.freeze({ token: 'controller' as const });

/** The controllers' `worker_auth_token` as `Authorization: Bearer` (the internal routes of cluster-authority.ts). */
export const WORKER_TOKEN = Object.freeze({ token: 'worker' as const });

/**
 * Who may call an operation:
 * - `PUBLIC` (kernel): anyone, no caller resolved (the login pages, the OIDC callback);
 * - {@link CONTROLLER_TOKEN} / {@link WORKER_TOKEN}: a configured bearer token;
 * - a function of the request returning the {@link Grant} the caller needs (or
 *   {@link FILTERED}): the dispatcher resolves the caller from the auth token first (401),
 *   then calls it (it may throw the 404 of an unknown resource or the 400 of the input the
 *   rule is computed from, in the reference's order), then checks the grant (403).
 */
type GatewayAccess = Public | typeof CONTROLLER_TOKEN | typeof WORKER_TOKEN | ((ctx: RouteContext) => Grant | typeof FILTERED);

/** What a handler gets; `F` is the validated {@link GatewayRoute.fields}. */
export interface RouteContext<F = Record<string, unknown>> {
  readonly deps: ApiDeps;
  /** `deps.domain`. */
  readonly d: GatewayDomain;
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  /**
   * The caller resolved from the request's auth token and checked against the route's grant.
   * @throws Error (a 500: a programming error) on a route whose access is not a grant rule.
   */
  readonly caller: Caller;
  /** The query (GET) or body (POST) fields the route declares, validated; `{}` without `fields`. */
  readonly fields: F;
  /**
   * The JSON body as an {@link Input}, decoded once per request (the access rule of a create
   * and its handler read the same one). @throws 400 `InvalidArgument` when it is not a JSON object.
   */
  input(): Input;
}

/** A handler's reply: `body` undefined → no body (204 unless `status`). */
export interface RouteReply {
  readonly status?: number;
  readonly body?: unknown;
  /** A list value sends the header once per element (`Set-Cookie`). */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** The body as it is, with its own `Content-Type` in `headers` (the HTML login pages). */
  readonly raw?: string;
}

/** HTTP methods a route may declare (HEAD is GET). */
export type GatewayMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One route: see the module doc. */
export interface GatewayRoute<P extends TProperties = TProperties> {
  readonly method: GatewayMethod;
  /** Relative to `/v1/` (`roles/:id:add-principals`, the kernel's pattern syntax), or absolute (`/authentication-complete`) outside it. */
  readonly pattern: string;
  readonly summary: string;
  /** The path's description in the OpenAPI document; default: the summaries of its routes. */
  readonly synopsis?: string;
  readonly access: GatewayAccess;
  /**
   * Where it runs on a follower controller (several on one PostgreSQL state): `leader`
   * forwards every request, reads too; `local` answers here. Absent: requests that may write
   * go to the leader, and reads too when their token's last use is due to be recorded;
   * other reads are served here after a read barrier.
   */
  readonly forward?: 'leader' | 'local';
  /** Answered only where the state is written (the leader's side of a forward); elsewhere 503. */
  readonly writerOnly?: boolean;
  /**
   * The query (GET) or JSON object body (POST) fields, validated before the handler
   * (kernel FieldValidator: 400 naming the first bad field, and unknown fields).
   */
  readonly fields?: P;
  /** Names of required `fields`. */
  readonly required?: readonly (keyof P & string)[];
  /**
   * The handler decodes the request itself, with the reference's per-field texts
   * (domain/input.ts, domain/pagination.ts); `fields` then only document the query, and a
   * POST/PATCH body is documented as free-form.
   */
  readonly handlerDecodes?: boolean;
  readonly handle: (ctx: RouteContext<Static<TObject<P>>>) => Promise<RouteReply>;
}

/**
 * A route whose handler reads typed `fields` (all of them `required`, as the workers' calls
 * send them), as an entry of the table (whose handlers take the fields untyped).
 */
export function withFields<P extends TProperties>(route: GatewayRoute<P> & { readonly fields: P }): GatewayRoute {
  // The dispatcher validates `fields`, every one required, before the handler runs: the handler's type holds.
  return { ...route, required: Object.keys(route.fields) } as unknown as GatewayRoute;
}

/** A reply with a JSON body and status 200. */
export const ok = (body: unknown): RouteReply => ({ status: 200, body });
