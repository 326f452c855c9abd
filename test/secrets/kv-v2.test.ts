/**
 * KV v2 over HTTP against a real server and SQLite file: every family of spec 000 and
 * the reference's rules (reference/secrets.md §2).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

describe('KV v2 data', () => {
  it('writes versions and reads latest or a given version', async () => {
    const w1 = await s.call('POST', '/v1/secret/data/app/db', { body: { data: { password: 'one' } } });
    assert.equal(w1.status, 200);
    assert.equal(w1.json.data.version, 1);
    assert.equal(w1.json.data.deletion_time, '');
    assert.equal(w1.json.data.destroyed, false);
    assert.equal(w1.json.mount_type, 'kv');
    assert.equal(w1.headers.get('cache-control'), 'no-store');
    assert.equal(w1.headers.get('content-type'), 'application/json');
    const w2 = await s.call('PUT', '/v1/secret/data/app/db', { body: { data: { password: 'two' } } });
    assert.equal(w2.json.data.version, 2);
    const latest = await s.call('GET', '/v1/secret/data/app/db');
    assert.equal(latest.status, 200);
    assert.deepEqual(latest.json.data.data, { password: 'two' });
    assert.equal(latest.json.data.metadata.version, 2);
    for (const k of ['request_id', 'lease_id', 'renewable', 'lease_duration', 'data', 'wrap_info', 'warnings', 'auth', 'mount_type'])
      assert.ok(k in latest.json, `envelope has ${k}`);
    const v1 = await s.call('GET', '/v1/secret/data/app/db?version=1');
    assert.deepEqual(v1.json.data.data, { password: 'one' });
  });

  it('answers 404 {"errors":[]} for unknown keys and versions', async () => {
    for (const path of ['/v1/secret/data/nope', '/v1/secret/data/app/db?version=99']) {
      const r = await s.call('GET', path);
      assert.equal(r.status, 404);
      assert.deepEqual(r.json, { errors: [] });
    }
  });

  it('enforces check-and-set', async () => {
    const first = await s.call('POST', '/v1/secret/data/cas', { body: { data: { a: 1 }, options: { cas: 0 } } });
    assert.equal(first.status, 200);
    const again = await s.call('POST', '/v1/secret/data/cas', { body: { data: { a: 2 }, options: { cas: 0 } } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.json, { errors: ['check-and-set parameter did not match the current version'] });
    const ok = await s.call('POST', '/v1/secret/data/cas', { body: { data: { a: 2 }, options: { cas: 1 } } });
    assert.equal(ok.json.data.version, 2);
    assert.equal((await s.call('GET', '/v1/secret/data/cas')).json.data.data.a, 2, 'the refused write changed nothing');
  });

  it('requires cas when the key or the mount says so', async () => {
    await s.call('POST', '/v1/secret/metadata/strict', { body: { cas_required: true } });
    const r = await s.call('POST', '/v1/secret/data/strict', { body: { data: { a: 1 } } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json.errors, ['check-and-set parameter required for this call']);
    assert.equal((await s.call('POST', '/v1/secret/data/strict', { body: { data: { a: 1 }, options: { cas: 0 } } })).status, 200);

    assert.equal((await s.call('POST', '/v1/secret/config', { body: { cas_required: true } })).status, 204);
    const m = await s.call('POST', '/v1/secret/data/other', { body: { data: { a: 1 } } });
    assert.deepEqual(m.json.errors, ['check-and-set parameter required for this call']);
    const warn = await s.call('POST', '/v1/secret/metadata/other', { body: { cas_required: false } });
    assert.equal(warn.status, 200);
    assert.match(warn.json.warnings[0], /mandated by backend config/);
    await s.call('POST', '/v1/secret/config', { body: { cas_required: false } });
    const cfg = await s.call('GET', '/v1/secret/config');
    assert.deepEqual(cfg.json.data, { max_versions: 0, cas_required: false, delete_version_after: '0s' });
  });

  it('prunes versions beyond max_versions', async () => {
    await s.call('POST', '/v1/secret/metadata/pruned', { body: { max_versions: 2 } });
    for (let i = 1; i <= 4; i++) await s.call('POST', '/v1/secret/data/pruned', { body: { data: { i } } });
    const m = await s.call('GET', '/v1/secret/metadata/pruned');
    assert.equal(m.json.data.current_version, 4);
    assert.equal(m.json.data.oldest_version, 3);
    assert.deepEqual(Object.keys(m.json.data.versions), ['3', '4']);
    assert.equal((await s.call('GET', '/v1/secret/data/pruned?version=2')).status, 404);
    assert.equal((await s.call('GET', '/v1/secret/data/pruned?version=3')).json.data.data.i, 3);
  });

  it('moves versions through delete, undelete and destroy', async () => {
    await s.call('POST', '/v1/secret/data/life', { body: { data: { v: 1 } } });
    await s.call('POST', '/v1/secret/data/life', { body: { data: { v: 2 } } });
    assert.equal((await s.call('DELETE', '/v1/secret/data/life')).status, 204);
    const deleted = await s.call('GET', '/v1/secret/data/life');
    assert.equal(deleted.status, 404);
    assert.equal(deleted.json.data.data, null);
    assert.notEqual(deleted.json.data.metadata.deletion_time, '');
    assert.equal(deleted.json.data.metadata.destroyed, false);

    assert.equal((await s.call('POST', '/v1/secret/undelete/life', { body: { versions: [2] } })).status, 204);
    assert.deepEqual((await s.call('GET', '/v1/secret/data/life')).json.data.data, { v: 2 });

    assert.equal((await s.call('POST', '/v1/secret/delete/life', { body: { versions: '1' } })).status, 204);
    assert.equal((await s.call('GET', '/v1/secret/data/life?version=1')).status, 404);

    assert.equal((await s.call('POST', '/v1/secret/destroy/life', { body: { versions: [1, 2] } })).status, 204);
    const destroyed = await s.call('GET', '/v1/secret/data/life?version=2');
    assert.equal(destroyed.status, 404);
    assert.equal(destroyed.json.data.metadata.destroyed, true);
    assert.equal((await s.call('POST', '/v1/secret/undelete/life', { body: { versions: [2] } })).status, 204);
    assert.equal((await s.call('GET', '/v1/secret/data/life?version=2')).status, 404, 'destroyed stays destroyed');
    const meta = await s.call('GET', '/v1/secret/metadata/life');
    assert.equal(meta.json.data.versions['1'].destroyed, true);
  });

  it('refuses empty version lists and missing data with the reference texts', async () => {
    assert.deepEqual((await s.call('POST', '/v1/secret/delete/x', { body: {} })).json, { errors: ['No version number provided'] });
    assert.deepEqual((await s.call('POST', '/v1/secret/undelete/x', { body: { versions: [] } })).json, { errors: ['No version number provided'] });
    assert.deepEqual((await s.call('POST', '/v1/secret/destroy/x', { body: {} })).json, { errors: ['no version number provided'] });
    const noData = await s.call('POST', '/v1/secret/data/x', { body: { options: {} } });
    assert.equal(noData.status, 400);
    assert.deepEqual(noData.json, { errors: ['no data provided'] });
    assert.equal((await s.call('GET', '/v1/secret/metadata/x')).status, 404, 'nothing was created');
  });

  it('patches the latest version with a JSON merge patch', async () => {
    await s.call('POST', '/v1/secret/data/patchme', { body: { data: { a: 1, b: 2 } } });
    const wrongType = await s.call('PATCH', '/v1/secret/data/patchme', { body: { data: { b: null } } });
    assert.equal(wrongType.status, 415);
    const r = await s.call('PATCH', '/v1/secret/data/patchme', {
      body: { data: { b: null, c: 3 } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.data.version, 2);
    assert.deepEqual((await s.call('GET', '/v1/secret/data/patchme')).json.data.data, { a: 1, c: 3 });
  });

  it('reads subkeys without values', async () => {
    await s.call('POST', '/v1/secret/data/sub', { body: { data: { a: 1, b: { c: 'x' } } } });
    const r = await s.call('GET', '/v1/secret/subkeys/sub');
    assert.deepEqual(r.json.data.subkeys, { a: null, b: { c: null } });
    assert.ok(!r.text.includes('"x"'));
  });
});

describe('KV v2 metadata', () => {
  it('writes settings and custom metadata, reads them, deletes the key with every version', async () => {
    const w = await s.call('POST', '/v1/secret/metadata/meta/k', {
      body: { max_versions: 5, delete_version_after: '1h', custom_metadata: { owner: 'team-a' } },
    });
    assert.equal(w.status, 204);
    await s.call('POST', '/v1/secret/data/meta/k', { body: { data: { a: 1 } } });
    const r = await s.call('GET', '/v1/secret/metadata/meta/k');
    assert.equal(r.json.data.max_versions, 5);
    assert.equal(r.json.data.delete_version_after, '1h0m0s');
    assert.deepEqual(r.json.data.custom_metadata, { owner: 'team-a' });
    assert.notEqual(r.json.data.versions['1'].deletion_time, '', 'deletion time pre-set by delete_version_after');
    assert.equal((await s.call('DELETE', '/v1/secret/metadata/meta/k')).status, 204);
    assert.equal((await s.call('GET', '/v1/secret/metadata/meta/k')).status, 404);
    assert.equal((await s.call('GET', '/v1/secret/data/meta/k?version=1')).status, 404);
  });

  it('refuses bad metadata input and changes nothing', async () => {
    await s.call('POST', '/v1/secret/metadata/bad', { body: { max_versions: 3 } });
    const r = await s.call('POST', '/v1/secret/metadata/bad', { body: { max_versions: 'many' } });
    assert.equal(r.status, 400);
    assert.match(r.json.errors[0], /max_versions/);
    const d = await s.call('POST', '/v1/secret/metadata/bad', { body: { delete_version_after: 'soon' } });
    assert.equal(d.status, 400);
    assert.match(d.json.errors[0], /delete_version_after/);
    assert.equal((await s.call('GET', '/v1/secret/metadata/bad')).json.data.max_versions, 3);
  });

  it('lists keys and folders with LIST and GET ?list=true; empty list is 404 {"errors":[]}', async () => {
    for (const k of ['ls/a', 'ls/b/c', 'ls/b/d']) await s.call('POST', `/v1/secret/data/${k}`, { body: { data: { x: 1 } } });
    const list = await s.call('LIST', '/v1/secret/metadata/ls');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.data.keys, ['a', 'b/']);
    const viaGet = await s.call('GET', '/v1/secret/metadata/ls/b/?list=true');
    assert.deepEqual(viaGet.json.data.keys, ['c', 'd']);
    const empty = await s.call('LIST', '/v1/secret/metadata/nothing-here/');
    assert.equal(empty.status, 404);
    assert.deepEqual(empty.json, { errors: [] });
  });

  it('answers version-1 style paths on a v2 mount with a 404 envelope and a warning', async () => {
    const r = await s.call('GET', '/v1/secret/foo');
    assert.equal(r.status, 404);
    assert.match(r.json.warnings[0], /Invalid path for a versioned K\/V secrets engine/);
  });
});
