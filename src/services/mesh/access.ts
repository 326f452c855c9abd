/**
 * Who may call a discovery route (issue 25): the access rule every operation declares
 * ({@link MeshRule}), and the check the kernel runs with it before the handler
 * ({@link authorize}, the service's `ApiConventions.authorize`). Handlers get the checked
 * caller as `ctx.caller` and filter list results by it where the reference filters.
 *
 * @module
 */
import type { ApiContext, ApiRoute } from '../../kernel/http/index.js';
import { Authorizer, permissionDenied, type Access, type Resource } from './acl/index.js';
import type { MeshDeps } from './deps.js';
import { aclDisabled, meshForbidden } from './http.js';
import { scopeOf } from './ns-scope.js';
import type { Identity } from './resolve.js';

/** One permission a caller must hold: `access` on `segment` of `resource` (the reference's `resource:access`). */
export interface Permission {
  readonly resource: Resource;
  readonly access: Access;
  /** The object's name (a key, a service, a node); absent for resources without segments (`acl`, `operator`). */
  readonly segment?: string;
  /** True (keys only): `write` on every key under `segment`, as a recursive delete needs (`Authorizer.keyWritePrefix`). */
  readonly prefix?: boolean;
}

/**
 * The access rule of a discovery operation.
 * - `system: 'acl'`: a route of the ACL system itself (`/acl/...`): with ACLs off it answers
 *   401 `ACL support disabled` (reference/mesh.md §0.4); else the token must resolve.
 * - `system: 'data'`: every other route: with ACLs off the caller is the management
 *   identity (every check passes, no token); else the token's (the agent's default token
 *   or `anonymous` without one).
 * An unknown or expired secret is 403 `ACL not found`; then each of `needs` is checked in
 * order (403 `Permission denied: token with AccessorID '…' lacks permission '…' on "…"`).
 * No `needs`: any caller whose token resolves; the handler filters what it shows.
 */
export interface MeshRule {
  readonly system: 'acl' | 'data';
  readonly needs: readonly Permission[];
  /**
   * True: the request's namespace is resolved with the caller's token before `needs` are
   * checked, so its 400 (`Namespace "x" does not exist`) and 403 (a token confined to
   * another namespace) come first, as on the KV endpoints.
   */
  readonly namespaced?: boolean;
}

/** A discovery route as its table declares it. */
export type MeshRouteSpec = ApiRoute<MeshDeps, MeshRule, Identity>;

/** An `/acl/...` route that needs `acl:<access>` (`undefined`: only a token that resolves, e.g. `token/self`). */
export function aclRule(access?: 'read' | 'write'): MeshRule {
  return { system: 'acl', needs: access ? [{ resource: 'acl', access }] : [] };
}

/** A data route needing every one of `needs`, in order. */
export function needs(...permissions: Permission[]): MeshRule {
  return { system: 'data', needs: permissions };
}

/** A data route needing `access` on `segment` of `resource`. */
export function need(resource: Resource, access: Access, segment?: string): MeshRule {
  return needs({ resource, access, segment });
}

/** A data route any caller whose token resolves may call; the handler filters what it shows. */
export const ANY_CALLER: MeshRule = Object.freeze({ system: 'data', needs: [] });

/** The identity of a data request (DNS queries too) with ACLs off: the management authorizer, no token. */
function management(): Identity {
  return { token: undefined, accessorId: '', authorizer: Authorizer.management() };
}

/**
 * The identity behind `secret` on a data endpoint (DNS answers and {@link authorize}): with
 * ACLs off, the management identity; with ACLs on, the token's.
 * @throws 403 `ACL not found` for an unknown or expired secret.
 */
export function identityOf(deps: Pick<MeshDeps, 'config' | 'acl'>, secret: string | undefined): Identity {
  return deps.config.acl.enabled ? deps.acl.resolve(secret) : management();
}

/**
 * Resolves the caller of `ctx` and checks `rule` ({@link MeshRule}); returns the caller.
 * @throws 401 `ACL support disabled`; 403 `ACL not found` / `Permission denied: …`; with
 *   `namespaced`, the namespace's 400/403 (ns-scope.ts).
 */
export function authorize(rule: MeshRule, ctx: ApiContext<unknown, Identity>): Identity {
  const deps = ctx.deps as MeshDeps;
  requireAclSupport(rule, deps);
  const who = identityOf(deps, ctx.secret);
  if (rule.namespaced) scopeOf(ctx as ApiContext<MeshDeps>, who);
  for (const p of rule.needs) {
    const ok = p.prefix ? who.authorizer.keyWritePrefix(p.segment ?? '') : who.authorizer.allowed(p.resource, p.access, p.segment);
    if (!ok) throw meshForbidden(permissionDenied(who.accessorId, p.resource, p.access, p.segment).message);
  }
  return who;
}

/**
 * Throws 401 `ACL support disabled` for a rule of the ACL system when ACLs are off: the first
 * check of every `/acl/*` route, before its body is decoded (the reference's handlers check it
 * first) and before a token write is forwarded. @throws 401 `ACL support disabled`.
 */
export function requireAclSupport(rule: MeshRule, deps: MeshDeps): void {
  if (rule.system === 'acl' && !deps.config.acl.enabled) throw aclDisabled();
}
