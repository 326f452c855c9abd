/**
 * Paginated lists as the reference's API has them since 0.16 (Boundary
 * `internal/pagination`, https://developer.hashicorp.com/boundary/docs/api-clients/api/pagination):
 *
 * - request `page_size` (at most, and by default, {@link MAX_PAGE_SIZE}, the reference's
 *   `max_page_size` default; larger values are lowered to it, as the reference does) and
 *   `list_token` (from the previous reply);
 * - reply `items`, `est_item_count` (how many items the whole listing has), `list_token`, `response_type` (`delta`: more pages follow; `complete`: the last page),
 *   `sort_by` and `sort_dir`.
 *
 * The first listing is sorted newest first by `created_time` (then id); its pages follow
 * each other by the last item's position. The token of a complete listing asks, later, for
 * what changed since it was made: items updated after it, newest `updated_time` first.
 * The token is an opaque base64url JSON document; it only says where to continue, so each
 * page still checks the caller's grants, and a token is refused for another collection,
 * parent, `recursive` or `filter`.
 *
 * @module
 */
import { sha256Hex } from '../../../kernel/util/sha256.js';
import { invalidFields } from './errors.js';

/** The largest page, and the page size when none is asked for (the reference's `max_page_size` default). */
const MAX_PAGE_SIZE = 1000;

/** What a token is bound to. */
export interface ListingKey {
  readonly path: string;
  readonly parentId: string;
  readonly recursive: boolean;
  readonly filter: string;
}

/** The decoded `list_token`. */
interface Token {
  /** sha256 of the listing key. */
  readonly k: string;
  /** `c`: pages of the first listing by `created_time`; `u`: pages of a refresh by `updated_time`. */
  readonly m: 'c' | 'u';
  /** Refresh: items updated after this time (epoch ms). */
  readonly since?: number;
  /** When the listing (or refresh) these pages belong to started (epoch ms). */
  readonly started: number;
  /** The last item sent: its sort time (epoch ms) and id. */
  readonly at?: number;
  readonly id?: string;
}

interface Item {
  readonly id: string;
  readonly created_time: string;
  readonly updated_time: string;
}

const keyOf = (k: ListingKey) => sha256Hex(JSON.stringify([k.path, k.parentId, k.recursive, k.filter]));
const encode = (t: Token) => Buffer.from(JSON.stringify(t)).toString('base64url');

/**
 * Whether the token's times are finite numbers, its position is a time and an id together
 * (or neither): a forged token with other types would otherwise page silently wrong.
 */
function wellFormed(t: Token): boolean {
  const time = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (!time(t.started) || (t.since !== undefined && !time(t.since))) return false;
  if (t.at === undefined && t.id === undefined) return true;
  return time(t.at) && typeof t.id === 'string';
}

/** The parsed token. @throws 400 naming `list_token` when it is not one of this listing's. */
function decode(text: string, key: string): Token {
  let t: Token | undefined;
  try {
    t = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Token;
  } catch {
    t = undefined;
  }
  if (!t || typeof t !== 'object' || (t.m !== 'c' && t.m !== 'u') || !wellFormed(t)) throw invalidFields({ list_token: 'Invalid list token.' });
  if (t.k !== key) throw invalidFields({ list_token: 'The list token was made for another listing (collection, parent, recursive or filter).' });
  return t;
}

/** One list request's paging: which documents it wants and the reply for those that pass. */
export interface PageRequest {
  /** Whether `doc` belongs to the listing (a refresh wants only what changed; before grants and filter). */
  wanted(doc: Item): boolean;
  /** The reply body of the items that passed, each with its view. */
  reply(items: ReadonlyArray<{ readonly doc: Item; readonly view: Record<string, unknown> }>): Record<string, unknown>;
}

/**
 * The paging of a list request with `query` (`page_size`, `list_token`) at `nowMs`.
 * @throws 400 naming `page_size` (not a positive integer) or `list_token`.
 */
export function pageRequest(query: URLSearchParams, listing: ListingKey, nowMs: number): PageRequest {
  const sizeText = query.get('page_size');
  let size = MAX_PAGE_SIZE;
  if (sizeText !== null && sizeText !== '') {
    if (!/^\d+$/.test(sizeText)) throw invalidFields({ page_size: 'Must be a positive integer.' });
    // 0 is "not set" in the reference's protobuf request.
    if (Number(sizeText) > 0) size = Math.min(Number(sizeText), MAX_PAGE_SIZE);
  }
  const key = keyOf(listing);
  const tokenText = query.get('list_token');
  // A complete listing's token turns into a refresh whose first page starts now.
  const given = tokenText ? decode(tokenText, key) : undefined;
  const token: Token = given ?? { k: key, m: 'c', started: nowMs };
  const byUpdate = token.m === 'u';
  const timeOf = (doc: Item) => Date.parse(byUpdate ? doc.updated_time : doc.created_time);
  /** Newest first, then id descending. */
  const before = (a: { t: number; id: string }, b: { t: number; id: string }) => a.t > b.t || (a.t === b.t && a.id > b.id);

  return {
    wanted: (doc) => !byUpdate || token.since === undefined || Date.parse(doc.updated_time) > token.since,
    reply(all) {
      const pos = (i: { doc: Item }) => ({ t: timeOf(i.doc), id: i.doc.id });
      const sorted = [...all].sort((a, b) => (before(pos(a), pos(b)) ? -1 : 1));
      const rest = token.at === undefined ? sorted : sorted.filter((i) => before({ t: token.at!, id: token.id! }, pos(i)));
      const page = rest.slice(0, size);
      const more = rest.length > size;
      const last = page.at(-1)?.doc;
      const next: Token = more
        ? { ...token, at: timeOf(last!), id: last!.id }
        : // Complete: the next request asks for what changed since this listing started.
          { k: key, m: 'u', since: token.started, started: nowMs };
      return {
        items: page.map((i) => i.view),
        est_item_count: sorted.length,
        list_token: encode(next),
        response_type: more ? 'delta' : 'complete',
        sort_by: byUpdate ? 'updated_time' : 'created_time',
        sort_dir: 'desc',
      };
    },
  };
}
