/**
 * Paged lists the reference's way (reference/sched.md §1.7, its `paginator`): walk the items
 * in token order, skip those whose token sorts before `next_token`, apply the `filter`
 * expression (§1.8) to the full object, then the caller's selector (namespace ACL); the
 * (`per_page`+1)-th accepted item is not returned and its token becomes `X-Sched-NextToken`.
 * Because a page starts at a token rather than an offset, items inserted or removed between
 * requests never make a later page repeat or skip one of the others.
 *
 * @module
 */
import { compileFilter, FilterError, type Filter } from '../../kernel/bexpr/index.js';
import { schedBadRequest } from './http.js';

/** What {@link paginate} takes. */
export interface PageRequest<T> {
  /** Items in ascending token order. */
  readonly items: Iterable<T>;
  readonly tokenOf: (item: T) => string;
  /** `per_page`; 0: everything. */
  readonly perPage: number;
  /** `next_token`; `''`: from the start. */
  readonly nextToken: string;
  /** `filter`, compiled by {@link compileListFilter}; undefined: none. */
  readonly filter?: Filter;
  /** The object the filter sees (the full object, not the stub). */
  readonly filterOn?: (item: T) => unknown;
  /** Further selection after the filter (ACL); default: every item. */
  readonly select?: (item: T) => boolean;
  /** Does `token` sort before `nextToken`? Default: string order (tokens that hold numbers, such as `<CreateIndex>.<ID>`, compare their own way). */
  readonly before?: (token: string, nextToken: string) => boolean;
}

/** A page and the token of the next one (`''` on the last page). */
export interface Page<T> {
  readonly items: T[];
  readonly nextToken: string;
}

/**
 * `filter` compiled, or undefined when absent or empty.
 * @throws 400 `failed to create result paginator: failed to read filter expression: <why>` (reference/sched.md §1.7).
 */
export function compileListFilter(filter: string | null): Filter | undefined {
  if (filter === null || filter === '') return undefined;
  try {
    return compileFilter(filter);
  } catch (err) {
    if (err instanceof FilterError) throw schedBadRequest(`failed to create result paginator: failed to read filter expression: ${err.message}`);
    throw err;
  }
}

/**
 * One page of `r.items` (module doc). @throws 400 `failed to read result page: <why>` when the
 * filter cannot be evaluated on an item (reference/sched.md §1.7, e.g. a field that does not exist).
 */
export function paginate<T>(r: PageRequest<T>): Page<T> {
  const items: T[] = [];
  for (const item of r.items) {
    const token = r.tokenOf(item);
    if (r.nextToken !== '' && (r.before ? r.before(token, r.nextToken) : token < r.nextToken)) continue;
    if (r.filter) {
      let ok: boolean;
      try {
        ok = r.filter.matches(r.filterOn ? r.filterOn(item) : item);
      } catch (err) {
        if (err instanceof FilterError) throw schedBadRequest(`failed to read result page: ${err.message}`);
        throw err;
      }
      if (!ok) continue;
    }
    if (r.select && !r.select(item)) continue;
    if (r.perPage > 0 && items.length === r.perPage) return { items, nextToken: token };
    items.push(item);
  }
  return { items, nextToken: '' };
}

/** The reply headers of a page: `X-Sched-NextToken` only when there is a next page (reference/sched.md §1.4). */
export function nextTokenHeader(nextToken: string): Record<string, string> {
  return nextToken === '' ? {} : { 'X-Sched-NextToken': nextToken };
}
