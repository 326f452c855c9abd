/**
 * Auth methods over HTTP (reference/secrets.md §3.6, §4.2; spec 000 "Authentication" 3):
 * `sys/auth`, userpass and AppRole logins with no token, the tokens they issue, and
 * the 400s for wrong credentials. Bad input and storage: auth-input.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => {
  s = await startTestServer({ clock: () => new Date(now) });
  for (const type of ['userpass', 'approle']) {
    const r = await s.call('POST', `/v1/sys/auth/${type}`, { body: { type, description: `${type} logins` } });
    assert.equal(r.status, 204, r.text);
  }
});
after(() => s.close());

const lookupSelf = (token: string) => s.call('GET', '/v1/auth/token/lookup-self', { token });

describe('sys/auth', () => {
  it('lists token/ and the enabled methods, data also at the top level', async () => {
    const r = await s.call('GET', '/v1/sys/auth');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json.data).sort(), ['approle/', 'token/', 'userpass/']);
    const up = r.json.data['userpass/'];
    assert.equal(up.type, 'userpass');
    assert.equal(up.description, 'userpass logins');
    assert.deepEqual(up.config, { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false, token_type: 'default-service' });
    for (const k of ['accessor', 'local', 'seal_wrap', 'options', 'uuid']) assert.ok(k in up, k);
    assert.equal(r.json['token/'].type, 'token');
    const mounts = await s.call('GET', '/v1/sys/mounts');
    assert.ok(!Object.keys(mounts.json.data).some((k) => k.startsWith('auth/') || k === 'userpass/'), 'sys/mounts lists secrets engines only');
  });

  it('reads, tunes and refuses clashing or unknown methods', async () => {
    const one = await s.call('GET', '/v1/sys/auth/approle');
    assert.equal(one.json.data.type, 'approle');
    assert.equal((await s.call('GET', '/v1/sys/auth/nosuch')).status, 404);
    assert.equal((await s.call('POST', '/v1/sys/auth/approle/tune', { body: { description: 'machines', max_lease_ttl: '2h' } })).status, 204);
    const tune = await s.call('GET', '/v1/sys/auth/approle/tune');
    assert.deepEqual([tune.json.data.description, tune.json.data.max_lease_ttl, tune.json.data.token_type], ['machines', 7200, 'default-service']);
    const cases: [string, unknown, string][] = [
      ['userpass', { type: 'userpass' }, 'path is already in use at auth/userpass/'],
      ['userpass/inner', { type: 'approle' }, 'path is already in use at auth/userpass/'],
      ['token', { type: 'userpass' }, 'path is already in use at auth/token/'],
      ['x', { type: 'ldap' }, 'type: unknown auth method type "ldap"'],
    ];
    for (const [path, body, message] of cases) {
      const r = await s.call('POST', `/v1/sys/auth/${path}`, { body });
      assert.equal(r.status, 400, path);
      assert.deepEqual(r.json.errors, [message]);
    }
    assert.equal((await s.call('DELETE', '/v1/sys/auth/token')).status, 400, 'token/ cannot be disabled');
    assert.equal((await s.call('DELETE', '/v1/sys/mounts/auth/userpass')).status, 400, 'sys/mounts cannot disable auth methods');
  });

  it('answers 404 for a method that is not enabled and for unknown paths in one', async () => {
    const r = await s.call('POST', '/v1/auth/nosuch/login', { body: {} });
    assert.equal(r.status, 404);
    assert.deepEqual(r.json.errors, ['no handler for route "auth/nosuch/login". route entry not found.']);
    assert.equal((await s.call('GET', '/v1/auth/userpass/nope')).status, 404);
  });
});

describe('userpass', () => {
  it('creates users (lower-cased) and never shows the password', async () => {
    const w = await s.call('POST', '/v1/auth/userpass/users/Alice', { body: { password: 'pw-alice-1', token_policies: 'Dev, ops', token_ttl: '1h' } });
    assert.equal(w.status, 204, w.text);
    const r = await s.call('GET', '/v1/auth/userpass/users/alice');
    assert.deepEqual(r.json.data, {
      token_policies: ['dev', 'ops'],
      policies: ['dev', 'ops'],
      token_ttl: 3600,
      token_max_ttl: 0,
      token_period: 0,
      token_bound_cidrs: [],
    });
    assert.ok(!r.text.includes('pw-alice-1') && !r.text.includes('hash'));
    await s.call('POST', '/v1/auth/userpass/users/bob', { body: { password: 'pw-bob-1', policies: ['web'] } });
    assert.deepEqual((await s.call('LIST', '/v1/auth/userpass/users')).json.data.keys, ['alice', 'bob']);
    assert.equal((await s.call('GET', '/v1/auth/userpass/users/nobody')).status, 404);
  });

  it("logs in without a token and returns an orphan service token with the user's policies", async () => {
    const r = await s.call('POST', '/v1/auth/userpass/login/ALICE', { token: null, body: { password: 'pw-alice-1' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data, null);
    const a = r.json.auth;
    assert.match(a.client_token, /^cs\./);
    assert.deepEqual(a.policies, ['default', 'dev', 'ops']);
    assert.deepEqual(a.token_policies, ['default', 'dev', 'ops']);
    assert.deepEqual(a.metadata, { username: 'alice' });
    assert.deepEqual([a.lease_duration, a.renewable, a.token_type, a.orphan, a.num_uses], [3600, true, 'service', true, 0]);
    const self = await lookupSelf(a.client_token);
    assert.equal(self.status, 200);
    assert.deepEqual(self.json.data.policies, ['default', 'dev', 'ops']);
    assert.equal(self.json.data.path, 'auth/userpass/login/alice');
    assert.equal(self.json.data.display_name, 'userpass-alice');
    assert.equal(self.json.data.accessor, a.accessor);
    assert.equal((await s.call('GET', '/v1/sys/auth', { token: a.client_token })).status, 403, 'only its policies');
  });

  it('answers a wrong password and an unknown user with the same 400', async () => {
    for (const [user, password] of [
      ['alice', 'wrong'],
      ['nobody', 'pw-alice-1'],
    ]) {
      const r = await s.call('POST', `/v1/auth/userpass/login/${user}`, { token: null, body: { password } });
      assert.equal(r.status, 400);
      assert.deepEqual(r.json, { errors: ['invalid username or password'] });
    }
  });

  it('uses the mount default TTL, changes passwords and deletes users', async () => {
    const bob = await s.call('POST', '/v1/auth/userpass/login/bob', { token: null, body: { password: 'pw-bob-1' } });
    assert.equal(bob.json.auth.lease_duration, 2764800, '768h');
    assert.equal((await s.call('POST', '/v1/auth/userpass/users/bob/password', { body: { password: 'pw-bob-2' } })).status, 204);
    const login = (password: string) => s.call('POST', '/v1/auth/userpass/login/bob', { token: null, body: { password } });
    assert.equal((await login('pw-bob-1')).status, 400);
    assert.equal((await login('pw-bob-2')).status, 200);
    assert.deepEqual((await s.call('GET', '/v1/auth/userpass/users/bob')).json.data.token_policies, ['web'], 'settings kept');
    assert.equal((await s.call('DELETE', '/v1/auth/userpass/users/bob')).status, 204);
    assert.equal((await login('pw-bob-2')).status, 400);
  });
});

describe('approle', () => {
  const role = async (name: string, body: unknown) => assert.equal((await s.call('POST', `/v1/auth/approle/role/${name}`, { body })).status, 204);
  const roleId = async (name: string) => (await s.call('GET', `/v1/auth/approle/role/${name}/role-id`)).json.data.role_id as string;
  const secretId = async (name: string, body: unknown = {}) => {
    const r = await s.call('POST', `/v1/auth/approle/role/${name}/secret-id`, { body });
    assert.equal(r.status, 200, r.text);
    return r.json.data as { secret_id: string; secret_id_accessor: string; secret_id_ttl: number; secret_id_num_uses: number };
  };
  const login = (role_id: string, secret_id: string) => s.call('POST', '/v1/auth/approle/login', { token: null, body: { role_id, secret_id } });
  const refused = (r: { status: number; json: unknown }) => {
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { errors: ['invalid role or secret ID'] });
  };

  it('creates roles and issues secret IDs that log in without a token', async () => {
    await role('web', { token_policies: ['web'], secret_id_num_uses: 2, secret_id_ttl: '10m', token_ttl: 600 });
    const r = await s.call('GET', '/v1/auth/approle/role/web');
    assert.deepEqual(r.json.data, {
      token_policies: ['web'],
      policies: ['web'],
      token_ttl: 600,
      token_max_ttl: 0,
      token_period: 0,
      token_bound_cidrs: [],
      bind_secret_id: true,
      secret_id_bound_cidrs: [],
      secret_id_ttl: 600,
      secret_id_num_uses: 2,
    });
    assert.deepEqual((await s.call('LIST', '/v1/auth/approle/role')).json.data.keys, ['web']);
    const id = await roleId('web');
    assert.match(id, /^[0-9a-f-]{36}$/);
    const sid = await secretId('web');
    assert.deepEqual([sid.secret_id_ttl, sid.secret_id_num_uses], [600, 2]);
    assert.deepEqual((await s.call('LIST', '/v1/auth/approle/role/web/secret-id')).json.data.keys, [sid.secret_id_accessor]);
    const ok = await login(id, sid.secret_id);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.auth.metadata, { role_name: 'web' });
    assert.deepEqual(ok.json.auth.policies, ['default', 'web']);
    assert.deepEqual([ok.json.auth.orphan, ok.json.auth.renewable, ok.json.auth.lease_duration], [true, true, 600]);
    const self = await lookupSelf(ok.json.auth.client_token);
    assert.equal(self.json.data.path, 'auth/approle/login');
    assert.deepEqual(self.json.data.meta, { role_name: 'web' });
    assert.equal((await login(id, sid.secret_id)).status, 200, 'second use');
    refused(await login(id, sid.secret_id));
  });

  it('refuses wrong role IDs, expired, destroyed and foreign secret IDs', async () => {
    await role('db', { token_policies: 'db' });
    const web = await roleId('web');
    const db = await roleId('db');
    const dbSecret = await secretId('db');
    refused(await login('not-a-role-id', dbSecret.secret_id));
    refused(await login(web, dbSecret.secret_id));
    refused(await login(db, 'not-a-secret-id'));
    const soon = await secretId('web', { ttl: 60 });
    now += 61_000;
    refused(await login(web, soon.secret_id));
    const gone = await secretId('db');
    assert.equal((await s.call('POST', '/v1/auth/approle/role/db/secret-id/destroy', { body: { secret_id: gone.secret_id } })).status, 204);
    refused(await login(db, gone.secret_id));
    assert.equal((await login(db, dbSecret.secret_id)).status, 200, 'unlimited uses');
    assert.equal((await login(db, dbSecret.secret_id)).status, 200);
  });

  it('sets a custom role ID, and deleting a role ends its logins', async () => {
    const old = await roleId('db');
    const sid = await secretId('db');
    assert.equal((await s.call('POST', '/v1/auth/approle/role/db/role-id', { body: { role_id: 'db-custom' } })).status, 204);
    refused(await login(old, sid.secret_id));
    assert.equal((await login('db-custom', sid.secret_id)).status, 200);
    assert.equal((await s.call('DELETE', '/v1/auth/approle/role/db')).status, 204);
    refused(await login('db-custom', sid.secret_id));
    await role('db', {});
    assert.equal((await s.call('LIST', '/v1/auth/approle/role/db/secret-id')).status, 404, 'a re-created role starts without secret IDs');
  });
});

describe('disabling a method', () => {
  it('revokes its tokens and deletes its data', async () => {
    await s.call('POST', '/v1/sys/auth/people', { body: { type: 'userpass' } });
    await s.call('POST', '/v1/auth/people/users/carol', { body: { password: 'pw-carol-1' } });
    const carol = (await s.call('POST', '/v1/auth/people/login/carol', { token: null, body: { password: 'pw-carol-1' } })).json.auth.client_token;
    const alice = (await s.call('POST', '/v1/auth/userpass/login/alice', { token: null, body: { password: 'pw-alice-1' } })).json.auth.client_token;
    assert.equal((await s.call('DELETE', '/v1/sys/auth/people')).status, 204);
    assert.equal((await lookupSelf(carol)).status, 403);
    assert.equal((await lookupSelf(alice)).status, 200, "other methods' tokens live on");
    assert.equal((await s.call('DELETE', '/v1/sys/auth/people')).status, 204, 'idempotent');
    await s.call('POST', '/v1/sys/auth/people', { body: { type: 'userpass' } });
    assert.equal((await s.call('LIST', '/v1/auth/people/users')).status, 404, 'a new method at the same path starts empty');
  });
});
