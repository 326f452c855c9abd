/**
 * One {@link StateStore} transaction's staging (state.ts `txn`): the {@link Txn} a
 * transaction function reads and writes through, over the current tables, seeing its own
 * writes and checking unique indexes against them; the staged documents and the changes
 * are then committed by the store.
 *
 * @module
 */
import { StateConflict, type Indexed, type StateChange, type Txn } from './state-api.js';
import type { Doc, StateTables } from './state-tables.js';

/** What a transaction wrote: table → id → document (`null`: deleted), and its changes in call order. */
export interface Staged {
  readonly staged: Map<string, Map<string, Doc | null>>;
  readonly changes: StateChange[];
}

/**
 * A {@link Txn} at `index` over `tables`, and where its writes are staged. Nothing
 * touches `tables` until the store commits the staged writes.
 * @throws (from the Txn's methods) Error for an undeclared table or index; {@link StateConflict}.
 */
export function stageTxn(tables: StateTables, index: number): { tx: Txn } & Staged {
  const staged = new Map<string, Map<string, Doc | null>>();
  const changes: StateChange[] = [];
  const current = (table: string, id: string): Doc | undefined => {
    const s = staged.get(table)?.get(id);
    return s === null ? undefined : (s ?? tables.table(table).docs.get(id));
  };
  /** Id of the document holding `key` in unique index `name`, staged writes included. */
  const holder = (table: string, name: string, key: string): string | undefined => {
    const t = tables.table(table);
    const keyOf = t.spec.indexes?.[name];
    if (!keyOf) throw new Error(`state store: table "${table}" has no index "${name}"`);
    for (const [id, d] of staged.get(table) ?? []) if (d && keyOf(d as never) === key) return id;
    const id = tables.uniqueOf(t, name).get(key);
    return id === undefined || staged.get(table)?.has(id) ? undefined : id;
  };
  const tx: Txn = {
    index,
    get: <T>(table: string, id: string) => current(table, id) as (T & Indexed) | undefined,
    getBy: <T>(table: string, name: string, key: string) => {
      const id = holder(table, name, key);
      return id === undefined ? undefined : (current(table, id) as T & Indexed);
    },
    list: <T>(table: string) => {
      const ids = new Set([...tables.table(table).docs.keys(), ...(staged.get(table)?.keys() ?? [])]);
      return [...ids].sort().flatMap((id) => {
        const d = current(table, id);
        return d ? [d as T & Indexed] : [];
      });
    },
    listPrefix: <T>(table: string, prefix: string) => {
      const ids = new Set(tables.idsWithPrefix(tables.table(table), prefix));
      for (const id of staged.get(table)?.keys() ?? []) if (id.startsWith(prefix)) ids.add(id);
      return [...ids].sort().flatMap((id) => {
        const d = current(table, id);
        return d ? [d as T & Indexed] : [];
      });
    },
    listBy: <T>(table: string, group: string, key: string) => {
      const t = tables.table(table);
      const keyOf = t.spec.groups?.[group];
      if (!keyOf) throw new Error(`state store: table "${table}" has no group "${group}"`);
      // The group's ids, and this transaction's writes, which may have moved a document in or out.
      const ids = new Set(tables.groupIds(t, group, key));
      for (const id of staged.get(table)?.keys() ?? []) ids.add(id);
      return [...ids].sort().flatMap((id) => {
        const d = current(table, id);
        return d && keyOf(d as never) === key ? [d as T & Indexed] : [];
      });
    },
    put: <T extends object>(table: string, id: string, doc: T) => {
      const t = tables.table(table);
      const previous = current(table, id);
      const stored = { ...doc, CreateIndex: previous?.CreateIndex ?? index, ModifyIndex: index } as unknown as Doc;
      for (const [name, keyOf] of Object.entries(t.spec.indexes ?? {})) {
        const key = keyOf(stored as never);
        if (key === undefined) continue;
        const other = holder(table, name, key);
        if (other !== undefined && other !== id) throw new StateConflict(`${table}: ${name} "${key}" is already in use`);
      }
      if (!staged.has(table)) staged.set(table, new Map());
      staged.get(table)!.set(id, stored);
      changes.push({ table, id, op: 'put', doc: stored, previous });
      return stored as unknown as T & Indexed;
    },
    delete: (table: string, id: string) => {
      const previous = current(table, id);
      if (!previous) return false;
      if (!staged.has(table)) staged.set(table, new Map());
      staged.get(table)!.set(id, null);
      changes.push({ table, id, op: 'delete', previous });
      return true;
    },
  };
  return { tx, staged, changes };
}
