// Tests of the state store's groupings (TableSpec `groups`): a non-unique secondary index
// read with `listBy`, kept by every write, by a transaction's own writes and by a reload.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteBackend } from './sqlite.js';
import { StateStore, type TableSpec } from './state.js';

type Item = { owner: string; n: number };
const TABLES: TableSpec[] = [{ name: 'items', groups: { owner: (d: Item) => (d.owner === '' ? undefined : d.owner) } }];
const dir = mkdtempSync(join(tmpdir(), 'cairn-state-groups-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ids = (docs: { n: number }[]) => docs.map((d) => d.n);

describe('state store groups', () => {
  it("lists one key's documents in id order, through puts, moves, deletes, transactions and a reopen", async () => {
    const path = join(dir, 'g.db');
    const backend = SqliteBackend.open({ path });
    const store = await StateStore.open(backend, TABLES);
    await store.txn((tx) => {
      tx.put<Item>('items', 'c', { owner: 'x', n: 3 });
      tx.put<Item>('items', 'a', { owner: 'x', n: 1 });
      tx.put<Item>('items', 'b', { owner: 'y', n: 2 });
      tx.put<Item>('items', 'd', { owner: '', n: 4 });
      // The transaction sees its own writes.
      assert.deepEqual(ids(tx.listBy<Item>('items', 'owner', 'x')), [1, 3]);
    });
    assert.deepEqual(ids(store.listBy<Item>('items', 'owner', 'x')), [1, 3]);
    assert.deepEqual(ids(store.listBy<Item>('items', 'owner', 'y')), [2]);
    assert.deepEqual(store.listBy('items', 'owner', 'none'), []);
    await store.txn((tx) => {
      tx.put<Item>('items', 'c', { owner: 'y', n: 3 });
      tx.delete('items', 'a');
      assert.deepEqual(ids(tx.listBy<Item>('items', 'owner', 'x')), [], 'moved and deleted within the transaction');
      assert.deepEqual(ids(tx.listBy<Item>('items', 'owner', 'y')), [2, 3]);
    });
    assert.deepEqual(store.listBy('items', 'owner', 'x'), []);
    assert.deepEqual(ids(store.listBy<Item>('items', 'owner', 'y')), [2, 3]);
    assert.throws(() => store.listBy('items', 'colour', 'x'), /no group "colour"/);
    await backend.close();

    const again = SqliteBackend.open({ path });
    const reopened = await StateStore.open(again, TABLES);
    assert.deepEqual(ids(reopened.listBy<Item>('items', 'owner', 'y')), [2, 3], 'rebuilt on load');
    await again.close();
  });
});
