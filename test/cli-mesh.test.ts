/**
 * `cairn acl …`, `cairn login -bearer-token-file` and `cairn logout` in-process against a
 * real discovery agent on loopback (through the SDK, as a user runs them): bootstrap,
 * token/policy/role lifecycles, an auth method with a locally made key, binding rules,
 * login/logout with a JWT signed here, one-line errors (exit 1) and usage errors (exit 2).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliRunner, jwtKeys, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, startAgent, type TestAgent } from './mesh/helpers.js';

describe('cairn acl against a real discovery agent', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  let root: string;
  let sign: (sub: string) => Promise<string>;
  const file = (name: string, text: string) => scratch.file(name, text);
  const { cairn, ok } = cliRunner({ env: () => ({ MESH_HTTP_ADDR: a.url }), rootEnv: () => ({ MESH_HTTP_TOKEN: root }) });
  const json = async (...argv: string[]) => JSON.parse(await ok(...argv, '-format=json'));

  before(async () => {
    a = await startAgent();
    scratch = scratchDir('cairn-cli-mesh-');
    const keys = await jwtKeys();
    file('key.pem', keys.publicPem);
    sign = keys.sign;
  });
  after(async () => {
    await a.stop();
    scratch.remove();
  });

  it('bootstrap once; the second prints the refusal on one line and exits 1', async () => {
    const r = await cairn({}, ['acl', 'bootstrap', '-format=json']);
    assert.equal(r.code, 0, r.stderr);
    root = JSON.parse(r.stdout).SecretID;
    assert.match(root, /^[0-9a-f-]{36}$/);
    const again = await cairn({}, ['acl', 'bootstrap']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^Error: Permission denied: ACL bootstrap no longer allowed \(reset index: \d+\) \(HTTP 403\)\n$/);
    const repl = await ok('acl', 'replication');
    assert.match(repl, /^Enabled: {15}false$/m);
    assert.match(repl, /^LastSuccess: {11}0001-01-01T00:00:00Z$/m);
  });

  it('policy lifecycle: rules from @file and stdin, read by name, list, update keeps what is not given, delete', async () => {
    const created = await ok('acl', 'policy', 'create', '-name=web', '-description=Web', `-rules=@${file('web.hcl', 'service "web" { policy = "write" }\n')}`);
    assert.match(created, /^ID: {11}[0-9a-f-]{36}\nName: {9}web\nDescription: {2}Web\nDatacenters:\nRules:\nservice "web" \{ policy = "write" \}$/m);
    const fromStdin = await cairn(
      { MESH_HTTP_TOKEN: root },
      ['acl', 'policy', 'create', '-name=db', '-rules', '-', '-format=json'],
      'service "db" { policy = "read" }',
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const db = JSON.parse(fromStdin.stdout);
    assert.equal(db.Rules, 'service "db" { policy = "read" }');
    assert.match(await ok('acl', 'policy', 'read', '-name=web'), /^Rules:\nservice "web"/m);
    assert.match(await ok('acl', 'policy', 'list'), /^db:\n {3}ID: {11}[0-9a-f-]{36}$/m);
    const updated = await json('acl', 'policy', 'update', `-id=${db.ID}`, '-description=Database');
    assert.equal(updated.Description, 'Database');
    assert.equal(updated.Rules, db.Rules);
    assert.equal(await ok('acl', 'policy', 'delete', '-name=db'), `Policy "${db.ID}" deleted successfully\n`);
    assert.equal((await call(a.url, 'GET', `/v1/acl/policy/${db.ID}`, { token: root })).status, 404);
  });

  it('role lifecycle: policy links and identities, update keeps links, delete', async () => {
    const role = await json('acl', 'role', 'create', '-name=web-role', '-policy-name=web', '-service-identity=api:dc1,dc2', '-node-identity=n1:dc1');
    assert.deepEqual(role.ServiceIdentities, [{ ServiceName: 'api', Datacenters: ['dc1', 'dc2'] }]);
    const table = await ok('acl', 'role', 'read', '-name=web-role');
    assert.match(
      table,
      /^Policies:\n {3}[0-9a-f-]{36} - web\nService Identities:\n {3}api \(Datacenters: dc1, dc2\)\nNode Identities:\n {3}n1 \(Datacenter: dc1\)$/m,
    );
    assert.match(await ok('acl', 'role', 'list'), /^web-role:\n {3}ID:/m);
    const updated = await json('acl', 'role', 'update', `-id=${role.ID}`, '-description=changed');
    assert.equal(updated.Description, 'changed');
    assert.deepEqual(updated.Policies, role.Policies);
    assert.match(await ok('acl', 'role', 'delete', `-id=${role.ID}`), /deleted successfully/);
  });

  it('token lifecycle: create shows the secret, list and update hide it, read -self, delete; a missing token exits 1', async () => {
    await ok('acl', 'role', 'create', '-name=reader', '-policy-name=web');
    const table = await ok(
      'acl',
      'token',
      'create',
      '-policy-name=web',
      '-role-name=reader',
      '-service-identity=web',
      '-description=ci',
      '-expires-ttl=1h',
      '-local',
    );
    const accessor = /^AccessorID: {7}(\S+)$/m.exec(table)?.[1] ?? '';
    const secret = /^SecretID: {9}(\S+)$/m.exec(table)?.[1] ?? '';
    assert.match(secret, /^[0-9a-f-]{36}$/);
    assert.match(table, /^Local: {12}true$/m);
    assert.match(table, /^Expiration Time: {2}\S+$/m);
    assert.match(table, /^Service Identities:\n {3}web \(Datacenters: all\)$/m);
    assert.equal((await json('acl', 'token', 'read', `-id=${accessor}`)).SecretID, secret);
    const self = await cairn({}, ['acl', 'token', 'read', '-self', `-token=${secret}`, '-format=json']);
    assert.equal(JSON.parse(self.stdout).AccessorID, accessor, self.stderr);
    const list = await ok('acl', 'token', 'list');
    assert.ok(!list.includes(secret) && !list.includes(root), 'list shows no secret');
    assert.match(list, /SecretID: {4,}<hidden>/);
    assert.ok((await json('acl', 'token', 'list')).every((t: { SecretID: string }) => t.SecretID === '<hidden>'));
    const updated = await ok('acl', 'token', 'update', `-id=${accessor}`, '-description=ci2');
    assert.ok(!updated.includes(secret));
    const after = await json('acl', 'token', 'read', `-id=${accessor}`);
    assert.equal(after.Description, 'ci2');
    assert.deepEqual(
      after.Roles.map((r: { Name: string }) => r.Name),
      ['reader'],
    );
    assert.equal(await ok('acl', 'token', 'delete', `-id=${accessor}`), `Token "${accessor}" deleted successfully\n`);
    const gone = await cairn({ MESH_HTTP_TOKEN: root }, ['acl', 'token', 'read', `-id=${accessor}`]);
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, 'Error: Requested token does not exist: ACL not found (HTTP 404)\n');
  });

  it('auth method and binding rule, acl login with a token sink, logout; cairn login hands over with -bearer-token-file', async () => {
    const config = file(
      'jwt.json',
      JSON.stringify({ JWTValidationPubKeys: [readFileSync(join(scratch.dir, 'key.pem'), 'utf8')], BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' } }),
    );
    const m = await ok('acl', 'auth-method', 'create', '-type=jwt', '-name=ci', `-config=@${config}`, '-max-token-ttl=10m', '-description=CI jobs');
    assert.match(m, /^Name: {11}ci\nType: {11}jwt\n/);
    assert.match(m, /^Max Token TTL: {2}10m0s$/m);
    assert.match(m, /^Config:\n\{\n {2}"JWTValidationPubKeys"/m);
    assert.match(await ok('acl', 'auth-method', 'list'), /^ci:\n {3}Type: {10}jwt$/m);
    assert.equal((await json('acl', 'auth-method', 'update', '-name=ci', '-description=CI')).MaxTokenTTL, '10m0s');
    const rule = await json('acl', 'binding-rule', 'create', '-method=ci', '-selector=value.user == "alice"', '-bind-type=role', '-bind-name=reader');
    const kept = await json('acl', 'binding-rule', 'update', `-id=${rule.ID}`, '-description=alice reads');
    assert.equal(kept.BindType, 'role', 'update keeps BindType');
    assert.match(await ok('acl', 'binding-rule', 'list', '-method=ci'), /^BindType: {5}role$/m);

    const bearer = file('alice.jwt', await sign('alice'));
    const sink = join(scratch.dir, 'sink');
    const login = await cairn({}, ['acl', 'login', '-method=ci', `-bearer-token-file=${bearer}`, `-token-sink-file=${sink}`, '-meta', 'host=ci-1']);
    assert.equal(login.code, 0, login.stderr);
    assert.equal(login.stdout, '');
    assert.equal(statSync(sink).mode & 0o777, 0o600);
    const me = await cairn({}, ['acl', 'token', 'read', '-self', `-token-file=${sink}`, '-format=json']);
    assert.equal(JSON.parse(me.stdout).AuthMethod, 'ci', me.stderr);
    assert.deepEqual(
      JSON.parse(me.stdout).Roles.map((r: { Name: string }) => r.Name),
      ['reader'],
    );
    assert.equal((await cairn({}, ['acl', 'logout', `-token-file=${sink}`])).code, 0);
    assert.equal((await cairn({}, ['acl', 'token', 'read', '-self', `-token-file=${sink}`])).code, 1);

    const viaLogin = await cairn({}, ['login', '-method=ci', `-bearer-token-file=${bearer}`, '-format=json']);
    assert.equal(viaLogin.code, 0, viaLogin.stderr);
    const t = JSON.parse(viaLogin.stdout);
    assert.equal(t.AuthMethod, 'ci');
    assert.equal((await cairn({ MESH_HTTP_TOKEN: t.SecretID }, ['logout'])).code, 0);
    assert.equal((await call(a.url, 'GET', `/v1/acl/token/${t.AccessorID}`, { token: root })).status, 404);

    const refused = await cairn({}, ['acl', 'login', '-method=ci', `-bearer-token-file=${file('bob.jwt', await sign('bob'))}`]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^Error: [^\n]+ \(HTTP 403\)\n$/);
    assert.match(await ok('acl', 'binding-rule', 'delete', `-id=${rule.ID}`), /deleted successfully/);
    assert.match(await ok('acl', 'auth-method', 'delete', '-name=ci'), /^Auth-method "ci" deleted successfully$/m);
  });

  it('usage errors exit 2; server and connection errors exit 1 with one line', async () => {
    const usage = async (env: Record<string, string>, argv: string[], text: RegExp) => {
      const r = await cairn(env, argv);
      assert.equal(r.code, 2, `cairn ${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, text);
    };
    await usage({ MESH_HTTP_TOKEN: root }, ['acl', 'token', 'read'], /use exactly one of -id=ACCESSOR_ID or -self/);
    await usage({ MESH_HTTP_TOKEN: root }, ['acl', 'token', 'create', '-node-identity=n1'], /invalid -node-identity "n1"/);
    await usage({ MESH_HTTP_TOKEN: root }, ['acl', 'policy', 'list', '-format=yaml'], /invalid -format "yaml"/);
    await usage({ MESH_HTTP_TOKEN: root }, ['acl', 'policy', 'create'], /missing required flag -name/);
    await usage({ MESH_HTTP_TOKEN: root }, ['acl', 'auth-method', 'create', '-type=jwt', '-name=x', '-config={nope'], /-config: invalid JSON/);
    await usage({}, ['acl', 'policy', 'list', '-http-addr=ftp://x'], /invalid discovery service address/);
    await usage({}, ['logout'], /no token to log out/);
    await usage({}, ['acl', 'login', '-method=ci'], /missing required flag -bearer-token-file/);
    await usage({}, ['login', '-method=ci', `-bearer-token-file=${join(scratch.dir, 'alice.jwt')}`, '-path=x'], /-path cannot be used with -bearer-token-file/);
    await usage({}, ['acl', 'policy', 'frobnicate'], /unknown command|error/i);

    const bad = await cairn({ MESH_HTTP_TOKEN: root }, ['acl', 'policy', 'create', '-name=bad name']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, "Error: Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed (HTTP 400)\n");
    const denied = await cairn({}, ['acl', 'policy', 'list']);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /^Error: Permission denied[^\n]* \(HTTP 403\)\n$/);
    const down = await cairn({}, ['acl', 'replication', '-http-addr=127.0.0.1:1']);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^Error: cannot reach the discovery service at http:\/\/127\.0\.0\.1:1: [^\n]+\n$/);
  });
});
