/**
 * Replies rendered from stored documents, kept per document version (issue 15: a read
 * serves a document's JSON serialised once, not once per request).
 *
 * The state store never changes a stored document in place: every write stores a new
 * object (kernel/store/state.ts `put`). A rendering kept per document *object* is
 * therefore current for as long as that object is the stored one, provided what else the
 * rendering reads (other tables: the names of linked policies, say) is covered by the
 * caller's `stamp`. Entries go with their documents (a `WeakMap`): nothing to evict.
 *
 * @module
 */

/** A reply body and its compact JSON (`json` is exactly `JSON.stringify(body)`). */
export interface Rendered {
  /** Shared by every request that gets this rendering: never change it. */
  readonly body: unknown;
  readonly json: string;
}

/** Renderings of stored documents of one kind, one per document (the latest stamp's). */
export class RenderCache<K extends object> {
  private readonly byDoc = new WeakMap<K, { readonly stamp: string; readonly rendered: Rendered }>();

  /**
   * The rendering of `doc` under `stamp`: the one kept for `doc` when it was made under the
   * same `stamp`, else `render(doc)` serialised once and kept (replacing the one under
   * another stamp). `stamp` must change whenever `render` could give something else for
   * the same `doc` (e.g. the index of the tables it reads, and any option of the caller's).
   */
  get(doc: K, stamp: string, render: (doc: K) => unknown): Rendered {
    const hit = this.byDoc.get(doc);
    if (hit !== undefined && hit.stamp === stamp) return hit.rendered;
    const body = render(doc);
    const rendered: Rendered = { body, json: JSON.stringify(body) };
    this.byDoc.set(doc, { stamp, rendered });
    return rendered;
  }
}
