/**
 * What every catalog, health and agent list read shares (reference/mesh-catalog.md
 * "Common rules"):
 *
 * - ACL filtering: entries the token cannot read are left out, never refused, and the
 *   reply carries `X-Mesh-Results-Filtered-By-ACLs: true` when something was, but only
 *   to a caller that presented a token (the reference's `maskResultsFilteredByACLs`:
 *   with `filter=`, the header would otherwise tell anonymous callers what exists);
 * - `filter=` (go-bexpr, kernel/bexpr) over the JSON fields of the returned objects;
 * - `node-meta=key:value` (repeatable, all must match) and `tag=` (repeatable, all must match).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { compileFilter, FilterError, type Filter } from '../../../kernel/bexpr/index.js';
import { badRequest, type ApiQuery } from '../../../kernel/http/index.js';
import type { Resource } from '../acl/index.js';
import type { Ctx } from '../deps.js';
import type { Identity } from '../resolve.js';
import type { StringMap } from './model.js';

/** The `filter=` query parameter of the lists that take it ({@link filterOf}). */
export const FILTER_QUERY: ApiQuery = {
  filter: Type.String({ description: 'A boolean expression (go-bexpr) over the fields of the returned objects, e.g. `Service.Tags contains "v2"`.' }),
};

/** The repeatable `node-meta=key:value` query parameter ({@link nodeMetaOf}). */
export const NODE_META_QUERY: ApiQuery = {
  'node-meta': Type.Array(Type.String(), { description: 'Repeatable `key:value`: only nodes whose meta holds every pair.' }),
};

/** The repeatable `tag=` query parameter of a service's instances ({@link tagsMatch}). */
export const TAG_QUERY: ApiQuery = {
  tag: Type.Array(Type.String(), { description: 'Repeatable: only instances carrying every tag (case-insensitive).' }),
};

/** The header a list carries when ACLs left something out. */
export const FILTERED_HEADER = 'X-Mesh-Results-Filtered-By-ACLs';

/** One read's ACL view: what the caller may read, and whether anything was left out. */
export class AclView {
  private dropped = false;

  /** `who` reads, having presented `secret` (a request's caller and its token; DNS: the identity of its configured token). */
  constructor(
    readonly who: Identity,
    private readonly secret: string | undefined,
  ) {}

  /** The view of a request's checked caller. */
  static of(ctx: Pick<Ctx, 'caller' | 'secret'>): AclView {
    return new AclView(ctx.caller, ctx.secret);
  }

  /** May the caller read `segment` of `resource`? A no is remembered for {@link headers}. */
  can(resource: Extract<Resource, 'node' | 'service' | 'agent'>, segment: string): boolean {
    const ok = this.who.authorizer.allowed(resource, 'read', segment);
    if (!ok) this.dropped = true;
    return ok;
  }

  /** `X-Mesh-Results-Filtered-By-ACLs: true` when something was left out and the caller gave a token. */
  headers(): Record<string, string> {
    return this.dropped && this.secret ? { [FILTERED_HEADER]: 'true' } : {};
  }
}

/**
 * `?filter=` compiled, undefined when absent or empty.
 * @throws 400 `Failed to create boolean expression evaluator: <why>`.
 */
export function filterOf(ctx: Ctx): Filter | undefined {
  const text = ctx.query.get('filter');
  if (!text) return undefined;
  try {
    return compileFilter(text);
  } catch (err) {
    if (err instanceof FilterError) throw badRequest(`Failed to create boolean expression evaluator: ${err.message}`);
    throw err;
  }
}

/** Keeps the items whose JSON form matches `filter` (all when undefined). @throws 400 when the filter cannot be evaluated on an item. */
export function applyFilter<T>(items: readonly T[], filter: Filter | undefined): T[] {
  if (!filter) return [...items];
  try {
    return items.filter((i) => filter.matches(i));
  } catch (err) {
    if (err instanceof FilterError) throw badRequest(err.message);
    throw err;
  }
}

/** `?node-meta=key:value` pairs (a value may hold `:`; no `:` means an empty value). */
export function nodeMetaOf(ctx: Ctx): Array<[string, string]> {
  return ctx.query.getAll('node-meta').map((kv) => {
    const at = kv.indexOf(':');
    return at < 0 ? [kv, ''] : [kv.slice(0, at), kv.slice(at + 1)];
  });
}

/** Whether node meta `meta` holds every pair of `wanted`. */
export function metaMatches(meta: StringMap | null, wanted: ReadonlyArray<[string, string]>): boolean {
  return wanted.every(([k, v]) => meta?.[k] === v);
}

/** Whether `tags` holds every tag of `wanted` (the reference matches tags case-insensitively). */
export function tagsMatch(tags: readonly string[], wanted: readonly string[]): boolean {
  const have = new Set(tags.map((t) => t.toLowerCase()));
  return wanted.every((t) => have.has(t.toLowerCase()));
}

/** A path parameter that must not be empty. @throws 400 `text` (`Missing node name`, …). */
export function required(value: string | undefined, text: string): string {
  if (!value) throw badRequest(text);
  return value;
}
