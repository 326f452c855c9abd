/**
 * Namespaces (spec 001 "Namespace resolution"; reference/mesh.md §0.4, §7). Without the
 * enterprise switch a request naming a namespace by `?ns=` or `X-Mesh-Namespace` is
 * refused with the reference's community-edition texts, and a body's `Namespace` is
 * ignored (the reference's CE structs have no such field). With it, the namespace is the
 * first of: body `Namespace` > `?ns=` > `X-Mesh-Namespace` > the token's namespace >
 * `default` (ns-scope.ts checks the result and confines tokens of other namespaces).
 *
 * @module
 */
import { badRequest } from '../../kernel/http/index.js';
import type { MeshContext, MeshRoute } from './http.js';

/** The namespace everything lives in unless another is named. */
export const DEFAULT_NAMESPACE = 'default';

/** Where a request may name its namespace, highest precedence first. */
export interface NamespaceSources {
  /** `Namespace` of the JSON body (body-bearing endpoints only). */
  readonly body?: string;
  /** `?ns=`. */
  readonly query?: string | null;
  /** `X-Mesh-Namespace`. */
  readonly header?: string;
  /** The namespace of the request's ACL token. */
  readonly token?: string;
}

/** The five-level resolution of spec 001: the first non-empty source, else `default`. */
export function resolveNamespace(s: NamespaceSources): string {
  for (const v of [s.body, s.query, s.header, s.token]) if (v) return v;
  return DEFAULT_NAMESPACE;
}

function headerOf(ctx: MeshContext<unknown>): string | undefined {
  const h = ctx.req.headers['x-mesh-namespace'];
  return typeof h === 'string' ? h : undefined;
}

/**
 * Refuses a namespace named in the header or query without the enterprise switch
 * (reference/mesh.md §0.4, header checked first as in the reference).
 * @throws 400 `Invalid header: "X-Mesh-Namespace" - Namespaces are a Consul Enterprise feature`
 *   or `Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature`.
 */
function refuseNamespaces(ctx: MeshContext<unknown>): void {
  if (headerOf(ctx)) throw badRequest('Invalid header: "X-Mesh-Namespace" - Namespaces are a Consul Enterprise feature');
  if (ctx.query.get('ns')) throw badRequest('Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature');
}

/**
 * The namespace of a request: {@link resolveNamespace} with the enterprise switch on,
 * else `default` after {@link refuseNamespaces}. @throws 400 for a non-string body `Namespace`.
 */
export function requestNamespace(ctx: MeshContext<unknown>, enterprise: boolean, body?: unknown, tokenNamespace?: string): string {
  if (!enterprise) {
    refuseNamespaces(ctx);
    return DEFAULT_NAMESPACE;
  }
  if (body !== undefined && body !== null && typeof body !== 'string') throw badRequest('Namespace must be a string');
  return resolveNamespace({ body: body as string | undefined, query: ctx.query.get('ns'), header: headerOf(ctx), token: tokenNamespace });
}

/**
 * `routes` with every operation refusing a named namespace ({@link refuseNamespaces}) before
 * anything else unless `enterprise`: the community edition refuses namespaces on every
 * endpoint, not only the ones that read them, before the access rule (so a request naming
 * one gets the 400 whoever sends it) and before a forwarding decision that reads the request.
 */
export function withNamespaceGuard<D, A, I>(routes: readonly MeshRoute<D, A, I>[], enterprise: boolean): readonly MeshRoute<D, A, I>[] {
  if (enterprise) return routes;
  return routes.map((r) => ({
    ...r,
    methods: Object.fromEntries(
      Object.entries(r.methods).map(([m, op]) => [
        m,
        // Through the forwarding decision, which the kernel takes first: the access rule stays as declared.
        { ...op!, forward: refusingFirst(op!.forward) },
      ]),
    ),
  }));
}

/** `declared` (a value, or a function of the request) as a function that first refuses a named namespace. */
function refusingFirst<D, I, T>(declared: T | ((ctx: MeshContext<D, I>) => T)): (ctx: MeshContext<D, I>) => T {
  return (ctx) => {
    refuseNamespaces(ctx);
    return typeof declared === 'function' ? (declared as (ctx: MeshContext<D, I>) => T)(ctx) : declared;
  };
}
