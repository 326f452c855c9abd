/**
 * ACL policies over HTTP against a real server (reference/secrets.md §3.7, §5): writing
 * and reading policies, tokens holding them, allow/deny on KV v2 paths (create vs update
 * through the existence check, metadata list), capabilities, and bad input refused with
 * a 400 that changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

const WEB = `
# Team web: its own subtree of secret/
path "secret/data/app/*" {
  capabilities = ["create", "read"]
}
path "secret/data/app/locked" {
  capabilities = ["deny"]
}
path "secret/data/cfg/+" {
  capabilities = ["read", "update"]
}
path "secret/metadata/app" {
  capabilities = ["list"]
}
`;

async function token(policies: string[]): Promise<string> {
  const r = await s.call('POST', '/v1/auth/token/create', { body: { policies } });
  assert.equal(r.status, 200, r.text);
  return r.json.auth.client_token as string;
}

const write = (path: string, tok: string, value = 'v') => s.call('POST', `/v1/secret/data/${path}`, { token: tok, body: { data: { value } } });

async function assertDenied(p: Promise<{ status: number; json: unknown }>, what: string): Promise<void> {
  const r = await p;
  assert.equal(r.status, 403, what);
  assert.deepEqual(r.json, { errors: ['permission denied'] }, what);
}

async function policyNames(): Promise<string[]> {
  return (await s.call('LIST', '/v1/sys/policies/acl')).json.data.keys;
}

describe('policy endpoints', () => {
  it('list the built-ins, root last', async () => {
    assert.deepEqual(await policyNames(), ['default', 'root']);
    const legacy = await s.call('GET', '/v1/sys/policy');
    assert.equal(legacy.status, 200);
    assert.deepEqual(legacy.json.data, { keys: ['default', 'root'], policies: ['default', 'root'] });
    assert.deepEqual(legacy.json.policies, ['default', 'root'], 'top-level injection');
    assert.deepEqual((await s.call('GET', '/v1/sys/policies/acl?list=true')).json.data.keys, ['default', 'root']);
  });

  it('write, read and delete a policy; names are lower-cased', async () => {
    const w = await s.call('PUT', '/v1/sys/policies/acl/Web', { body: { policy: WEB } });
    assert.equal(w.status, 204, w.text);
    const r = await s.call('GET', '/v1/sys/policies/acl/web');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.data, { name: 'web', policy: WEB });
    const legacy = await s.call('GET', '/v1/sys/policy/WEB');
    assert.deepEqual(legacy.json.data, { name: 'web', rules: WEB });
    assert.equal(legacy.json.rules, WEB);
    assert.deepEqual(await policyNames(), ['default', 'web', 'root']);

    const json = JSON.stringify({ path: { 'secret/data/json/*': { capabilities: ['read'] } } });
    assert.equal((await s.call('POST', '/v1/sys/policies/acl/json', { body: { policy: json } })).status, 204);
    assert.equal((await s.call('GET', '/v1/sys/policies/acl/json')).json.data.policy, json);
    const b64 = Buffer.from('path "b64/*" { capabilities = ["read"] }').toString('base64');
    assert.equal((await s.call('POST', '/v1/sys/policy/b64', { body: { policy: b64 } })).status, 204);
    assert.equal((await s.call('GET', '/v1/sys/policy/b64')).json.data.rules, 'path "b64/*" { capabilities = ["read"] }');
    const rules = await s.call('PUT', '/v1/sys/policy/rules', { body: { rules: 'path "r" { capabilities = ["read"] }' } });
    assert.equal(rules.status, 200);
    assert.deepEqual(rules.json.warnings, ["'rules' is deprecated, please use 'policy' instead"]);

    for (const n of ['json', 'b64', 'rules']) assert.equal((await s.call('DELETE', `/v1/sys/policies/acl/${n}`)).status, 204);
    assert.equal((await s.call('DELETE', '/v1/sys/policy/never-was')).status, 204);
    assert.deepEqual(await policyNames(), ['default', 'web', 'root']);
  });

  it('answer 404 for an unknown policy and show root as empty', async () => {
    const r = await s.call('GET', '/v1/sys/policies/acl/nope');
    assert.equal(r.status, 404);
    assert.deepEqual(r.json, { errors: [] });
    assert.equal((await s.call('GET', '/v1/sys/policy/nope')).status, 404);
    assert.deepEqual((await s.call('GET', '/v1/sys/policies/acl/root')).json.data, { name: 'root', policy: '' });
  });

  it('refuse bad input with a 400 naming the problem, changing nothing', async () => {
    const cases: [string, string, unknown, string | RegExp][] = [
      [
        'PUT',
        '/v1/sys/policies/acl/web',
        { policy: 'path "secret/*" {\n  capabilities = ["read"]\n\n' },
        'failed to parse policy: line 4, column 2: object expected closing RBRACE got: EOF',
      ],
      ['PUT', '/v1/sys/policies/acl/web', { policy: 'path "x" { capabilities = ["y"] }' }, 'failed to parse policy: path "x": invalid capability "y"'],
      ['PUT', '/v1/sys/policies/acl/web', { policy: 'path "x" { capabilties = ["read"] }' }, 'failed to parse policy: path "x": invalid key "capabilties"'],
      ['PUT', '/v1/sys/policies/acl/web', { policy: '' }, "'policy' parameter not supplied or empty"],
      ['PUT', '/v1/sys/policies/acl/web', {}, "'policy' parameter not supplied or empty"],
      ['PUT', '/v1/sys/policy/web', { policy: ['not', 'text'] }, /^field "policy": /],
      ['PUT', '/v1/sys/policies/acl/new', { policy: 'path "x" { capabilities = ["fly"] }' }, 'failed to parse policy: path "x": invalid capability "fly"'],
      ['PUT', '/v1/sys/policies/acl/root', { policy: 'path "x" { capabilities = ["read"] }' }, 'cannot update "root" policy'],
      ['DELETE', '/v1/sys/policies/acl/root', undefined, 'cannot delete "root" policy'],
      ['DELETE', '/v1/sys/policy/default', undefined, 'cannot delete default policy'],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await s.call(method, path, { body });
      assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(r.json.errors.length, 1);
      if (typeof message === 'string') assert.equal(r.json.errors[0], message);
      else assert.match(r.json.errors[0], message);
    }
    assert.deepEqual(await policyNames(), ['default', 'web', 'root']);
    assert.equal((await s.call('GET', '/v1/sys/policies/acl/web')).json.data.policy, WEB);
    assert.equal((await s.call('GET', '/v1/sys/policies/acl/default')).status, 200);
  });
});

describe('tokens holding policies', () => {
  let web: string;
  before(async () => (web = await token(['web'])));

  it('need create to write a new KV v2 key and update to overwrite one', async () => {
    assert.equal((await write('app/new', web)).status, 200, 'create on secret/data/app/*');
    assert.equal((await s.call('GET', '/v1/secret/data/app/new', { token: web })).json.data.data.value, 'v');
    await assertDenied(write('app/new', web, 'again'), 'overwriting needs update');
    assert.equal((await s.call('GET', '/v1/secret/data/app/new')).json.data.metadata.version, 1, 'nothing changed');

    await assertDenied(write('cfg/db', web), 'a new key under cfg/+ needs create');
    assert.equal((await write('cfg/db', s.rootToken)).status, 200);
    assert.equal((await write('cfg/db', web, 'two')).status, 200, 'update on an existing key');
    assert.equal((await s.call('GET', '/v1/secret/data/cfg/db', { token: web })).json.data.data.value, 'two');
    await assertDenied(write('cfg/a/b', web), '"+" is exactly one segment');
  });

  it('are denied by a more specific deny and outside their paths', async () => {
    await assertDenied(write('app/locked', web), 'deny rule');
    await assertDenied(s.call('GET', '/v1/secret/data/app/locked', { token: web }), 'deny rule');
    await assertDenied(s.call('GET', '/v1/secret/data/other', { token: web }), 'no rule');
    await assertDenied(s.call('DELETE', '/v1/secret/data/app/new', { token: web }), 'no delete');
    await assertDenied(s.call('GET', '/v1/sys/mounts', { token: web }), 'sys/mounts');
    await assertDenied(s.call('PUT', '/v1/sys/policies/acl/web', { token: web, body: { policy: 'path "*" { capabilities = ["sudo"] }' } }), 'own policy');
  });

  it('list metadata where a rule names the folder, with or without the trailing "/"', async () => {
    const r = await s.call('LIST', '/v1/secret/metadata/app', { token: web });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.data.keys, ['new']);
    assert.equal((await s.call('GET', '/v1/secret/metadata/app/?list=true', { token: web })).status, 200);
    await assertDenied(s.call('LIST', '/v1/secret/metadata/', { token: web }), 'listing the mount root');
    await assertDenied(s.call('GET', '/v1/secret/metadata/app', { token: web }), 'reading metadata is not listing');
  });

  it('take policy changes into account at once', async () => {
    const deny = 'path "secret/data/app/*" { capabilities = ["deny"] }';
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/no-app', { body: { policy: deny } })).status, 204);
    const both = await token(['web', 'no-app']);
    assert.equal((await s.call('GET', '/v1/secret/data/app/new', { token: web })).status, 200);
    await assertDenied(s.call('GET', '/v1/secret/data/app/new', { token: both }), 'deny wins for the same pattern');
    assert.equal((await s.call('GET', '/v1/secret/data/cfg/db', { token: both })).status, 200, 'other rules of web still apply');

    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/no-app', { body: { policy: 'path "unrelated" { capabilities = ["read"] }' } })).status, 204);
    assert.equal((await s.call('GET', '/v1/secret/data/app/new', { token: both })).status, 200);
    assert.equal((await s.call('DELETE', '/v1/sys/policies/acl/web')).status, 204);
    await assertDenied(s.call('GET', '/v1/secret/data/app/new', { token: web }), 'deleted policy');
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/web', { body: { policy: WEB } })).status, 204);
    assert.equal((await s.call('GET', '/v1/secret/data/app/new', { token: web })).status, 200);
  });

  it('warn about policies that do not exist when creating a token', async () => {
    const r = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['web', 'nope'] } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.warnings, ['Policy "nope" does not exist']);
  });

  it('need sudo on root-protected paths', async () => {
    const admin =
      'path "sys/auth/*" { capabilities = ["create", "read", "update", "delete"] }\npath "sys/auth" { capabilities = ["read"] }\npath "sys/mounts/*" { capabilities = ["update", "delete"] }';
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/auth-admin', { body: { policy: admin } })).status, 204);
    assert.equal(
      (await s.call('PUT', '/v1/sys/policies/acl/auth-sudo', { body: { policy: 'path "sys/auth/*" { capabilities = ["update", "delete", "sudo"] }' } })).status,
      204,
    );
    const plain = await token(['auth-admin']);
    const sudo = await token(['auth-sudo']);
    await assertDenied(s.call('POST', '/v1/sys/auth/up', { token: plain, body: { type: 'userpass' } }), 'sys/auth/* without sudo');
    assert.equal((await s.call('GET', '/v1/sys/auth', { token: plain })).status, 200, 'sys/auth itself is not root-protected');
    assert.equal((await s.call('GET', '/v1/sys/auth', { token: s.rootToken })).json.data['up/'], undefined, 'nothing enabled');
    assert.equal((await s.call('POST', '/v1/sys/auth/up', { token: sudo, body: { type: 'userpass' } })).status, 204);
    await assertDenied(s.call('DELETE', '/v1/sys/auth/up', { token: plain }), 'disabling needs sudo too');
    assert.equal((await s.call('DELETE', '/v1/sys/auth/up', { token: sudo })).status, 204);
    assert.equal((await s.call('POST', '/v1/sys/mounts/kv-extra', { token: plain, body: { type: 'kv' } })).status, 204, 'sys/mounts is not root-protected');
    assert.equal((await s.call('DELETE', '/v1/sys/mounts/kv-extra', { token: plain })).status, 204);
  });
});

describe('capabilities', () => {
  it("capabilities-self reports the calling token's capabilities (default policy allows it)", async () => {
    const web = await token(['web']);
    const r = await s.call('POST', '/v1/sys/capabilities-self', {
      token: web,
      body: { paths: ['secret/data/app/x', '/secret/data/app/locked', 'sys/mounts'] },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.data, { 'secret/data/app/x': ['create', 'read'], 'secret/data/app/locked': ['deny'], 'sys/mounts': ['deny'] });
    assert.deepEqual(r.json['secret/data/app/x'], ['create', 'read'], 'top-level injection');
    const one = await s.call('POST', '/v1/sys/capabilities-self', { token: web, body: { path: 'secret/data/cfg/db' } });
    assert.deepEqual(one.json.data, { capabilities: ['read', 'update'], 'secret/data/cfg/db': ['read', 'update'] });
    const dflt = await token(['default']);
    const own = await s.call('POST', '/v1/sys/capabilities-self', { token: dflt, body: { paths: 'auth/token/lookup-self,secret/data/x' } });
    assert.deepEqual(own.json.data, { 'auth/token/lookup-self': ['read'], 'secret/data/x': ['deny'] });
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: dflt })).status, 200);
  });

  it("sys/capabilities reports another token's capabilities to a caller allowed to ask", async () => {
    const web = await token(['web']);
    const r = await s.call('POST', '/v1/sys/capabilities', { body: { token: web, paths: ['secret/data/app/x'] } });
    assert.deepEqual(r.json.data, { capabilities: ['create', 'read'], 'secret/data/app/x': ['create', 'read'] });
    const root = await s.call('POST', '/v1/sys/capabilities-self', { body: { paths: ['anything'] } });
    assert.deepEqual(root.json.data.capabilities, ['root']);
    const bad = await s.call('POST', '/v1/sys/capabilities', { body: { token: 'cs.nope', paths: ['a'] } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json, { errors: ['invalid token'] });
    assert.equal((await s.call('POST', '/v1/sys/capabilities-self', { body: {} })).status, 400);
    await assertDenied(s.call('POST', '/v1/sys/capabilities', { token: web, body: { token: web, paths: ['a'] } }), 'not granted to web');
  });
});
