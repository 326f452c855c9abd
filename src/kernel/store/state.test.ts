/**
 * The StateStore on a real SQLite backend: indexes, unique indexes, reload, blocking
 * watches, the change feed, a codec at rest (index records outside it, old sealed ones read),
 * and fail-stop after a storage failure.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { aesGcmCodec } from './aead-codec.js';
import type { Backend } from './backend.js';
import { SqliteBackend } from './sqlite.js';
import { StateConflict, StateStore, StateStoreFailed, type ChangeBatch, type TableSpec } from './state.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const TABLES: TableSpec[] = [
  { name: 'policies', indexes: { name: (d: { Name?: string }) => d.Name } },
  { name: 'tokens', indexes: { secret: (d: { SecretID?: string }) => d.SecretID } },
];

async function open(path = join(dir, `s${n++}.db`)) {
  const backend = SqliteBackend.open({ path });
  return { backend, path, store: await StateStore.open(backend, TABLES) };
}

describe('StateStore', () => {
  it('one index per transaction; CreateIndex kept, ModifyIndex moved; per-table indexes', async () => {
    const { store, backend } = await open();
    assert.equal(store.index, 0);
    const a = await store.txn((tx) => tx.put('policies', 'p1', { Name: 'a' }));
    assert.equal(a.index, 1);
    assert.deepEqual(a.result, { Name: 'a', CreateIndex: 1, ModifyIndex: 1 });
    const b = await store.txn((tx) => {
      tx.put('policies', 'p1', { Name: 'a2' });
      tx.put('tokens', 't1', { SecretID: 's1' });
    });
    assert.equal(b.index, 2);
    assert.deepEqual(store.get('policies', 'p1'), { Name: 'a2', CreateIndex: 1, ModifyIndex: 2 });
    await store.txn((tx) => tx.put('tokens', 't2', { SecretID: 's2' }));
    assert.deepEqual([store.tableIndex('policies'), store.tableIndex('tokens'), store.tableIndex('policies', 'tokens')], [2, 3, 3]);
    assert.equal(store.latestIndex('policies', 'tokens'), 3);
    const empty = await store.txn((tx) => tx.get('tokens', 't1'));
    assert.equal(empty.index, 3, 'a read-only transaction commits nothing');
    assert.equal(store.index, 3);
    await backend.close();
  });

  it('unique indexes: a clash fails the whole transaction and changes nothing; a name may move within one', async () => {
    const { store, backend } = await open();
    await store.txn((tx) => tx.put('policies', 'p1', { Name: 'ops' }));
    await assert.rejects(
      store.txn((tx) => {
        tx.put('policies', 'p9', { Name: 'other' });
        tx.put('policies', 'p2', { Name: 'ops' });
      }),
      (err: Error) => err instanceof StateConflict && err.message === 'policies: name "ops" is already in use',
    );
    assert.equal(store.get('policies', 'p9'), undefined);
    assert.equal(store.index, 1);
    await store.txn((tx) => {
      tx.put('policies', 'p1', { Name: 'renamed' });
      tx.put('policies', 'p2', { Name: 'ops' });
    });
    assert.equal(store.getBy<{ Name: string }>('policies', 'name', 'ops')?.CreateIndex, 2);
    assert.equal(store.getBy('policies', 'name', 'renamed')?.CreateIndex, 1);
    await store.txn((tx) => {
      assert.equal(tx.delete('policies', 'p2'), true);
      assert.equal(tx.getBy('policies', 'name', 'ops'), undefined);
      tx.put('policies', 'p3', { Name: 'ops' });
      assert.deepEqual(
        tx.list<{ Name: string }>('policies').map((d) => d.Name),
        ['renamed', 'ops'],
      );
    });
    assert.equal(store.getBy<{ Name: string }>('policies', 'name', 'ops')?.ModifyIndex, 3);
    await backend.close();
  });

  it('reloads documents and indexes from disk; a delete never moves a table index back; ids may hold "/"', async () => {
    const first = await open();
    await first.store.txn((tx) => tx.put('policies', 'a/b', { Name: 'slash' }));
    await first.store.txn((tx) => tx.put('tokens', 't', { SecretID: 'x' }));
    await first.store.txn((tx) => tx.delete('tokens', 't'));
    await first.backend.close();
    const again = await open(first.path);
    assert.equal(again.store.index, 3);
    assert.equal(again.store.tableIndex('tokens'), 3);
    assert.deepEqual(again.store.get('policies', 'a/b'), { Name: 'slash', CreateIndex: 1, ModifyIndex: 1 });
    assert.equal(again.store.getBy('tokens', 'secret', 'x'), undefined);
    assert.equal((await again.store.txn((tx) => tx.put('tokens', 'u', {}))).index, 4);
    await again.backend.close();
  });

  it('watch: returns when a write to a watched table lands, not for other tables, and at the timeout otherwise', async () => {
    const { store, backend } = await open();
    await store.txn((tx) => tx.put('policies', 'p', { Name: 'p' }));
    assert.equal(await store.watch(['policies'], 0, 10_000), 1, 'already past the index');
    let woke = false;
    const waiting = store.watch(['policies'], 1, 10_000).then((i) => ((woke = true), i));
    await store.txn((tx) => tx.put('tokens', 't', {}));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(woke, false, 'a write to another table does not wake it');
    await store.txn((tx) => tx.put('policies', 'q', { Name: 'q' }));
    assert.equal(await waiting, 3);
    const t0 = performance.now();
    assert.equal(await store.watch(['policies'], 3, 150), 3);
    assert.ok(performance.now() - t0 >= 140, 'waited for the timeout');
    const ac = new AbortController();
    const aborted = store.watch(['policies'], 3, 10_000, ac.signal);
    ac.abort();
    assert.equal(await aborted, 3);
    await backend.close();
  });

  it('watch: a commit wakes only the watches of an index below it; a thousand with one wait end together at it, never before', async () => {
    const { store, backend } = await open();
    await store.txn((tx) => tx.put('policies', 'p', { Name: 'p' }));
    const behind = Array.from({ length: 3 }, () => store.watch(['policies'], 1, 10_000));
    const ahead = store.watch(['policies'], 5, 10_000);
    const both = store.watch(['policies', 'tokens'], 1, 10_000);
    assert.equal(store.openWatches, 5);
    await store.txn((tx) => tx.put('policies', 'q', { Name: 'q' }));
    assert.deepEqual(await Promise.all([...behind, both]), [2, 2, 2, 2]);
    assert.equal(store.openWatches, 1, 'the watch past index 5 still waits');
    const t0 = performance.now();
    const timed = await Promise.all(Array.from({ length: 1000 }, () => store.watch(['tokens'], 2, 120).then(() => performance.now() - t0)));
    assert.ok(Math.min(...timed) >= 119, `none ended before its timeout: ${Math.min(...timed)} ms`);
    assert.ok(Math.max(...timed) - Math.min(...timed) < 50, 'they ended together');
    assert.equal(store.openWatches, 1);
    for (const n of ['a', 'b', 'c']) await store.txn((tx) => tx.put('policies', n, { Name: n }));
    assert.equal(store.openWatches, 1, 'index 5 is not past 5');
    await store.txn((tx) => tx.put('policies', 'd', { Name: 'd' }));
    assert.equal(await ahead, 6);
    assert.equal(store.openWatches, 0);
    await backend.close();
  });

  it("listPrefix: the ids under a prefix in order, with the transaction's own puts and deletes", async () => {
    const { store, backend } = await open();
    await store.txn((tx) => ['n/b', 'n/a', 'n/c', 'n0', 'm/a', 'n'].forEach((id) => tx.put('policies', id, { Name: id })));
    const ids = (docs: { Name?: string }[]) => docs.map((d) => d.Name);
    assert.deepEqual(ids(store.listPrefix('policies', 'n/')), ['n/a', 'n/b', 'n/c']);
    assert.deepEqual(ids(store.listPrefix('policies', 'x/')), []);
    await store.txn((tx) => {
      tx.delete('policies', 'n/b');
      tx.put('policies', 'n/bb', { Name: 'n/bb' });
      tx.put('policies', 'n/0', { Name: 'n/0' });
      assert.deepEqual(ids(tx.listPrefix('policies', 'n/')), ['n/0', 'n/a', 'n/bb', 'n/c']);
    });
    assert.deepEqual(ids(store.listPrefix('policies', 'n/')), ['n/0', 'n/a', 'n/bb', 'n/c']);
    await backend.close();
  });

  it("watch: a thousand watches on one signal (an agent's shutdown) wake on a write, end on abort, and Node warns of no listener leak", async () => {
    const { store, backend } = await open();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const ac = new AbortController();
      const woken = Array.from({ length: 1000 }, () => store.watch(['policies'], 0, 10_000, ac.signal));
      const kept = Array.from({ length: 1000 }, () => store.watch(['tokens'], 0, 10_000, ac.signal));
      assert.equal(store.openWatches, 2000);
      await store.txn((tx) => tx.put('policies', 'p', { Name: 'p' }));
      assert.deepEqual(new Set(await Promise.all(woken)), new Set([1]));
      assert.equal(store.openWatches, 1000, 'the watches of the other table still wait');
      ac.abort();
      assert.deepEqual(new Set(await Promise.all(kept)), new Set([0]));
      assert.equal(store.openWatches, 0);
      await new Promise((r) => setImmediate(r)); // warnings are emitted on a later tick
      assert.deepEqual(
        warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
        [],
      );
    } finally {
      process.off('warning', onWarning);
      await backend.close();
    }
  });

  it('change feed: every batch once, in index order, after it is durable, with previous documents', async () => {
    const { store, backend } = await open();
    const seen: ChangeBatch[] = [];
    const stop = store.subscribe((b) => seen.push(b));
    await Promise.all([
      store.txn((tx) => tx.put('policies', 'a', { Name: 'a' })),
      store.txn((tx) => tx.put('policies', 'b', { Name: 'b' })),
      store.txn((tx) => tx.put('policies', 'a', { Name: 'a2' })),
    ]);
    await store.txn((tx) => tx.delete('policies', 'b'));
    stop();
    await store.txn((tx) => tx.put('policies', 'c', { Name: 'c' }));
    assert.deepEqual(
      seen.map((b) => b.index),
      [1, 2, 3, 4],
    );
    assert.deepEqual(seen[2].changes[0].previous, { Name: 'a', CreateIndex: 1, ModifyIndex: 1 });
    assert.deepEqual(seen[3].changes, [{ table: 'policies', id: 'b', op: 'delete', previous: { Name: 'b', CreateIndex: 2, ModifyIndex: 2 } }]);
    await backend.close();
  });

  it("a codec sees every stored document's bytes; the store refuses writes after a storage failure", async () => {
    const path = join(dir, `codec${n++}.db`);
    const backend = SqliteBackend.open({ path });
    const flip = (b: Uint8Array) => Uint8Array.from(b, (x) => x ^ 0x5a);
    let broken = false;
    const failing: Backend = {
      get: (k) => backend.get(k),
      put: (k, v) => backend.put(k, v),
      delete: (k) => backend.delete(k),
      list: (p) => backend.list(p),
      batch: (ops) => (broken ? Promise.reject(new Error('disk full')) : backend.batch(ops)),
      close: () => backend.close(),
    };
    const store = await StateStore.open(failing, TABLES, { encode: flip, decode: flip });
    await store.txn((tx) => tx.put('tokens', 't', { SecretID: 'very-secret-value' }));
    const raw = await backend.get('tokens/t');
    assert.ok(raw && !Buffer.from(raw).toString('latin1').includes('very-secret-value'));
    broken = true;
    await assert.rejects(
      store.txn((tx) => tx.put('tokens', 'u', {})),
      /disk full/,
    );
    broken = false;
    await assert.rejects(
      store.txn((tx) => tx.put('tokens', 'v', {})),
      StateStoreFailed,
    );
    await backend.close();
    const reopened = SqliteBackend.open({ path });
    const again = await StateStore.open(reopened, TABLES, { encode: flip, decode: flip });
    assert.deepEqual(
      again.list('tokens').map((d) => (d as { SecretID?: string }).SecretID),
      ['very-secret-value'],
    );
    await assert.rejects(StateStore.open(reopened, TABLES), /state store: cannot decode "_meta\/index"|cannot decode/);
    await reopened.close();
  });

  it('index records are stored as decimal text outside the codec; sealed ones (written before) still load', async () => {
    const codec = aesGcmCodec(randomBytes(32));
    const path = join(dir, `index${n++}.db`);
    const backend = SqliteBackend.open({ path });
    const store = await StateStore.open(backend, TABLES, codec);
    await store.txn((tx) => tx.put('tokens', 't', { SecretID: 'very-secret-value' }));
    await store.txn((tx) => tx.put('policies', 'p', { Name: 'p' }));
    assert.equal(Buffer.from((await backend.get('_meta/index'))!).toString(), '2');
    assert.equal(Buffer.from((await backend.get('_meta/table/tokens'))!).toString(), '1');
    assert.equal(Buffer.from(codec.decode((await backend.get('tokens/t'))!)).toString(), '{"SecretID":"very-secret-value","CreateIndex":1,"ModifyIndex":1}');
    // A data directory of before: every record through the codec.
    await backend.batch([
      { key: '_meta/index', value: codec.encode(Buffer.from('7')) },
      { key: '_meta/table/tokens', value: codec.encode(Buffer.from('7')) },
      { key: '_meta/table/policies', value: codec.encode(Buffer.from('5')) },
    ]);
    const again = await StateStore.open(backend, TABLES, codec);
    assert.deepEqual([again.index, again.tableIndex('tokens'), again.tableIndex('policies')], [7, 7, 5]);
    assert.equal((await again.txn((tx) => tx.put('tokens', 'u', {}))).index, 8);
    assert.equal(Buffer.from((await backend.get('_meta/index'))!).toString(), '8');
    // Neither a number nor a sealed one: refused, naming the record.
    await backend.put('_meta/index', Buffer.from('{"x":1}'));
    await assert.rejects(StateStore.open(backend, TABLES, codec), /cannot decode "_meta\/index"/);
    await backend.close();
  });

  it('list and scan: id order kept through inserts and deletes; a scan starts at the first id at or after its start', async () => {
    const { store, backend } = await open();
    await store.txn((tx) => {
      for (const id of ['m', 'c', 'x', 'a']) tx.put('policies', id, { Name: id });
    });
    assert.deepEqual(
      store.list<{ Name: string }>('policies').map((d) => d.Name),
      ['a', 'c', 'm', 'x'],
    );
    // The order is now cached; writes after that keep it right.
    await store.txn((tx) => {
      tx.put('policies', 'b', { Name: 'b' });
      tx.delete('policies', 'm');
      tx.put('policies', 'c', { Name: 'c2' });
      tx.put('policies', 'z', { Name: 'z' });
    });
    assert.deepEqual(
      store.list<{ Name: string }>('policies').map((d) => d.Name),
      ['a', 'b', 'c2', 'x', 'z'],
    );
    assert.deepEqual(
      [...store.scan<{ Name: string }>('policies', 'c')].map((d) => d.Name),
      ['c2', 'x', 'z'],
    );
    assert.deepEqual(
      [...store.scan<{ Name: string }>('policies', 'd')].map((d) => d.Name),
      ['x', 'z'],
    );
    assert.deepEqual([...store.scan<{ Name: string }>('policies', 'zz')], []);
    assert.deepEqual([...store.scan<{ Name: string }>('policies')].length, 5);
    await backend.close();
  });
});
