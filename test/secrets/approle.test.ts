/**
 * The AppRole API as its clients use it, over HTTP against a real server (the reference's
 * AppRole API; reference/secrets.md §4.2): secret ID lookup by value and by accessor,
 * destroy by accessor, custom secret IDs, the per-field role paths (GET / POST / DELETE),
 * CIDR bindings of roles, secret IDs and tokens, periodic tokens, `tidy/secret-id`, and
 * the help / OpenAPI of the new paths. Storage is checked behind the barrier.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listRecursive } from '../../src/kernel/store/index.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => {
  s = await startTestServer({ clock: () => new Date(now) });
  assert.equal((await s.call('POST', '/v1/sys/auth/approle', { body: { type: 'approle' } })).status, 204);
});
after(() => s.close());

const A = '/v1/auth/approle';
const ok = async (method: string, path: string, body?: unknown, status = 204) => {
  const r = await s.call(method, path, { body });
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r;
};
const role = (name: string, body: unknown) => ok('POST', `${A}/role/${name}`, body);
const roleId = async (name: string) => (await ok('GET', `${A}/role/${name}/role-id`, undefined, 200)).json.data.role_id as string;
const issue = async (name: string, body: unknown = {}, path = 'secret-id') =>
  (await ok('POST', `${A}/role/${name}/${path}`, body, 200)).json.data as {
    secret_id: string;
    secret_id_accessor: string;
    secret_id_ttl: number;
    secret_id_num_uses: number;
  };
const login = (role_id: string, secret_id?: string) =>
  s.call('POST', `${A}/login`, { token: null, body: secret_id === undefined ? { role_id } : { role_id, secret_id } });
const errors = (r: { status: number; json: { errors?: string[] } }, status: number) => {
  assert.equal(r.status, status, JSON.stringify(r.json));
  return r.json.errors ?? [];
};

/** Every value stored behind the barrier for the AppRole mount, as text. */
async function storedText(): Promise<string> {
  const core = s.service.core;
  const keys = await listRecursive(core.backend, 'logical/');
  const values = await Promise.all(keys.map(async (k) => Buffer.from((await core.backend.get(k))!).toString('utf8')));
  return keys.join('\n') + values.join('\n');
}

describe('secret ID lookup and destroy (the client calls)', () => {
  it('POST role/:role/secret-id/lookup {secret_id} answers the reference shape, 204 for an unknown one, and uses nothing up', async () => {
    await role('app', { token_policies: 'app', secret_id_num_uses: 3 });
    const sid = await issue('app', { metadata: '{"tag1":"production"}', ttl: '10m', num_uses: 2, cidr_list: '127.0.0.0/8' });
    const r = await ok('POST', `${A}/role/app/secret-id/lookup`, { secret_id: sid.secret_id }, 200);
    assert.deepEqual(r.json.data, {
      cidr_list: ['127.0.0.0/8'],
      creation_time: '2026-01-01T00:00:00Z',
      expiration_time: '2026-01-01T00:10:00Z',
      last_updated_time: '2026-01-01T00:00:00Z',
      metadata: { tag1: 'production' },
      secret_id_accessor: sid.secret_id_accessor,
      secret_id_num_uses: 2,
      secret_id_ttl: 600,
      token_bound_cidrs: [],
    });
    assert.ok(!JSON.stringify(r.json).includes(sid.secret_id), 'the secret ID itself is never shown');
    const unknown = await s.call('POST', `${A}/role/app/secret-id/lookup`, { body: { secret_id: 'not-a-secret-id' } });
    assert.deepEqual([unknown.status, unknown.text], [204, '']);

    // A login uses one: the lookup shows what is left and when it was last used.
    now += 5_000;
    const logged = await login(await roleId('app'), sid.secret_id);
    assert.equal(logged.status, 200, logged.text);
    assert.deepEqual(logged.json.auth.metadata, { tag1: 'production', role_name: 'app' }, 'the secret ID metadata is on the token');
    const after = (await ok('POST', `${A}/role/app/secret-id/lookup`, { secret_id: sid.secret_id }, 200)).json.data;
    assert.deepEqual([after.secret_id_num_uses, after.last_updated_time], [1, '2026-01-01T00:00:05Z']);

    // Past its TTL it is gone.
    now += 600_000;
    assert.equal((await s.call('POST', `${A}/role/app/secret-id/lookup`, { body: { secret_id: sid.secret_id } })).status, 204);
    const never = await issue('app', { metadata: 'k1=v1,k2=v2' });
    const n = (await ok('POST', `${A}/role/app/secret-id/lookup`, { secret_id: never.secret_id }, 200)).json.data;
    assert.deepEqual([n.expiration_time, n.secret_id_ttl, n.metadata], ['0001-01-01T00:00:00Z', 0, { k1: 'v1', k2: 'v2' }]);
  });

  it('looks up and destroys by accessor; an unknown accessor is 404 with the reference text', async () => {
    const sid = await issue('app');
    const byAccessor = await ok('POST', `${A}/role/app/secret-id-accessor/lookup`, { secret_id_accessor: sid.secret_id_accessor }, 200);
    const byValue = await ok('POST', `${A}/role/app/secret-id/lookup`, { secret_id: sid.secret_id }, 200);
    assert.deepEqual(byAccessor.json.data, byValue.json.data);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/app/secret-id-accessor/lookup`, { body: { secret_id_accessor: 'nope' } }), 404), [
      'failed to find accessor entry for secret_id_accessor: "nope"',
    ]);
    assert.ok((await ok('LIST', `${A}/role/app/secret-id`, undefined, 200)).json.data.keys.includes(sid.secret_id_accessor));
    await ok('POST', `${A}/role/app/secret-id-accessor/destroy`, { secret_id_accessor: sid.secret_id_accessor });
    assert.ok(!(await ok('LIST', `${A}/role/app/secret-id`, undefined, 200)).json.data.keys.includes(sid.secret_id_accessor));
    assert.deepEqual(errors(await login(await roleId('app'), sid.secret_id), 400), ['invalid role or secret ID']);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/app/secret-id-accessor/destroy`, { body: { secret_id_accessor: sid.secret_id_accessor } }), 404), [
      `failed to find accessor entry for secret_id_accessor: "${sid.secret_id_accessor}"`,
    ]);
    const other = await issue('app');
    await ok('DELETE', `${A}/role/app/secret-id-accessor/destroy?secret_id_accessor=${other.secret_id_accessor}`);
    assert.equal((await s.call('POST', `${A}/role/app/secret-id/lookup`, { body: { secret_id: other.secret_id } })).status, 204);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/ghost/secret-id/lookup`, { body: { secret_id: 'x' } }), 400), ['role "ghost" does not exist']);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/app/secret-id/lookup`, { body: {} }), 400), ['missing required field "secret_id"']);
  });
});

describe('custom secret IDs and role IDs', () => {
  it('registers a caller-chosen secret ID once, stored only as a hash, that logs in', async () => {
    await role('push', { token_policies: 'push' });
    const custom = 'my-own-secret-id-8815';
    const sid = await issue('push', { secret_id: custom, num_uses: 1 }, 'custom-secret-id');
    assert.deepEqual([sid.secret_id, sid.secret_id_num_uses], [custom, 1]);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/push/custom-secret-id`, { body: { secret_id: custom } }), 400), ['SecretID is already registered']);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/push/custom-secret-id`, { body: {} }), 400), ['missing required field "secret_id"']);
    assert.ok(!(await storedText()).includes(custom), 'not stored in clear behind the barrier');
    await ok('POST', `${A}/role/push/role-id`, { role_id: 'push-role-id' });
    assert.equal(await roleId('push'), 'push-role-id');
    const r = await login('push-role-id', custom);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.auth.policies, ['default', 'push']);
    assert.deepEqual(errors(await login('push-role-id', custom), 400), ['invalid role or secret ID'], 'one use');
  });
});

describe('per-field role paths', () => {
  // [path, field, value to set, value read back, default after DELETE]
  const rows: [string, string, unknown, unknown, unknown][] = [
    ['policies', 'token_policies', 'b,a', ['a', 'b'], []],
    ['token-policies', 'token_policies', ['c'], ['c'], []],
    ['secret-id-num-uses', 'secret_id_num_uses', 7, 7, 0],
    ['secret-id-ttl', 'secret_id_ttl', '1h', 3600, 0],
    ['token-ttl', 'token_ttl', '10m', 600, 0],
    ['token-max-ttl', 'token_max_ttl', 7200, 7200, 0],
    ['secret-id-bound-cidrs', 'secret_id_bound_cidrs', '127.0.0.0/8, 10.1.2.3', ['127.0.0.0/8', '10.1.2.3/32'], []],
    ['token-bound-cidrs', 'token_bound_cidrs', ['127.0.0.1/32'], ['127.0.0.1/32'], []],
    ['period', 'token_period', '1h', 3600, 0],
  ];
  for (const [path, field, value, read, reset] of rows) {
    it(`${path}: GET, POST and DELETE (reset to ${JSON.stringify(reset)}) change only ${field}`, async () => {
      await role('fields', { token_policies: 'base', token_max_ttl: '3h' });
      const before = (await ok('GET', `${A}/role/fields`, undefined, 200)).json.data;
      await ok('POST', `${A}/role/fields/${path}`, { [field]: value });
      const got = (await ok('GET', `${A}/role/fields/${path}`, undefined, 200)).json.data;
      assert.deepEqual(got[field], read);
      const whole = (await ok('GET', `${A}/role/fields`, undefined, 200)).json.data;
      const changed = Object.keys(whole).filter((k) => JSON.stringify(whole[k]) !== JSON.stringify(before[k]));
      assert.ok(
        changed.every((k) => k === field || (field === 'token_policies' && k === 'policies')),
        `only ${field} changed: ${changed}`,
      );
      await ok('DELETE', `${A}/role/fields/${path}`);
      assert.deepEqual((await ok('GET', `${A}/role/fields/${path}`, undefined, 200)).json.data[field], reset);
      await ok('DELETE', `${A}/role/fields`);
    });
  }

  it('bind-secret-id: reads true, may go false only with a CIDR constraint, DELETE restores true', async () => {
    await role('bind', {});
    assert.deepEqual((await ok('GET', `${A}/role/bind/bind-secret-id`, undefined, 200)).json.data, { bind_secret_id: true });
    assert.deepEqual(errors(await s.call('POST', `${A}/role/bind/bind-secret-id`, { body: { bind_secret_id: false } }), 400), [
      'bind_secret_id: at least one constraint should be enabled on the role',
    ]);
    await ok('POST', `${A}/role/bind/secret-id-bound-cidrs`, { secret_id_bound_cidrs: '127.0.0.0/8' });
    await ok('POST', `${A}/role/bind/bind-secret-id`, { bind_secret_id: false });
    const r = await login(await roleId('bind'));
    assert.equal(r.status, 200, `login with the role ID alone from an allowed address: ${r.text}`);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/bind/secret-id`, { body: {} }), 400), ['bind_secret_id is not set on the role']);
    await ok('DELETE', `${A}/role/bind/bind-secret-id`);
    assert.deepEqual((await ok('GET', `${A}/role/bind/bind-secret-id`, undefined, 200)).json.data, { bind_secret_id: true });
  });

  it('a missing role: GET 404, POST 404 unsupported path, DELETE 204; POST without the field 400 "missing <field>"; bad values 400', async () => {
    assert.deepEqual(errors(await s.call('GET', `${A}/role/ghost/token-ttl`), 404), []);
    const post = await s.call('POST', `${A}/role/ghost/token-ttl`, { body: { token_ttl: 5 } });
    assert.deepEqual(errors(post, 404), ['unsupported path: auth/approle/role/ghost/token-ttl']);
    assert.equal((await s.call('DELETE', `${A}/role/ghost/token-ttl`)).status, 204);
    assert.equal((await s.call('GET', `${A}/role/ghost`)).status, 404, 'DELETE created nothing');
    await role('strict', { token_ttl: 60 });
    const before = (await ok('GET', `${A}/role/strict`, undefined, 200)).json.data;
    assert.deepEqual(errors(await s.call('POST', `${A}/role/strict/token-ttl`, { body: {} }), 400), ['missing token_ttl']);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/strict/period`, { body: {} }), 400), ['missing token_period']);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/strict/token-bound-cidrs`, { body: { token_bound_cidrs: '10.0.0.0/33' } }), 400), [
      'token_bound_cidrs: invalid CIDR block "10.0.0.0/33"',
    ]);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/strict/secret-id-ttl`, { body: { secret_id_ttl: '-1s' } }), 400), [
      'secret_id_ttl: must not be negative',
    ]);
    assert.deepEqual((await ok('GET', `${A}/role/strict`, undefined, 200)).json.data, before, 'nothing changed');
  });
});

describe('CIDR bindings', () => {
  it("refuses logins from outside the role's or the secret ID's blocks, without using the secret ID up", async () => {
    await role('far', { secret_id_bound_cidrs: '10.0.0.0/8' });
    const far = await issue('far', { num_uses: 1 });
    const [msg] = errors(await login(await roleId('far'), far.secret_id), 400);
    assert.match(msg, /^source address "(::ffff:)?127\.0\.0\.1" unauthorized by CIDR restrictions on the role$/);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/far/secret-id`, { body: { cidr_list: '127.0.0.1/32' } }), 400), [
      'cidr_list: failed to verify subset relationship between CIDR blocks on the role ["10.0.0.0/8"] and CIDR blocks on the secret ID ["127.0.0.1/32"]',
    ]);

    await role('near', {});
    const bound = await issue('near', { cidr_list: '10.0.0.0/8', num_uses: 1 });
    assert.match(errors(await login(await roleId('near'), bound.secret_id), 400)[0], /unauthorized by CIDR restrictions on the secret ID$/);
    const still = (await ok('POST', `${A}/role/near/secret-id/lookup`, { secret_id: bound.secret_id }, 200)).json.data;
    assert.equal(still.secret_id_num_uses, 1, 'a refused login does not use the secret ID');
    const here = await issue('near', { cidr_list: '127.0.0.0/8' });
    assert.equal((await login(await roleId('near'), here.secret_id)).status, 200);
  });

  it("binds tokens: usable from inside token_bound_cidrs, 403 from elsewhere; a secret ID's own blocks win", async () => {
    await role('tok', { token_bound_cidrs: '10.0.0.0/8, 127.0.0.0/8' });
    const id = await roleId('tok');
    const inside = (await login(id, (await issue('tok')).secret_id)).json.auth.client_token as string;
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: inside });
    assert.equal(self.status, 200, self.text);
    assert.deepEqual(self.json.data.bound_cidrs, ['10.0.0.0/8', '127.0.0.0/8']);
    const narrowed = await issue('tok', { token_bound_cidrs: '10.0.0.0/16' });
    const outside = (await login(id, narrowed.secret_id)).json.auth.client_token as string;
    assert.deepEqual(errors(await s.call('GET', '/v1/auth/token/lookup-self', { token: outside }), 403), ['permission denied']);
    assert.deepEqual(errors(await s.call('POST', `${A}/role/tok/secret-id`, { body: { token_bound_cidrs: '192.168.0.0/16' } }), 400), [
      'token_bound_cidrs: failed to verify subset relationship between CIDR blocks on the role ["10.0.0.0/8","127.0.0.0/8"] and CIDR blocks on the secret ID ["192.168.0.0/16"]',
    ]);
  });
});

describe('periodic tokens', () => {
  it('token_period: the login token lives one period, and every renewal resets it to the period past token_max_ttl', async () => {
    await role('periodic', { token_period: '1h', token_max_ttl: '2h' });
    const r = await login(await roleId('periodic'), (await issue('periodic')).secret_id);
    assert.equal(r.json.auth.lease_duration, 3600);
    const token = r.json.auth.client_token as string;
    for (let i = 0; i < 3; i++) {
      now += 3000_000; // 50 minutes: 2.5 hours in all, past token_max_ttl
      const renewed = await s.call('POST', '/v1/auth/token/renew-self', { token, body: { increment: 60 } });
      assert.equal(renewed.status, 200, renewed.text);
      assert.equal(renewed.json.auth.lease_duration, 3600);
    }
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token })).json.data.period, 3600);
  });

  it("a period longer than the mount's max_lease_ttl is capped to it, with the reference's warning", async () => {
    assert.equal((await s.call('POST', '/v1/sys/auth/approle-short', { body: { type: 'approle', config: { max_lease_ttl: '10h' } } })).status, 204);
    const base = '/v1/auth/approle-short';
    await ok('POST', `${base}/role/long`, { token_period: '72h' });
    const id = (await ok('GET', `${base}/role/long/role-id`, undefined, 200)).json.data.role_id as string;
    const secret = (await ok('POST', `${base}/role/long/secret-id`, {}, 200)).json.data.secret_id as string;
    const r = await s.call('POST', `${base}/login`, { token: null, body: { role_id: id, secret_id: secret } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.auth.lease_duration, 36000);
    assert.deepEqual(r.json.warnings, ['period of "72h0m0s" exceeded the effective max_ttl of "10h0m0s"; period value is capped accordingly']);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: r.json.auth.client_token })).json.data.period, 36000);
  });
});

describe('tidy/secret-id', () => {
  it('answers 202 with the warning and deletes expired secret IDs nothing else touched', async () => {
    await role('tidy', { secret_id_ttl: '1m' });
    const gone = await issue('tidy');
    const kept = await issue('tidy', { ttl: 30 });
    now += 20_000;
    const fresh = await issue('tidy');
    now += 45_000; // `gone` and `kept` (30 s) have expired, `fresh` has not
    const before = await storedText();
    assert.ok(before.includes(gone.secret_id_accessor) && before.includes(kept.secret_id_accessor));
    const r = await s.call('POST', `${A}/tidy/secret-id`);
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(
      [r.json.data, r.json.warnings],
      [null, ['Tidy operation successfully started. Any information from the operation will be printed to the server logs.']],
    );
    const after = await storedText();
    assert.ok(!after.includes(gone.secret_id_accessor) && !after.includes(kept.secret_id_accessor), 'expired ones deleted from storage');
    assert.ok(after.includes(fresh.secret_id_accessor), 'a live one kept');
  });
});

describe('help and OpenAPI', () => {
  it('documents every new path from its declaration', async () => {
    const root = await ok('GET', `${A}/?help=1`, undefined, 200);
    for (const p of [
      '/role/{role_name}/secret-id/lookup',
      '/role/{role_name}/secret-id-accessor/lookup',
      '/role/{role_name}/secret-id-accessor/destroy',
      '/role/{role_name}/custom-secret-id',
      '/role/{role_name}/policies',
      '/role/{role_name}/token-policies',
      '/role/{role_name}/secret-id-bound-cidrs',
      '/role/{role_name}/token-bound-cidrs',
      '/role/{role_name}/period',
      '/tidy/secret-id',
    ])
      assert.ok(p in root.json.openapi.paths, p);
    const one = await ok('GET', `${A}/role/app/secret-id/lookup?help=1`, undefined, 200);
    assert.match(one.json.help, /Read the properties of a secret ID of a role/);
    assert.match(one.json.help, /secret_id/);
    // Paths relative to the queried one (spec 000 "Help response").
    assert.deepEqual(Object.keys(one.json.openapi.paths['/'].post.requestBody.content['application/json'].schema.properties), ['secret_id']);
  });
});
