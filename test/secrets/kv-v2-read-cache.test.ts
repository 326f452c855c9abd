/**
 * KV v2 reads served from shared, pre-rendered replies (issue 15) change exactly when the
 * key does: a new version, a soft delete and undelete, a destroy, new custom metadata,
 * an old version read by number, and a version whose `delete_version_after` passes while
 * nothing is written (the time check runs on every read). Real server, real SQLite file,
 * an injected clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let now = new Date('2026-03-01T00:00:00Z');
let s: TestServer;
before(async () => (s = await startTestServer({ clock: () => now })));
after(() => s.close());

async function read(path: string): Promise<{ status: number; data: unknown; version: unknown; custom: unknown; id: string }> {
  const r = await s.call('GET', `/v1/secret/data/${path}`);
  return {
    status: r.status,
    data: r.json.data?.data,
    version: r.json.data?.metadata?.version,
    custom: r.json.data?.metadata?.custom_metadata,
    id: r.json.request_id,
  };
}

describe('KV v2 read replies', () => {
  it('follow every change of the key', async () => {
    await s.call('POST', '/v1/secret/data/c/k', { body: { data: { v: 'one' } } });
    const first = await read('c/k');
    const second = await read('c/k');
    assert.deepEqual({ ...first, id: '' }, { status: 200, data: { v: 'one' }, version: 1, custom: null, id: '' });
    assert.deepEqual({ ...second, id: '' }, { ...first, id: '' });
    assert.notEqual(first.id, second.id, 'each reply has its own request id');

    await s.call('POST', '/v1/secret/data/c/k', { body: { data: { v: 'two' } } });
    assert.deepEqual((await read('c/k')).data, { v: 'two' });
    const v1 = await s.call('GET', '/v1/secret/data/c/k?version=1');
    assert.deepEqual([v1.json.data.data, v1.json.data.metadata.version], [{ v: 'one' }, 1]);

    await s.call('POST', '/v1/secret/metadata/c/k', { body: { custom_metadata: { owner: 'team-a' } } });
    assert.deepEqual((await read('c/k')).custom, { owner: 'team-a' });

    assert.equal((await s.call('DELETE', '/v1/secret/data/c/k')).status, 204);
    // A version is deleted once its deletion time is in the past (reference/secrets.md §2.5).
    now = new Date(now.getTime() + 1000);
    const deleted = await read('c/k');
    assert.deepEqual([deleted.status, deleted.data, deleted.version], [404, null, 2]);
    await s.call('POST', '/v1/secret/undelete/c/k', { body: { versions: [2] } });
    assert.deepEqual([(await read('c/k')).status, (await read('c/k')).data], [200, { v: 'two' }]);

    await s.call('POST', '/v1/secret/destroy/c/k', { body: { versions: [2] } });
    const destroyed = await read('c/k');
    assert.deepEqual([destroyed.status, destroyed.data], [404, null]);

    await s.call('DELETE', '/v1/secret/metadata/c/k');
    assert.equal((await read('c/k')).status, 404);
  });

  it('a version whose delete_version_after passes reads 404 although nothing was written', async () => {
    await s.call('POST', '/v1/secret/metadata/c/timed', { body: { delete_version_after: '10s' } });
    await s.call('POST', '/v1/secret/data/c/timed', { body: { data: { v: 'soon gone' } } });
    assert.deepEqual([(await read('c/timed')).status, (await read('c/timed')).data], [200, { v: 'soon gone' }]);
    now = new Date(now.getTime() + 11_000);
    const gone = await read('c/timed');
    assert.deepEqual([gone.status, gone.data, gone.version], [404, null, 1]);
  });
});
