/**
 * Auth methods over HTTP, the unhappy paths (reference/secrets.md §3.6, §4.2): bad input
 * on every endpoint is a 400 naming the field and changes nothing; the storage holds
 * no password and no secret ID in clear, neither in the SQLite file nor behind the barrier.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { listRecursive } from '../../src/kernel/store/index.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
const PASSWORD = 'Pa55-word-in-clear-7731';
const issued: string[] = [];

before(async () => {
  s = await startTestServer();
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await s.call(method, path, { body });
    assert.ok(r.status < 300, `${method} ${path}: ${r.text}`);
    return r;
  };
  await ok('POST', '/v1/sys/auth/userpass', { type: 'userpass' });
  await ok('POST', '/v1/sys/auth/approle', { type: 'approle' });
  await ok('POST', '/v1/auth/userpass/users/alice', { password: PASSWORD, token_policies: 'dev' });
  await ok('POST', '/v1/auth/approle/role/web', { token_policies: 'web', secret_id_ttl: '1h', secret_id_num_uses: 5 });
  await ok('POST', '/v1/auth/approle/role/db', {});
  for (let i = 0; i < 3; i++) issued.push((await ok('POST', '/v1/auth/approle/role/web/secret-id', {})).json.data.secret_id);
});
after(() => s.close());

/** Everything a bad request could have changed. */
async function snapshot() {
  const get = async (method: string, path: string) => (await s.call(method, path)).json?.data ?? null;
  return {
    auth: await get('GET', '/v1/sys/auth'),
    tune: await get('GET', '/v1/sys/auth/userpass/tune'),
    users: await get('LIST', '/v1/auth/userpass/users'),
    alice: await get('GET', '/v1/auth/userpass/users/alice'),
    roles: await get('LIST', '/v1/auth/approle/role'),
    web: await get('GET', '/v1/auth/approle/role/web'),
    webRoleId: await get('GET', '/v1/auth/approle/role/web/role-id'),
    secretIds: await get('LIST', '/v1/auth/approle/role/web/secret-id'),
  };
}

describe('bad input', () => {
  it('is a 400 naming the field on every endpoint, and changes nothing', async () => {
    const before = await snapshot();
    const dbRoleId = (await s.call('GET', '/v1/auth/approle/role/db/role-id')).json.data.role_id;
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/v1/sys/auth/x', {}, /^missing required field "type"$/],
      ['POST', '/v1/sys/auth/x', { type: { a: 1 } }, /^field "type"/],
      ['POST', '/v1/sys/auth/x', { type: 'kv' }, /^type: unknown auth method type "kv"$/],
      ['POST', '/v1/sys/auth/x', { type: 'token' }, /^type: /],
      ['POST', '/v1/sys/auth/x', { type: 'userpass', config: 'big' }, /^field "config"/],
      ['POST', '/v1/sys/auth/x', { type: 'userpass', config: { max_lease_ttl: 'forever' } }, /field "config.max_lease_ttl"/],
      ['POST', '/v1/sys/auth/x', { type: 'userpass', config: { default_lease_ttl: { h: 1 } } }, /^field "config.default_lease_ttl"/],
      ['POST', '/v1/sys/auth/x', { type: 'userpass', local: 'maybe' }, /^field "local"/],
      ['POST', '/v1/sys/auth/userpass/tune', { max_lease_ttl: 'x' }, /field "max_lease_ttl"/],
      ['POST', '/v1/sys/auth/userpass/tune', { default_lease_ttl: '2h', max_lease_ttl: '1h' }, /^default_lease_ttl: must not be greater/],
      ['POST', '/v1/sys/auth/userpass/tune', { description: { a: 1 } }, /^field "description"/],
      ['POST', '/v1/sys/auth/nosuch/tune', {}, /no auth method at "auth\/nosuch\/"/],
      ['GET', '/v1/sys/auth/nosuch/tune', undefined, /cannot fetch sysview/],
      ['DELETE', '/v1/sys/auth/token', undefined, /^token credential backend cannot be disabled$/],
      ['POST', '/v1/auth/userpass/users/bob', {}, /^missing required field "password"$/],
      ['POST', '/v1/auth/userpass/users/bob', { password: '' }, /^field "password"/],
      ['POST', '/v1/auth/userpass/users/bob', { password: { p: 1 } }, /^field "password"/],
      ['POST', '/v1/auth/userpass/users/bob', { password: 'x', token_ttl: 'forever' }, /field "token_ttl"/],
      ['POST', '/v1/auth/userpass/users/bob', { password: 'x', token_policies: { a: 1 } }, /^field "token_policies"/],
      ['POST', '/v1/auth/userpass/users/bob', { password: 'x', token_policies: 'root' }, /^token_policies: /],
      ['POST', '/v1/auth/userpass/users/bob', { password: 'x', policies: 'a', token_policies: 'b' }, /^policies: /],
      ['POST', '/v1/auth/userpass/users/alice', { token_max_ttl: -1 }, /^token_max_ttl: must not be negative$/],
      ['POST', '/v1/auth/userpass/users/alice', { token_ttl: '2h', token_max_ttl: '1h' }, /^token_ttl: /],
      ['POST', '/v1/auth/userpass/users/alice/password', {}, /^missing required field "password"$/],
      ['POST', '/v1/auth/userpass/users/ghost/password', { password: 'x' }, /^user "ghost" does not exist$/],
      ['POST', '/v1/auth/userpass/login/alice', {}, /^missing required field "password"$/],
      ['POST', '/v1/auth/userpass/login/alice', { password: ['a', 'b'] }, /^field "password"/],
      ['POST', '/v1/auth/approle/role/r2', { secret_id_num_uses: -1 }, /^field "secret_id_num_uses"/],
      ['POST', '/v1/auth/approle/role/r2', { secret_id_num_uses: 'many' }, /^field "secret_id_num_uses"/],
      ['POST', '/v1/auth/approle/role/r2', { secret_id_ttl: 'later' }, /field "secret_id_ttl"/],
      ['POST', '/v1/auth/approle/role/r2', { bind_secret_id: 'maybe' }, /^field "bind_secret_id"/],
      ['POST', '/v1/auth/approle/role/r2', { bind_secret_id: false }, /^bind_secret_id: /],
      ['POST', '/v1/auth/approle/role/r2', { token_policies: 'a,root' }, /^token_policies: /],
      ['POST', '/v1/auth/approle/role/web', { token_ttl: -5 }, /^token_ttl: must not be negative$/],
      ['POST', '/v1/auth/approle/role/web/role-id', {}, /^missing required field "role_id"$/],
      ['POST', '/v1/auth/approle/role/web/role-id', { role_id: '' }, /^field "role_id"/],
      ['POST', '/v1/auth/approle/role/web/role-id', { role_id: dbRoleId }, /^role_id: already in use/],
      ['POST', '/v1/auth/approle/role/ghost/role-id', { role_id: 'x' }, /^role "ghost" does not exist$/],
      ['POST', '/v1/auth/approle/role/ghost/secret-id', {}, /^role "ghost" does not exist$/],
      ['POST', '/v1/auth/approle/role/web/secret-id', { num_uses: 'x' }, /^field "num_uses"/],
      ['POST', '/v1/auth/approle/role/web/secret-id', { num_uses: 6 }, /^num_uses: /],
      ['POST', '/v1/auth/approle/role/web/secret-id', { ttl: '2h' }, /^ttl: /],
      ['POST', '/v1/auth/approle/role/web/secret-id', { ttl: 'x' }, /field "ttl"/],
      ['POST', '/v1/auth/approle/role/web/secret-id/destroy', {}, /^missing required field "secret_id"$/],
      ['POST', '/v1/auth/approle/role/web/secret-id/destroy', { secret_id: { a: 1 } }, /^field "secret_id"/],
      ['POST', '/v1/auth/approle/login', {}, /^missing required field "role_id"$/],
      ['POST', '/v1/auth/approle/login', { role_id: dbRoleId }, /^missing required field "secret_id"$/],
      ['POST', '/v1/auth/approle/login', { role_id: { a: 1 }, secret_id: 'x' }, /^field "role_id"/],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await s.call(method, path, { body, token: path.includes('/login') ? null : undefined });
      const what = `${method} ${path} ${JSON.stringify(body)}: ${r.text}`;
      assert.equal(r.status, 400, what);
      assert.equal(r.json.errors.length, 1, what);
      assert.match(r.json.errors[0], message, what);
    }
    assert.deepEqual(await snapshot(), before);
    assert.equal((await s.call('GET', '/v1/auth/userpass/users/bob')).status, 404);
    assert.equal((await s.call('GET', '/v1/auth/approle/role/r2')).status, 404);
    assert.equal((await s.call('GET', '/v1/sys/auth/x')).status, 404);
  });

  it('answers 404 for names the paths do not accept', async () => {
    assert.equal((await s.call('POST', '/v1/auth/userpass/users/-bob', { body: { password: 'x' } })).status, 404);
    assert.equal((await s.call('POST', '/v1/auth/approle/role/a%20b', { body: {} })).status, 404);
    assert.equal((await s.call('GET', '/v1/auth/userpass/users/bob.')).status, 404);
  });
});

describe('storage', () => {
  it('holds no password and no secret ID in clear', async () => {
    // Log in with each secret ID so its use count is rewritten too.
    const roleId = (await s.call('GET', '/v1/auth/approle/role/web/role-id')).json.data.role_id;
    for (const secret_id of issued) {
      assert.equal((await s.call('POST', '/v1/auth/approle/login', { token: null, body: { role_id: roleId, secret_id } })).status, 200);
    }
    assert.equal((await s.call('POST', '/v1/auth/userpass/login/alice', { token: null, body: { password: PASSWORD } })).status, 200);
    const needles = [PASSWORD, ...issued, ...issued.map((x) => x.replaceAll('-', ''))];

    // The logical view (behind the barrier, if any): every key and value of every mount.
    const core = s.service.core;
    const keys = await listRecursive(core.backend, 'logical/');
    const logical = Buffer.concat(await Promise.all(keys.map(async (k) => Buffer.concat([Buffer.from(k), Buffer.from((await core.backend.get(k)) ?? [])]))));
    assert.ok(logical.includes('alice') && logical.includes('scrypt'), 'the scan sees the user entries');
    // The SQLite table and the raw files (database and write-ahead log).
    const db = new Database(s.dbPath, { readonly: true });
    const rows = db.prepare('SELECT k, v FROM kv').all() as { k: string; v: Buffer | string }[];
    db.close();
    const table = Buffer.concat(rows.flatMap((r) => [Buffer.from(r.k), Buffer.from(r.v)]));
    const files = [s.dbPath, `${s.dbPath}-wal`].filter(existsSync).map((f) => readFileSync(f));
    for (const [where, bytes] of [['logical view', logical], ['kv table', table], ...files.map((b, i) => [`file ${i}`, b] as const)] as const) {
      for (const n of needles) {
        assert.ok(!bytes.includes(n), `${where} contains ${n}`);
        assert.ok(!bytes.includes(Buffer.from(n).toString('base64')), `${where} contains ${n} in base64`);
      }
    }
  });
});
