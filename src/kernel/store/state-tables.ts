/**
 * The in-memory tables of a {@link StateStore} (state.ts): per declared table its
 * documents by id, its unique secondary indexes (index name → key → id), its groupings
 * (group name → key → ids), its indexes of
 * the last change, and its ids in sorted order, kept up to date by every write so an
 * ordered read never sorts the table again.
 *
 * @module
 */
import type { Indexed, TableSpec } from './state-api.js';

/** A stored document. */
export type Doc = Indexed & Record<string, unknown>;

/** One table in memory. */
export interface Table {
  readonly spec: TableSpec;
  readonly docs: Map<string, Doc>;
  /** index name → key → id */
  readonly unique: Map<string, Map<string, string>>;
  /** group name → key → ids (TableSpec `groups`) */
  readonly grouped: Map<string, Map<string, Set<string>>>;
  /** Index of the last change to this table, durable or not (memory). */
  index: number;
  /** Index of the last durable, announced change to this table. */
  committedIndex: number;
  /**
   * The ids in ascending order: built on the first ordered read, then kept up to date by
   * every commit (a binary search and one splice per new or deleted id), so an ordered read
   * never sorts the table again and a scan can start anywhere in O(log n).
   */
  sorted: string[] | undefined;
}

/** The declared tables of one store. */
export class StateTables {
  private readonly tables = new Map<string, Table>();

  /** @throws Error when a table name is not lower-case letters, digits, `-` or `_`. */
  constructor(private readonly specs: readonly TableSpec[]) {
    for (const spec of specs) {
      if (!/^[a-z][a-z0-9_-]*$/.test(spec.name)) throw new Error(`state table name "${spec.name}" must be lower-case letters, digits, "-" or "_"`);
    }
    this.reset();
  }

  /** Empty tables for every declared spec. */
  reset(): void {
    this.tables.clear();
    for (const spec of this.specs) {
      const unique = new Map(Object.keys(spec.indexes ?? {}).map((k) => [k, new Map<string, string>()]));
      const grouped = new Map(Object.keys(spec.groups ?? {}).map((k) => [k, new Map<string, Set<string>>()]));
      this.tables.set(spec.name, { spec, docs: new Map(), unique, grouped, index: 0, committedIndex: 0, sorted: undefined });
    }
  }

  /** Table `name`. @throws Error when it was not declared. */
  table(name: string): Table {
    const t = this.tables.get(name);
    if (!t) throw new Error(`state store: no table "${name}"`);
    return t;
  }

  /** Unique index `name` of `t` (key → id). @throws Error when `t` has no such index. */
  uniqueOf(t: Table, name: string): Map<string, string> {
    const m = t.unique.get(name);
    if (!m) throw new Error(`state store: table "${t.spec.name}" has no index "${name}"`);
    return m;
  }

  /** The ids of `t` in group `name` under `key` (unordered). @throws Error when `t` has no such group. */
  groupIds(t: Table, name: string, key: string): ReadonlySet<string> {
    const g = t.grouped.get(name);
    if (!g) throw new Error(`state store: table "${t.spec.name}" has no group "${name}"`);
    return g.get(key) ?? EMPTY;
  }

  /** The ids of `t` in order (sorted on the first call, then kept up to date). */
  sortedIds(t: Table): string[] {
    t.sorted ??= [...t.docs.keys()].sort();
    return t.sorted;
  }

  /** The ids of `t` that start with `prefix`, in order. */
  idsWithPrefix(t: Table, prefix: string): string[] {
    const ids = this.sortedIds(t);
    const out: string[] = [];
    for (let i = lowerBound(ids, prefix); i < ids.length && ids[i]!.startsWith(prefix); i++) out.push(ids[i]!);
    return out;
  }

  /** Adds `doc` at `id` of a freshly {@link reset} `t` (a load: no sorted ids to keep yet). */
  insertLoaded(t: Table, id: string, doc: Doc): void {
    t.docs.set(id, doc);
    indexInsert(t, id, doc);
  }

  /**
   * Stores `doc` at `id` of `t` (`null` deletes it), keeping the unique indexes and the
   * sorted ids current; returns the document it replaced.
   */
  apply(t: Table, id: string, doc: Doc | null): Doc | undefined {
    const before = t.docs.get(id);
    if (before) indexRemove(t, id, before);
    if (doc) {
      t.docs.set(id, doc);
      indexInsert(t, id, doc);
      if (!before && t.sorted) t.sorted.splice(lowerBound(t.sorted, id), 0, id);
    } else {
      t.docs.delete(id);
      if (before && t.sorted) t.sorted.splice(lowerBound(t.sorted, id), 1);
    }
    return before;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function indexInsert(t: Table, id: string, doc: Doc): void {
  for (const [name, keyOf] of Object.entries(t.spec.indexes ?? {})) {
    const key = keyOf(doc as never);
    if (key !== undefined) t.unique.get(name)!.set(key, id);
  }
  for (const [name, keyOf] of Object.entries(t.spec.groups ?? {})) {
    const key = keyOf(doc as never);
    if (key === undefined) continue;
    const g = t.grouped.get(name)!;
    let ids = g.get(key);
    if (!ids) g.set(key, (ids = new Set()));
    ids.add(id);
  }
}

function indexRemove(t: Table, id: string, doc: Doc): void {
  for (const [name, keyOf] of Object.entries(t.spec.indexes ?? {})) {
    const key = keyOf(doc as never);
    if (key !== undefined && t.unique.get(name)!.get(key) === id) t.unique.get(name)!.delete(key);
  }
  for (const [name, keyOf] of Object.entries(t.spec.groups ?? {})) {
    const key = keyOf(doc as never);
    if (key === undefined) continue;
    const g = t.grouped.get(name)!;
    const ids = g.get(key);
    ids?.delete(id);
    // An emptied key goes, so a table of short-lived groups does not keep every key it ever saw.
    if (ids?.size === 0) g.delete(key);
  }
}

/** The first position in sorted `ids` whose id is ≥ `id` (string order, as `Array#sort`). */
export function lowerBound(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
