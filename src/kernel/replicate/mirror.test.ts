/**
 * mirrorTable on a real SQLite-backed StateStore: one transaction per difference, nothing
 * when equal, documents outside `mine` kept, a unique name moving between two documents,
 * and the label on the change feed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteBackend, StateStore, type ChangeBatch } from '../store/index.js';
import { mirrorTable } from './mirror.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-mirror-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

interface Role {
  ID: string;
  Name: string;
  Hash: string;
  Local?: boolean;
}

async function open() {
  const backend = SqliteBackend.open({ path: join(dir, `m${n++}.db`) });
  const store = await StateStore.open(backend, [{ name: 'roles', indexes: { name: (d: Role) => d.Name } }]);
  return { backend, store };
}

describe('mirrorTable', () => {
  it("writes what is new or changed, deletes what is gone, and keeps what is not the source's", async () => {
    const { store, backend } = await open();
    await store.txn((tx) => {
      tx.put<Role>('roles', 'a', { ID: 'a', Name: 'a', Hash: '1' });
      tx.put<Role>('roles', 'gone', { ID: 'gone', Name: 'gone', Hash: '1' });
      tx.put<Role>('roles', 'own', { ID: 'own', Name: 'own', Hash: '1', Local: true });
    });
    const batches: ChangeBatch[] = [];
    store.subscribe((b) => batches.push(b));
    const changed = await mirrorTable<Role>(
      store,
      'roles',
      [
        { ID: 'a', Name: 'a', Hash: '2' },
        { ID: 'b', Name: 'b', Hash: '1' },
      ],
      {
        idOf: (r) => r.ID,
        mine: (r) => !r.Local,
        label: 'Replication',
      },
    );
    assert.equal(changed, 3);
    assert.deepEqual(
      store.list<Role>('roles').map((r) => [r.ID, r.Hash]),
      [
        ['a', '2'],
        ['b', '1'],
        ['own', '1'],
      ],
    );
    assert.equal(batches.length, 1);
    assert.equal(batches[0].label, 'Replication');
    assert.deepEqual(
      batches[0].changes.map((c) => [c.op, c.id]),
      [
        ['delete', 'gone'],
        ['put', 'a'],
        ['put', 'b'],
      ],
    );
    // Equal again: no transaction at all.
    const index = store.index;
    assert.equal(
      await mirrorTable<Role>(
        store,
        'roles',
        [
          { ID: 'a', Name: 'a', Hash: '2' },
          { ID: 'b', Name: 'b', Hash: '1' },
        ],
        { idOf: (r) => r.ID, mine: (r) => !r.Local },
      ),
      0,
    );
    assert.equal(store.index, index);
    await backend.close();
  });

  it('swaps a unique name between two documents in one transaction', async () => {
    const { store, backend } = await open();
    await store.txn((tx) => {
      tx.put<Role>('roles', 'x', { ID: 'x', Name: 'first', Hash: '1' });
      tx.put<Role>('roles', 'y', { ID: 'y', Name: 'second', Hash: '1' });
    });
    await mirrorTable<Role>(
      store,
      'roles',
      [
        { ID: 'x', Name: 'second', Hash: '2' },
        { ID: 'y', Name: 'first', Hash: '2' },
      ],
      { idOf: (r) => r.ID },
    );
    assert.equal(store.getBy<Role>('roles', 'name', 'first')?.ID, 'y');
    assert.equal(store.getBy<Role>('roles', 'name', 'second')?.ID, 'x');
    await backend.close();
  });
});
