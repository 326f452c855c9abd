/**
 * The namespace a request acts in, once the enterprise switch is on (spec 001 "Namespace
 * resolution"; reference/mesh.md §7): {@link requestNamespace}'s five levels, then checks
 * the namespace exists (`*` allowed on list endpoints only) and that a token of a
 * non-default namespace stays in it. Also the per-namespace pieces of responses: the
 * `Namespace` field (enterprise only) and the enterprise 404 text (reference/mesh.md §0.4).
 *
 * @module
 */
import { badRequest } from '../../kernel/http/index.js';
import type { StateStore } from '../../kernel/store/index.js';
import type { MeshAgentConfig } from './config.js';
import { meshForbidden, meshNotFound, type MeshContext } from './http.js';
import { DEFAULT_NAMESPACE, requestNamespace } from './namespace.js';
import type { Identity } from './resolve.js';
import { namespaceExists, nsOf } from './state.js';

/** `?ns=*` on a list endpoint: every namespace (reference/mesh.md §7). */
const ALL_NAMESPACES = '*';

/** What {@link scopeOf} reads of a request: its query and headers, the agent's configuration and state. */
export type ScopeContext = MeshContext<{ readonly config: MeshAgentConfig; readonly state: StateStore }, unknown>;

/**
 * The namespace of a request made by `who` (its token is level 4), with `body` the
 * body's `Namespace` (level 1); `list` allows `*`. Without the enterprise switch: `default`.
 * @throws 400 `Namespace "<n>" does not exist`; 403 `Permission denied: …` when a token of
 *   a non-default namespace names another one (our rules have no namespace blocks, so such
 *   a token's rules hold in its own namespace only, as the reference's implicit namespacing).
 */
export function scopeOf(ctx: ScopeContext, who: Identity | undefined, body?: unknown, list = false): string {
  const enterprise = !!ctx.deps.config.enterprise;
  const own = who?.token ? nsOf(who.token) : undefined;
  const ns = requestNamespace(ctx, enterprise, body, own);
  if (!enterprise) return ns;
  if (!(list && ns === ALL_NAMESPACES) && !namespaceExists(ctx.deps.state, ns)) throw badRequest(`Namespace "${ns}" does not exist`);
  if (own !== undefined && own !== DEFAULT_NAMESPACE && ns !== own) {
    throw meshForbidden(`Permission denied: token with AccessorID '${who!.accessorId}' belongs to namespace "${own}" and cannot act in namespace "${ns}"`);
  }
  return ns;
}

/** A filter keeping the documents of namespace `scope` (every one for `*`). */
export const inScope =
  (scope: string) =>
  (d: { readonly Namespace?: string }): boolean =>
    scope === ALL_NAMESPACES || nsOf(d) === scope;

/** `{Namespace}` for an object's rendering: with the enterprise switch only (the reference's ENT shape). */
export function shownNamespace(enterprise: boolean | undefined, d: { readonly Namespace?: string }): { Namespace?: string } {
  return enterprise ? { Namespace: nsOf(d) } : {};
}

/**
 * 404 for a missing `kind` (`token`, `policy`, …) in `ns`: `Requested <kind> does not exist:
 * ACL not found`, or in a non-default namespace the reference's enterprise text
 * `Requested <kind> not found in namespace <ns>: ACL not found` (reference/mesh.md §0.4).
 */
export function notFoundIn(kind: string, ns: string): Error {
  return meshNotFound(
    ns === DEFAULT_NAMESPACE ? `Requested ${kind} does not exist: ACL not found` : `Requested ${kind} not found in namespace ${ns}: ACL not found`,
  );
}
