/**
 * `sys/mounts` and the KV version 1 engine over HTTP (reference/secrets.md §2.1, §2.2, §3.5).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

describe('sys/mounts', () => {
  it('lists mounts with data duplicated at the top level', async () => {
    const r = await s.call('GET', '/v1/sys/mounts');
    assert.equal(r.status, 200);
    assert.equal(r.json.data['secret/'].type, 'kv');
    assert.deepEqual(r.json.data['secret/'].options, { version: '2' });
    assert.equal(r.json['secret/'].type, 'kv');
    assert.equal(r.json.data['sys/'].type, 'system');
    assert.equal(r.json.data['auth/token/'], undefined, 'auth mounts live under sys/auth');
  });

  it('enables, reads, tunes and disables an engine; disabling deletes its data', async () => {
    assert.equal((await s.call('POST', '/v1/sys/mounts/team/kv', { body: { type: 'kv-v2', description: 'team' } })).status, 204);
    const one = await s.call('GET', '/v1/sys/mounts/team/kv');
    assert.equal(one.json.data.description, 'team');
    assert.deepEqual(one.json.data.options, { version: '2' });
    await s.call('POST', '/v1/team/kv/data/x', { body: { data: { a: 1 } } });
    assert.equal((await s.call('POST', '/v1/sys/mounts/team/kv/tune', { body: { description: 'tuned', default_lease_ttl: '1h' } })).status, 204);
    const tune = await s.call('GET', '/v1/sys/mounts/team/kv/tune');
    assert.equal(tune.json.data.description, 'tuned');
    assert.equal(tune.json.data.default_lease_ttl, 3600);
    assert.equal((await s.call('DELETE', '/v1/sys/mounts/team/kv')).status, 204);
    assert.equal((await s.call('GET', '/v1/team/kv/data/x')).status, 404);
    assert.equal((await s.call('POST', '/v1/sys/mounts/team/kv', { body: { type: 'kv', options: { version: '2' } } })).status, 204);
    assert.equal((await s.call('GET', '/v1/team/kv/data/x')).status, 404, 'a new mount at the same path starts empty');
    assert.equal((await s.call('DELETE', '/v1/sys/mounts/team/kv')).status, 204);
    assert.equal((await s.call('DELETE', '/v1/sys/mounts/team/kv')).status, 204, 'idempotent');
  });

  it('refuses bad mounts with 400 naming the problem, and changes nothing', async () => {
    const before = (await s.call('GET', '/v1/sys/mounts')).json.data;
    const cases: [string, unknown, RegExp][] = [
      ['/v1/sys/mounts/secret', { type: 'kv' }, /path is already in use at secret\//],
      ['/v1/sys/mounts/secret/inner', { type: 'kv' }, /path is already in use at secret\//],
      ['/v1/sys/mounts/sys/x', { type: 'kv' }, /reserved/],
      ['/v1/sys/mounts/x', { type: 'nosuch' }, /unknown secrets engine type/],
      ['/v1/sys/mounts/x', { description: 'no type' }, /missing required field "type"/],
      ['/v1/sys/mounts/x', { type: 'kv', options: { version: '3' } }, /options\.version/],
      ['/v1/sys/mounts/x', { type: 'kv', config: { default_lease_ttl: 'forever' } }, /default_lease_ttl/],
      ['/v1/sys/mounts/x', { type: 17 }, /^type: unknown secrets engine type "17"/],
    ];
    for (const [path, body, message] of cases) {
      const r = await s.call('POST', path, { body });
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.match(r.json.errors[0], message);
    }
    assert.deepEqual((await s.call('GET', '/v1/sys/mounts')).json.data, before);
  });
});

describe('sys/internal/ui/mounts', () => {
  it('tells a client which KV version serves a path it may use, and nothing else', async () => {
    const v2 = await s.call('GET', '/v1/sys/internal/ui/mounts/secret/app/db');
    assert.equal(v2.status, 200);
    assert.equal(v2.json.data.path, 'secret/');
    assert.deepEqual(v2.json.data.options, { version: '2' });
    await s.call('PUT', '/v1/sys/policies/acl/app-only', { body: { policy: 'path "secret/data/app/*" { capabilities = ["read"] }' } });
    const tok = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['app-only'] } })).json.auth.client_token;
    assert.equal((await s.call('GET', '/v1/sys/internal/ui/mounts/secret/app/db', { token: tok })).status, 200);
    assert.equal((await s.call('GET', '/v1/sys/internal/ui/mounts/secret/other', { token: tok })).status, 403);
    assert.equal((await s.call('GET', '/v1/sys/internal/ui/mounts/nowhere/x')).status, 404);
  });
});

describe('KV version 1', () => {
  before(async () => {
    await s.call('POST', '/v1/sys/mounts/kv1', { body: { type: 'kv', options: { version: '1' } } });
  });

  it('writes, reads, lists and deletes', async () => {
    assert.equal((await s.call('POST', '/v1/kv1/app/db', { body: { user: 'alice', n: 1 } })).status, 204);
    assert.equal((await s.call('PUT', '/v1/kv1/app/cfg/x', { body: { a: true } })).status, 204);
    const r = await s.call('GET', '/v1/kv1/app/db');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.data, { user: 'alice', n: 1 });
    assert.equal(r.json.lease_duration, 2764800);
    assert.equal(r.json.mount_type, 'kv');
    const l = await s.call('LIST', '/v1/kv1/app/');
    assert.deepEqual(l.json.data.keys, ['cfg/', 'db']);
    assert.equal((await s.call('DELETE', '/v1/kv1/app/db')).status, 204);
    assert.deepEqual((await s.call('GET', '/v1/kv1/app/db')).json, { errors: [] });
    assert.equal((await s.call('DELETE', '/v1/kv1/app/db')).status, 204, 'idempotent');
    assert.equal((await s.call('LIST', '/v1/kv1/none/')).status, 404);
  });

  it('takes a ttl from the data as the lease duration', async () => {
    await s.call('POST', '/v1/kv1/leased', { body: { v: 1, ttl: '1h' } });
    assert.equal((await s.call('GET', '/v1/kv1/leased')).json.lease_duration, 3600);
  });

  it('refuses an empty write', async () => {
    const r = await s.call('POST', '/v1/kv1/empty', { body: {} });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { errors: ['missing data fields'] });
  });
});
