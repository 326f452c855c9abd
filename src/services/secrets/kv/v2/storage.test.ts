// Tests of KvV2Store's layout on a real SQLite file: the current version's data kept
// beside the metadata, moved out to versions/ by the next version, dropped when
// destroyed or pruned, and keys written before that layout still read and updated.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { json, listRecursive, SqliteBackend } from '../../../../kernel/store/index.js';
import { sha256Hex } from '../../../../kernel/util/sha256.js';
import { KvV2Store } from './storage.js';
import { addVersion, destroyVersions, newKeyMetadata, type KeyMetadata } from './versions.js';

const NOW = new Date('2026-01-02T03:04:05Z');
let dir: string;
let backend: SqliteBackend;
let store: KvV2Store;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-kv2-'));
  backend = SqliteBackend.open({ path: join(dir, 'kv.db') });
  store = new KvV2Store(backend, 'mount-uuid');
});
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes version N+1 of `key` with `data`, as `data/<key>` does. */
function write(key: string, data: Record<string, unknown>): Promise<number> {
  return store.update(key, (current, config) => {
    const metadata = current ?? newKeyMetadata(NOW);
    const { version, pruned } = addVersion(metadata, config, NOW);
    return { metadata, puts: [[version, data]], deletes: pruned, result: version };
  });
}

async function dataOf(key: string, version: number): Promise<unknown> {
  return (await store.read(key))?.data(version);
}

describe('KvV2Store layout', () => {
  it('stores a new key as one value; the next version moves the previous data out', async () => {
    assert.equal(await write('a', { v: 1 }), 1);
    assert.deepEqual(await listRecursive(backend, ''), ['metadata/a']);
    assert.equal(await write('a', { v: 2 }), 2);
    assert.deepEqual(await listRecursive(backend, ''), ['metadata/a', `versions/${sha256Hex('a')}/1`]);
    assert.deepEqual(await dataOf('a', 1), { v: 1 });
    assert.deepEqual(await dataOf('a', 2), { v: 2 });
    const metadata = await store.metadata('a');
    assert.equal(metadata?.current_version, 2);
    assert.equal(Object.hasOwn(metadata ?? {}, 'inline'), false, 'the inline data is not part of the metadata');
  });

  it('destroying the current version drops its data; the older version stays', async () => {
    await write('b', { v: 1 });
    await write('b', { v: 2 });
    await store.update('b', (current) => ({ metadata: current, deletes: destroyVersions(current!, [2]), result: undefined }));
    assert.equal(await dataOf('b', 2), undefined);
    assert.deepEqual(await dataOf('b', 1), { v: 1 });
    assert.equal(JSON.stringify(json.decode(await backend.get('metadata/b'))).includes('"v":2'), false);
  });

  it('a version pruned by max_versions loses its data, inline or not', async () => {
    await write('c', { v: 1 });
    await store.update('c', (current) => ({ metadata: { ...current!, max_versions: 1 }, result: undefined }));
    await write('c', { v: 2 });
    assert.equal(await dataOf('c', 1), undefined);
    assert.deepEqual(await dataOf('c', 2), { v: 2 });
    assert.deepEqual(
      (await listRecursive(backend, '')).filter((k) => k.includes(sha256Hex('c'))),
      [],
    );
  });

  it('deleting the metadata removes every version', async () => {
    await write('d', { v: 1 });
    await write('d', { v: 2 });
    await store.update('d', (current) => ({ metadata: current ? null : undefined, result: undefined }));
    assert.deepEqual(
      (await listRecursive(backend, '')).filter((k) => k === 'metadata/d' || k.includes(sha256Hex('d'))),
      [],
    );
  });

  it('reads and updates keys stored before the inline layout (every version under versions/)', async () => {
    const metadata: KeyMetadata = newKeyMetadata(NOW);
    addVersion(metadata, { max_versions: 0, cas_required: false, delete_version_after_s: 0 }, NOW);
    await backend.batch([
      { key: 'metadata/old', value: json.encode(metadata) },
      { key: `versions/${sha256Hex('old')}/1`, value: json.encode({ v: 1 }) },
    ]);
    assert.deepEqual(await dataOf('old', 1), { v: 1 });
    assert.equal(await write('old', { v: 2 }), 2);
    assert.deepEqual(await dataOf('old', 1), { v: 1 });
    assert.deepEqual(await dataOf('old', 2), { v: 2 });
  });
});
