/**
 * Namespaces (spec 000 "Authentication" 5–7; reference/secrets.md §3.8, §6): header and
 * path splits are equivalent, siblings are isolated, parents reach children, root-only
 * paths refuse namespaces, managed mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSealedServer, startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

const ns = (n: string) => ({ 'X-Secrets-Namespace': n });

describe('namespaces', () => {
  it('creates nested namespaces and lists children', async () => {
    const a = await s.call('POST', '/v1/sys/namespaces/ns1', { body: { custom_metadata: { team: 'a' } } });
    assert.equal(a.status, 200);
    assert.equal(a.json.data.path, 'ns1/');
    assert.match(a.json.data.id, /^[A-Za-z0-9]{5}$/);
    assert.equal((await s.call('POST', '/v1/sys/namespaces/ns2', { headers: ns('ns1') })).status, 200);
    const list = await s.call('LIST', '/v1/sys/namespaces');
    assert.deepEqual(list.json.data.keys, ['ns1/']);
    assert.deepEqual(list.json.data.key_info['ns1/'].custom_metadata, { team: 'a' });
    const inner = await s.call('GET', '/v1/ns1/sys/namespaces?list=true');
    assert.deepEqual(inner.json.data.keys, ['ns2/']);
    assert.equal(inner.json.data.key_info['ns2/'].path, 'ns1/ns2/');
    const read = await s.call('GET', '/v1/sys/namespaces/ns2', { headers: ns('ns1') });
    assert.equal(read.json.data.path, 'ns1/ns2/');
  });

  it('treats every split of the namespace between header and path as the same request', async () => {
    assert.equal((await s.call('POST', '/v1/sys/mounts/secret', { headers: ns('ns1/ns2'), body: { type: 'kv-v2' } })).status, 204);
    assert.equal((await s.call('POST', '/v1/secret/data/app', { headers: ns('ns1/ns2/'), body: { data: { v: 'deep' } } })).status, 200);
    const splits: [Record<string, string>, string][] = [
      [{}, '/v1/ns1/ns2/secret/data/app'],
      [ns(''), '/v1/ns1/ns2/secret/data/app'],
      [ns('root'), '/v1/ns1/ns2/secret/data/app'],
      [ns('ns1'), '/v1/ns2/secret/data/app'],
      [ns('/ns1/'), '/v1/ns2/secret/data/app'],
      [ns('ns1/ns2'), '/v1/secret/data/app'],
    ];
    for (const [headers, path] of splits) {
      const r = await s.call('GET', path, { headers });
      assert.equal(r.status, 200, `${JSON.stringify(headers)} ${path}`);
      assert.equal(r.json.data.data.v, 'deep');
    }
    assert.equal((await s.call('GET', '/v1/secret/data/app')).status, 404, 'the root namespace has its own secret/');
  });

  it('isolates siblings: a namespace token reaches its own namespace and children only', async () => {
    for (const n of ['team-a', 'team-b']) {
      await s.call('POST', `/v1/sys/namespaces/${n}`);
      await s.call('POST', '/v1/sys/mounts/secret', { headers: ns(n), body: { type: 'kv-v2' } });
      await s.call('POST', '/v1/secret/data/db', { headers: ns(n), body: { data: { owner: n } } });
    }
    await s.call('PUT', '/v1/sys/policies/acl/reader', { headers: ns('team-a'), body: { policy: 'path "secret/*" { capabilities = ["read"] }' } });
    const created = await s.call('POST', '/v1/auth/token/create', { headers: ns('team-a'), body: { policies: ['reader'] } });
    assert.equal(created.status, 200);
    assert.deepEqual(created.json.warnings, null, 'reader exists in team-a');
    const tok = created.json.auth.client_token;
    const own = await s.call('GET', '/v1/secret/data/db', { token: tok, headers: ns('team-a') });
    assert.equal(own.status, 200);
    assert.equal(own.json.data.data.owner, 'team-a');
    assert.equal((await s.call('GET', '/v1/team-a/secret/data/db', { token: tok })).status, 200, 'path form too');
    for (const [headers, path] of [
      [ns('team-b'), '/v1/secret/data/db'],
      [{}, '/v1/team-b/secret/data/db'],
      [{}, '/v1/secret/data/app'],
    ] as const) {
      const r = await s.call('GET', path, { token: tok, headers });
      assert.equal(r.status, 403, `${JSON.stringify(headers)} ${path}`);
      assert.deepEqual(r.json, { errors: ['permission denied'] });
    }
    const other = await s.call('POST', '/v1/auth/token/create', { headers: ns('team-b'), body: { policies: ['reader'] } });
    assert.deepEqual(other.json.warnings, ['Policy "reader" does not exist'], 'policies are per namespace');
    assert.equal((await s.call('GET', '/v1/secret/data/db', { headers: ns('team-b') })).json.data.data.owner, 'team-b', "a parent's token reaches children");
  });

  it('logs in through an auth method of a namespace and gets a token of that namespace', async () => {
    await s.call('POST', '/v1/sys/auth/userpass', { headers: ns('team-a'), body: { type: 'userpass' } });
    await s.call('POST', '/v1/auth/userpass/users/alice', { headers: ns('team-a'), body: { password: 'pw', token_policies: 'reader' } });
    assert.equal(
      (await s.call('POST', '/v1/auth/userpass/login/alice', { body: { password: 'pw' }, token: null })).status,
      403,
      'not enabled in root: an anonymous caller learns nothing',
    );
    const login = await s.call('POST', '/v1/team-a/auth/userpass/login/alice', { body: { password: 'pw' }, token: null });
    assert.equal(login.status, 200);
    const tok = login.json.auth.client_token;
    assert.equal((await s.call('GET', '/v1/team-a/secret/data/db', { token: tok })).status, 200);
    assert.equal((await s.call('GET', '/v1/team-b/secret/data/db', { token: tok })).status, 403);
  });

  it("lets a parent namespace's token reach a child only as far as its policy says", async () => {
    await s.call('PUT', '/v1/sys/policies/acl/ops', { body: { policy: 'path "team-a/secret/data/*" { capabilities = ["read"] }' } });
    const ops = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['ops'] } })).json.auth.client_token;
    for (const [headers, path] of [
      [ns('team-a'), '/v1/secret/data/db'],
      [{}, '/v1/team-a/secret/data/db'],
    ] as const) {
      const r = await s.call('GET', path, { token: ops, headers });
      assert.equal(r.status, 200, `${JSON.stringify(headers)} ${path}`);
      assert.equal(r.json.data.data.owner, 'team-a');
    }
    assert.equal((await s.call('POST', '/v1/team-a/secret/data/db', { token: ops, body: { data: { owner: 'ops' } } })).status, 403, 'read only');
    assert.equal((await s.call('GET', '/v1/team-b/secret/data/db', { token: ops })).status, 403, 'nothing granted in team-b');
    assert.equal((await s.call('GET', '/v1/team-a/secret/data/db')).json.data.data.owner, 'team-a');
  });

  it('keeps tokens of other namespaces out of reach of auth/token/* by token or accessor', async () => {
    const tokenAdmin = 'path "auth/token/*" { capabilities = ["create", "read", "update"] }';
    await s.call('PUT', '/v1/sys/policies/acl/token-admin', { headers: ns('team-a'), body: { policy: tokenAdmin } });
    const admin = (await s.call('POST', '/v1/auth/token/create', { headers: ns('team-a'), body: { policies: ['token-admin'] } })).json.auth.client_token;
    const inB = (await s.call('POST', '/v1/auth/token/create', { headers: ns('team-b'), body: { policies: ['default'] } })).json.auth;
    const inRoot = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['default'] } })).json.auth;
    const asAdmin = (path: string, body: unknown) => s.call('POST', `/v1/auth/token/${path}`, { token: admin, headers: ns('team-a'), body });
    for (const victim of [inB, inRoot]) {
      assert.deepEqual((await asAdmin('lookup', { token: victim.client_token })).json, { errors: ['bad token'] });
      assert.deepEqual((await asAdmin('lookup-accessor', { accessor: victim.accessor })).json, { errors: ['invalid accessor'] });
      assert.deepEqual((await asAdmin('revoke-accessor', { accessor: victim.accessor })).json, { errors: ['invalid accessor'] });
      assert.deepEqual((await asAdmin('renew', { token: victim.client_token })).json, { errors: ['token not found'] });
      assert.deepEqual((await asAdmin('renew-accessor', { accessor: victim.accessor })).json, { errors: ['invalid accessor'] });
      assert.equal((await asAdmin('revoke', { token: victim.client_token })).status, 204, 'idempotent, as for an unknown token');
    }
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: inB.client_token, headers: ns('team-b') })).status, 200, 'still alive');
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: inRoot.client_token })).status, 200, 'still alive');
    const own = (await s.call('POST', '/v1/auth/token/create', { headers: ns('team-a'), body: { policies: ['default'] } })).json.auth;
    assert.equal((await asAdmin('lookup-accessor', { accessor: own.accessor })).status, 200, 'its own namespace');
    const fromRoot = await s.call('POST', '/v1/auth/token/lookup-accessor', { body: { accessor: inB.accessor } });
    assert.equal(fromRoot.status, 200, 'the root namespace reaches tokens below it');
  });

  it('refuses a mount and a namespace that would hide one another', async () => {
    const mountsBefore = Object.keys((await s.call('GET', '/v1/sys/mounts')).json.data).sort();
    for (const path of ['team-a', 'team-a/inner']) {
      const r = await s.call('POST', `/v1/sys/mounts/${path}`, { body: { type: 'kv' } });
      assert.equal(r.status, 400, path);
      assert.deepEqual(r.json, { errors: [`path "${path}" is already in use by namespace "team-a/"`] });
    }
    const clash = await s.call('POST', '/v1/sys/namespaces/secret');
    assert.equal(clash.status, 400);
    assert.deepEqual(clash.json, { errors: ['namespace "secret/" conflicts with the mount at "secret/"'] });
    const inner = await s.call('POST', '/v1/sys/namespaces/secret', { headers: ns('team-a') });
    assert.deepEqual(inner.json, { errors: ['namespace "team-a/secret/" conflicts with the mount at "secret/"'] });
    assert.deepEqual(Object.keys((await s.call('GET', '/v1/sys/mounts')).json.data).sort(), mountsBefore);
    assert.equal((await s.call('GET', '/v1/sys/namespaces/secret')).status, 404);
    assert.deepEqual((await s.call('GET', '/v1/secret/data/app')).json, { errors: [] }, 'secret/ still routes to the mount');
    assert.equal((await s.call('GET', '/v1/secret/data/db', { headers: ns('team-a') })).json.data.data.owner, 'team-a');
  });

  it('refuses root-only system paths in a namespace', async () => {
    for (const [headers, path] of [
      [ns('ns1'), '/v1/sys/seal-status'],
      [ns('ns1'), '/v1/sys/health'],
      [{}, '/v1/ns1/sys/seal-status'],
      [ns('ns1'), '/v1/sys/config/cors'],
    ] as const) {
      const r = await s.call('GET', path, { headers });
      assert.equal(r.status, 400, path);
      assert.deepEqual(r.json, { errors: ['operation unavailable in namespaces'] });
    }
    const missing = await s.call('GET', '/v1/sys/mounts', { headers: ns('nope') });
    assert.equal(missing.status, 404);
    assert.match(missing.json.errors[0], /namespace "nope\/" not found/);
  });

  it('refuses bad namespace input and changes nothing', async () => {
    const before = (await s.call('LIST', '/v1/sys/namespaces')).json.data.keys;
    for (const [name, body] of [
      ['sys', {}],
      ['bad!name', {}],
      ['okname', { custom_metadata: { n: 1 } }],
      ['okname', { custom_metadata: 'x' }],
    ] as const) {
      const r = await s.call('POST', `/v1/sys/namespaces/${name}`, { body });
      assert.equal(r.status, 400, `${name} ${JSON.stringify(body)}`);
      assert.ok(r.json.errors[0]);
    }
    assert.deepEqual((await s.call('LIST', '/v1/sys/namespaces')).json.data.keys, before);
  });

  it('deletes a leaf namespace with its data and tokens; refuses one with children', async () => {
    const del = await s.call('DELETE', '/v1/sys/namespaces/ns1');
    assert.equal(del.status, 400);
    assert.match(del.json.errors[0], /child namespaces/);
    const tok = (await s.call('POST', '/v1/auth/token/create', { headers: ns('team-b'), body: {} })).json.auth.client_token;
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: tok, headers: ns('team-b') })).status, 200);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: tok })).status, 403, 'a namespace token does not reach the root namespace');
    assert.equal((await s.call('DELETE', '/v1/sys/namespaces/team-b')).status, 204);
    await s.call('POST', '/v1/sys/namespaces/team-b');
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: tok, headers: ns('team-b') })).status, 403, 'its tokens are revoked');
    await s.call('POST', '/v1/sys/mounts/secret', { headers: ns('team-b'), body: { type: 'kv-v2' } });
    assert.equal((await s.call('GET', '/v1/secret/data/db', { headers: ns('team-b') })).status, 404, 'a new namespace of the same name starts empty');
  });
});

describe('managed mode', () => {
  it('puts the root token in admin/: requests without a namespace fail', async () => {
    const m = await startSealedServer({ managedNamespaces: true });
    try {
      const init = (await m.call('PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } })).json;
      await m.call('PUT', '/v1/sys/unseal', { body: { key: init.keys[0] } });
      const root = await m.call('GET', '/v1/sys/mounts', { token: init.root_token });
      assert.equal(root.status, 403);
      const admin = await m.call('GET', '/v1/sys/mounts', { token: init.root_token, headers: ns('admin') });
      assert.equal(admin.status, 200);
      assert.equal((await m.call('GET', '/v1/admin/sys/mounts', { token: init.root_token })).status, 200);
      assert.equal((await m.call('POST', '/v1/sys/namespaces/eng', { token: init.root_token, headers: ns('admin') })).status, 200);
      assert.equal((await m.call('GET', '/v1/admin/eng/sys/mounts', { token: init.root_token })).status, 200);
    } finally {
      await m.close();
    }
  });
});
