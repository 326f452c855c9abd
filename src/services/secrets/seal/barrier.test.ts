// Tests of the barrier's decoded-value cache (issue 15) on a real SQLite file: a JSON
// value is decoded once and shared, deeply frozen, so no reader can change what the
// next one gets; every change to the key (a write here, a write by another server
// announced through `invalidate`) is seen by the next read, as for the plaintext cache.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BackendView, json, readJson, SqliteBackend } from '../../../kernel/store/index.js';
import { TokenStore } from '../token/store.js';
import { KvV2Store } from '../kv/v2/storage.js';
import { addVersion, newKeyMetadata } from '../kv/v2/versions.js';
import { BarrierBackend, newKeyring } from './barrier.js';

const NOW = new Date('2026-01-02T03:04:05Z');
let dir: string;
let inner: SqliteBackend;
let barrier: BarrierBackend;
const keyring = newKeyring();

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-barrier-'));
  inner = SqliteBackend.open({ path: join(dir, 'b.db') });
  barrier = new BarrierBackend(inner, keyring);
});
after(async () => {
  await inner.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('barrier decoded cache', () => {
  it('decodes a value once, shares it deeply frozen, and a mutation attempt changes nothing', async () => {
    await barrier.put('k', json.encode({ a: { b: [1, 2] }, s: 'x' }));
    const first = (await barrier.getJson('k')) as { a: { b: number[] }; s: string };
    assert.deepEqual(first, { a: { b: [1, 2] }, s: 'x' });
    assert.equal(await barrier.getJson('k'), first, 'the second read gets the same object: nothing decoded again');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.a) && Object.isFrozen(first.a.b));
    assert.throws(() => {
      first.s = 'changed';
    }, TypeError);
    assert.throws(() => first.a.b.push(3), TypeError);
    assert.deepEqual(await barrier.getJson('k'), { a: { b: [1, 2] }, s: 'x' });
    assert.deepEqual(json.decode(await barrier.get('k')), { a: { b: [1, 2] }, s: 'x' }, 'the plaintext read agrees');
  });

  it('a large value keeps only its plaintext cached: decoded afresh, frozen, for each read', async () => {
    const big = { blob: 'x'.repeat(20 * 1024) };
    await barrier.put('big', json.encode(big));
    const a = await barrier.getJson('big');
    const b = await barrier.getJson('big');
    assert.deepEqual([a, b], [big, big]);
    assert.notEqual(a, b, 'not kept decoded');
    assert.ok(Object.isFrozen(a) && Object.isFrozen(b));
  });

  it('a write, a delete and an invalidation are seen by the next decoded read', async () => {
    await barrier.put('w', json.encode({ v: 1 }));
    assert.deepEqual(await barrier.getJson('w'), { v: 1 });
    await barrier.put('w', json.encode({ v: 2 }));
    assert.deepEqual(await barrier.getJson('w'), { v: 2 });
    await barrier.batch([{ key: 'w' }]);
    assert.equal(await barrier.getJson('w'), undefined);
    assert.equal(await barrier.getJson('w'), undefined, 'a cached absence');

    // Another server writes the key (a performance standby's storage): the cache keeps
    // the old value until told, then reads the new one.
    const other = new BarrierBackend(inner, keyring, 0);
    await barrier.put('x', json.encode({ v: 'old' }));
    assert.deepEqual(await barrier.getJson('x'), { v: 'old' });
    await other.put('x', json.encode({ v: 'new' }));
    barrier.invalidate(['x']);
    assert.deepEqual(await barrier.getJson('x'), { v: 'new' });
    await other.put('x', json.encode({ v: 'newer' }));
    barrier.invalidate();
    assert.deepEqual(await barrier.getJson('x'), { v: 'newer' });
  });

  it('a read in flight while the key is written does not cache the value it read', async () => {
    await barrier.put('r', json.encode({ v: 1 }));
    barrier.invalidate(['r']);
    const reading = barrier.getJson('r');
    await barrier.put('r', json.encode({ v: 2 }));
    await reading;
    assert.deepEqual(await barrier.getJson('r'), { v: 2 });
  });

  it('readJson freezes a fresh decode on a backend without a decoded cache, and views pass the cache through', async () => {
    await inner.put('plain', json.encode({ list: [1] }));
    const v = (await readJson<{ list: number[] }>(inner, 'plain'))!;
    assert.ok(Object.isFrozen(v) && Object.isFrozen(v.list));
    await barrier.put('view/k', json.encode({ v: 1 }));
    const view = new BackendView(barrier, 'view/');
    assert.equal(await readJson(view, 'k'), await barrier.getJson('view/k'), "the view reads the barrier's shared object");
  });

  it('KV v2 reads and token lookups hand out frozen values: a handler changing one cannot change the next read', async () => {
    const kv = new KvV2Store(new BackendView(barrier, 'logical/m/'), 'm');
    await kv.update('secret', (current, config) => {
      const metadata = current ?? newKeyMetadata(NOW);
      const { version, pruned } = addVersion(metadata, config, NOW);
      return { metadata, puts: [[version, { password: 'p1', nested: { a: 1 } }]], deletes: pruned, result: version };
    });
    const entry = (await kv.read('secret'))!;
    const data = (await entry.data(1)) as { password: string; nested: { a: number } };
    assert.throws(() => {
      data.password = 'stolen';
    }, TypeError);
    assert.throws(() => {
      data.nested.a = 2;
    }, TypeError);
    assert.throws(() => {
      (entry.metadata.versions as Record<string, unknown>)['1'] = null;
    }, TypeError);
    const again = (await kv.read('secret'))!;
    assert.deepEqual(await again.data(1), { password: 'p1', nested: { a: 1 } });
    assert.equal(again.metadata.versions['1'].destroyed, false);

    const tokens = new TokenStore(barrier);
    const created = await tokens.create({ policies: ['a', 'b'], meta: { user: 'u' }, path: 'auth/token/create', now: new Date() });
    const found = (await tokens.lookup(created.id, new Date()))!;
    assert.throws(() => (found.policies as string[]).push('root'), TypeError);
    assert.throws(() => {
      (found.meta as Record<string, string>).user = 'admin';
    }, TypeError);
    const next = (await tokens.lookup(created.id, new Date()))!;
    assert.deepEqual(next.policies, ['a', 'b']);
    assert.deepEqual(next.meta, { user: 'u' });
  });
});
