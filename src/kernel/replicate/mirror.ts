/**
 * Making a local table hold what the replication source holds.
 *
 * @module
 */
import { StateConflict, type StateStore, type Txn } from '../store/index.js';

/** Options of {@link mirrorTable}. */
export interface MirrorOptions<D> {
  /** The document's key. */
  readonly idOf: (d: D) => string;
  /** Which local documents the source owns (others are never deleted); default all. */
  readonly mine?: (d: D) => boolean;
  /** Whether a local document already equals the source's; default: same `Hash`. */
  readonly same?: (local: D, remote: D) => boolean;
  /** Label of the write on the change feed (StateStore `txn`). */
  readonly label?: string;
}

/**
 * Makes the local `table` hold exactly `remote` (restricted to documents where `mine`
 * holds): deletes what the source no longer has and writes what is new or not `same`, in
 * one transaction; nothing when nothing differs. Returns the number of documents changed.
 */
export async function mirrorTable<D extends object>(state: StateStore, table: string, remote: readonly D[], o: MirrorOptions<D>): Promise<number> {
  const mine = o.mine ?? (() => true);
  const same = o.same ?? ((a: D, b: D) => (a as { Hash?: string }).Hash === (b as { Hash?: string }).Hash);
  const want = new Map(remote.map((d) => [o.idOf(d), d]));
  const have = state.list<D>(table).filter(mine);
  const deletes = have.filter((d) => !want.has(o.idOf(d))).map(o.idOf);
  const upserts = remote.filter((d) => {
    const local = state.get<D>(table, o.idOf(d));
    return !local || !same(local, d);
  });
  if (deletes.length === 0 && upserts.length === 0) return 0;
  await state.txn((tx: Txn) => {
    for (const id of deletes) tx.delete(table, id);
    try {
      for (const d of upserts) tx.put(table, o.idOf(d), d);
    } catch (err) {
      if (!(err instanceof StateConflict)) throw err;
      // A unique name moved between two documents: remove every changing one first.
      for (const d of upserts) tx.delete(table, o.idOf(d));
      for (const d of upserts) tx.put(table, o.idOf(d), d);
    }
  }, o.label);
  return deletes.length + upserts.length;
}
