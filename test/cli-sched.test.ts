/**
 * `cairn sched …` in-process against real scheduler agents on loopback (through the SDK, as
 * a user runs them): `sched agent -config`, bootstrap, tokens, policies, auth methods,
 * `sched login` with a JWT and with OIDC end to end (the real test provider plays the
 * browser's part, the CLI's callback listener receives it), `sched event stream` until
 * interrupted, `sched node status`, one-line errors (exit 1) and usage errors (exit 2).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startProvider, type TestProvider } from '../src/kernel/authn/testdata/provider.js';
import { parseCallbackAddr } from '../src/cli/commands/sched-login.js';
import { cliRunner, jwtKeys, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, startAgent, type TestAgent } from './sched/helpers.js';

/** A port that was free a moment ago (the OIDC redirect URI must be known before the CLI listens). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

function nodeBody(id: string, name: string) {
  return { Node: { ID: id, SecretID: `secret-${id}`, Datacenter: 'dc1', Name: name, Attributes: { 'os.name': 'linux' }, Meta: { rack: 'r1' } } };
}

/** Resolves when `check()` holds, polling every 20 ms for up to 10 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('cairn sched against a real scheduler agent', () => {
  let a: TestAgent;
  let op: TestProvider;
  let scratch: ScratchDir;
  let root: string;
  let port: number;
  let redirect: string;
  let sign: (sub: string) => Promise<string>;
  const file = (name: string, text: string) => scratch.file(name, text);
  const { start, cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: root }) });
  const json = async (...argv: string[]) => JSON.parse(await ok(...argv, '-json'));

  before(async () => {
    a = await startAgent({}, { root: null });
    scratch = scratchDir('cairn-cli-sched-');
    port = await freePort();
    redirect = `http://127.0.0.1:${port}/oidc/callback`;
    op = await startProvider({ clients: [{ client_id: 'cairn', client_secret: 'cairn-secret', redirect_uris: [redirect] }] });
    const keys = await jwtKeys();
    file('key.pem', keys.publicPem);
    sign = keys.sign;
  });
  after(async () => {
    await Promise.all([a.stop(), op.close()]);
    scratch.remove();
  });

  it('sched agent -config runs an agent until shut down; a bad config exits 2 naming the file', async () => {
    const cfg = file('agent.hcl', `data_dir = "${join(scratch.dir, 'agent-data')}"\nregion = "europe"\nports { http = 0 }\nacl { enabled = true }\n`);
    const stop = new AbortController();
    const r = start({}, ['sched', 'agent', `-config=${cfg}`], { shutdown: stop.signal });
    await until(() => /HTTP API: (\S+)/.test(r.out.stdout), 'the agent banner');
    const url = /HTTP API: (\S+)/.exec(r.out.stdout)![1];
    assert.match(r.out.stdout, /^==> Cairn scheduler agent started \(config .*agent\.hcl, region europe, datacenter dc1, /);
    assert.deepEqual((await call(url, 'GET', '/v1/regions')).json, ['europe']);
    stop.abort();
    assert.equal(await r.code, 0);
    const bad = await cairn({}, ['sched', 'agent', `-config=${file('bad.hcl', 'data_dir = "x"\nbogus = 1\n')}`]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^Error: .*bad\.hcl:2/);
  });

  it('acl bootstrap once; token self; the second bootstrap prints the refusal on one line and exits 1', async () => {
    const r = await cairn({}, ['sched', 'acl', 'bootstrap', '-json']);
    assert.equal(r.code, 0, r.stderr);
    root = JSON.parse(r.stdout).SecretID;
    assert.match(root, /^[0-9a-f-]{36}$/);
    const self = await ok('sched', 'acl', 'token', 'self');
    assert.match(self, /^Accessor ID {2}= [0-9a-f-]{36}$/m);
    assert.match(self, new RegExp(`^Secret ID {4}= ${root}$`, 'm'));
    assert.match(self, /^Type {9}= management$/m);
    assert.match(self, /^Expiry Time {2}= <none>$/m);
    const again = await cairn({}, ['sched', 'acl', 'bootstrap']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^Error: ACL bootstrap already done \(reset index: \d+\) \(HTTP 400\)\n$/);
  });

  it('policy apply from a file and stdin, list, read, delete; token create, list, read, delete', async () => {
    assert.equal(
      await ok('sched', 'acl', 'policy', 'apply', '-description=Node readers', 'node-read', file('node.hcl', 'node { policy = "read" }\n')),
      'Successfully wrote "node-read" ACL policy!\n',
    );
    const viaStdin = await cairn({ SCHED_TOKEN: root }, ['sched', 'acl', 'policy', 'apply', 'ns-read', '-'], 'namespace "default" { policy = "read" }');
    assert.equal(viaStdin.code, 0, viaStdin.stderr);
    assert.match(await ok('sched', 'acl', 'policy', 'list'), /^Name {7}Description\nnode-read {2}Node readers\nns-read$/m);
    assert.match(
      await ok('sched', 'acl', 'policy', 'read', 'node-read'),
      /^Name {8}= node-read\nDescription = Node readers\nCreateIndex = \d+\nModifyIndex = \d+\n\nRules\n\nnode \{ policy = "read" \}\n$/,
    );
    assert.equal((await json('sched', 'acl', 'policy', 'info', 'ns-read')).Rules, 'namespace "default" { policy = "read" }');
    const t = await json('sched', 'acl', 'token', 'create', '-name=ci', '-policy=node-read', '-policy=ns-read', '-ttl=1h');
    assert.deepEqual([t.Name, t.Type, t.Policies], ['ci', 'client', ['node-read', 'ns-read']]);
    assert.match(await ok('sched', 'acl', 'token', 'list'), new RegExp(`^ci +client +false +${t.AccessorID} +false$`, 'm'));
    assert.match(await ok('sched', 'acl', 'token', 'read', t.AccessorID), /^Policies {5}= \[node-read ns-read\]$/m);
    const self = await cairn({}, ['sched', 'acl', 'token', 'self', `-token=${t.SecretID}`, '-format=json']);
    assert.equal(JSON.parse(self.stdout).AccessorID, t.AccessorID, self.stderr);
    assert.equal(await ok('sched', 'acl', 'token', 'delete', t.AccessorID), `Token ${t.AccessorID} successfully deleted\n`);
    assert.equal(await ok('sched', 'acl', 'policy', 'delete', 'ns-read'), 'Successfully deleted "ns-read" ACL policy!\n');
  });

  it('auth-method create (-config=@file, -default), list, read, update keeps what is not given, delete', async () => {
    const config = file(
      'jwt.json',
      JSON.stringify({ JWTValidationPubKeys: [readFileSync(join(scratch.dir, 'key.pem'), 'utf8')], BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' } }),
    );
    const created = await ok(
      'sched',
      'acl',
      'auth-method',
      'create',
      '-name=ci',
      '-type=jwt',
      '-token-locality=local',
      '-max-token-ttl=10m',
      '-default',
      `-config=@${config}`,
      '-token-name-format=ci-${value.user}',
    );
    assert.match(
      created,
      /^Name {14}= ci\nType {14}= JWT\nLocality {10}= local\nMax Token TTL {5}= 10m0s\nToken Name Format = ci-\$\{value\.user\}\nDefault {11}= true\n/,
    );
    assert.match(created, /\n\nAuth Method Config\n\nJWT Validation Public Keys = -----BEGIN PUBLIC KEY-----/);
    assert.match(created, /^Bound audiences {12}= cairn$/m);
    assert.match(created, /^Claim mappings {13}= \{sub: user\}$/m);
    assert.equal(await ok('sched', 'acl', 'auth-method', 'list'), 'Name  Type  Default\nci    JWT   true\n');
    const updated = await json('sched', 'acl', 'auth-method', 'update', 'ci', '-max-token-ttl=20m');
    assert.deepEqual(
      [updated.MaxTokenTTL, updated.Default, updated.TokenNameFormat, updated.Config.BoundAudiences],
      ['20m0s', true, 'ci-${value.user}', ['cairn']],
    );
    assert.match(await ok('sched', 'acl', 'auth-method', 'read', 'ci'), /^Max Token TTL {5}= 20m0s$/m);
    await ok(
      'sched',
      'acl',
      'auth-method',
      'create',
      '-name=gone',
      '-type=JWT',
      '-token-locality=local',
      '-max-token-ttl=1h',
      `-config=${JSON.stringify({ JWKSURL: `${op.issuer}/jwks` })}`,
    );
    assert.equal(await ok('sched', 'acl', 'auth-method', 'delete', 'gone'), 'ACL auth method gone successfully deleted\n');
  });

  it('sched login with the default (JWT) method: -login-token-file, then -login-token; the token works', async () => {
    await call(a.url, 'POST', '/v1/acl/binding-rule', {
      token: root,
      body: { AuthMethod: 'ci', Selector: 'value.user == "alice"', BindType: 'policy', BindName: 'node-read' },
    });
    const jwt = file('alice.jwt', `${await sign('alice')}\n`);
    const table = await cairn({}, ['sched', 'login', `-login-token-file=${jwt}`]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(
      table.stdout,
      /^Successfully logged in via JWT and auth method "ci"\n\nAccessor ID {2}= [0-9a-f-]{36}\nSecret ID {4}= [0-9a-f-]{36}\nName {9}= ci-alice\n/,
    );
    assert.match(table.stdout, /^Expiry Time {2}= \d{4}-\d\d-\d\dT/m);
    const t = JSON.parse((await cairn({}, ['sched', 'login', '-method=ci', `-login-token=${await sign('alice')}`, '-json'])).stdout);
    assert.deepEqual([t.Name, t.Policies, t.ExpirationTTL], ['ci-alice', ['node-read'], '20m0s']);
    const self = await cairn({ SCHED_TOKEN: t.SecretID }, ['sched', 'acl', 'token', 'self', '-json']);
    assert.equal(JSON.parse(self.stdout).AccessorID, t.AccessorID, self.stderr);
    const bob = await cairn({}, ['sched', 'login', `-login-token=${await sign('bob')}`]);
    assert.deepEqual([bob.code, bob.stderr], [1, 'Error: no role or policy bindings matched (HTTP 400)\n']);
  });

  it('sched login with OIDC: prints the provider URL, receives the browser on its callback listener, prints the token', async () => {
    const created = await cairn({ SCHED_TOKEN: root }, [
      'sched',
      'acl',
      'auth-method',
      'create',
      '-name=corp',
      '-type=OIDC',
      '-token-locality=global',
      '-max-token-ttl=1h',
      `-config=${JSON.stringify({ OIDCDiscoveryURL: op.issuer, OIDCClientID: 'cairn', OIDCClientSecret: 'cairn-secret', AllowedRedirectURIs: [redirect], OIDCScopes: ['groups'], ListClaimMappings: { groups: 'groups' } })}`,
    ]);
    assert.equal(created.code, 0, created.stderr);
    await call(a.url, 'POST', '/v1/acl/binding-rule', {
      token: root,
      body: { AuthMethod: 'corp', Selector: '"admins" in list.groups', BindType: 'management' },
    });

    const r = start({}, ['sched', 'login', '-method=corp', `-oidc-callback-addr=127.0.0.1:${port}`, '-json']);
    await until(() => /^ {4}(http\S+)$/m.test(r.out.stderr), 'the provider URL');
    const authUrl = /^ {4}(http\S+)$/m.exec(r.out.stderr)![1];
    assert.equal(new URL(authUrl).origin, op.issuer);
    assert.equal(new URL(authUrl).searchParams.get('redirect_uri'), redirect);
    const back = await op.browse(authUrl);
    assert.equal(`${back.origin}${back.pathname}`, redirect);
    const page = await fetch(back);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Signed in to Cairn/);
    assert.equal(await r.code, 0, r.out.stderr);
    const t = JSON.parse(r.out.stdout);
    assert.deepEqual([t.Type, t.Global, t.Name], ['management', true, 'OIDC-corp']);
    assert.equal(Date.parse(t.ExpirationTime) - Date.parse(t.CreateTime), 3_600_000);
    assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: t.SecretID })).status, 200);

    // The provider sends an error back: exit 1 with its text; an interrupted wait exits 1 too.
    const refused = start({}, ['sched', 'login', '-method=corp', `-oidc-callback-addr=127.0.0.1:${port}`]);
    await until(() => /Waiting for/.test(refused.out.stderr), 'the second login');
    assert.equal((await fetch(`${redirect}?error=access_denied&error_description=nope`)).status, 400);
    assert.equal(await refused.code, 1);
    assert.match(refused.out.stderr, /\nError: the provider refused the login: access_denied: nope\n$/);
    const stop = new AbortController();
    const waiting = start({}, ['sched', 'login', '-method=corp', `-oidc-callback-addr=127.0.0.1:${port}`], { shutdown: stop.signal });
    await until(() => /Waiting for/.test(waiting.out.stderr), 'the third login');
    stop.abort();
    assert.equal(await waiting.code, 1);
    assert.match(waiting.out.stderr, /\nError: login interrupted before the provider called back\n$/);
  });

  it('sched event stream prints one JSON frame per line until interrupted; a denied stream exits 1', async () => {
    const id = '3c9d1e2f-4a5b-4c6d-8e7f-90a1b2c3d4e5';
    const stop = new AbortController();
    const r = start({ SCHED_TOKEN: root }, ['sched', 'event', 'stream', '-topic=Node', '-topic=ACLPolicy:node-read', '-index=0'], { shutdown: stop.signal });
    assert.equal((await call(a.url, 'PUT', '/v1/node/register', { token: root, body: nodeBody(id, 'worker-1') })).status, 200);
    await until(() => r.out.stdout.includes('NodeRegistration'), 'the node event');
    stop.abort();
    assert.equal(await r.code, 0, r.out.stderr);
    const frames = r.out.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      frames.every((f) => f.Index > 0 && f.Events.length > 0),
      'no heartbeats',
    );
    const topics = new Set(frames.flatMap((f) => f.Events.map((e: { Topic: string; Key: string }) => `${e.Topic}:${e.Key}`)));
    assert.ok(topics.has(`Node:${id}`) && topics.has('ACLPolicy:node-read'), [...topics].join(' '));
    assert.ok(![...topics].some((t) => t.startsWith('ACLPolicy:') && t !== 'ACLPolicy:node-read'), 'the key filter holds');
    const denied = await cairn({}, ['sched', 'event', 'stream', '-topic=ACLToken']);
    assert.deepEqual([denied.code, denied.stderr], [1, 'Error: Permission denied (HTTP 403)\n']);
  });

  it('sched node status: the table, one node by ID prefix, JSON; an unknown prefix exits 1', async () => {
    const id = '3c9d1e2f-4a5b-4c6d-8e7f-90a1b2c3d4e5';
    assert.equal((await call(a.url, 'PUT', '/v1/node/register', { token: root, body: nodeBody(id, 'worker-1') })).status, 200);
    const table = await ok('sched', 'node', 'status');
    assert.match(table, /^ID {8}Node Pool {2}DC {3}Name {6}Class {3}Drain {2}Eligibility {2}Status$/m);
    assert.match(table, /^3c9d1e2f {2}default {4}dc1 {2}worker-1 {2}<none> {2}false {2}eligible {5}initializing$/m);
    const one = await ok('sched', 'node', 'status', '3c9d');
    assert.match(one, new RegExp(`^ID {13}= ${id}\nName {11}= worker-1\n`));
    assert.match(one, /\n\nMeta\nrack = r1\n/);
    assert.match(one, /\n\nNode Events\nTime +Subsystem +Message\n\S+ +Cluster +Node registered/);
    assert.match(await ok('sched', 'node', 'status', '-verbose', id), /\n\nAttributes\nos\.name = linux\n/);
    assert.equal((await json('sched', 'node', 'status', id)).ID, id);
    const none = await cairn({ SCHED_TOKEN: root }, ['sched', 'node', 'status', 'ffff']);
    assert.deepEqual([none.code, none.stderr], [1, 'Error: No node(s) with prefix "ffff" found\n']);
  });

  it('usage errors exit 2; server and connection errors exit 1 with one line', async () => {
    const usage = async (env: Record<string, string>, argv: string[], text: RegExp) => {
      const r = await cairn(env, argv);
      assert.equal(r.code, 2, `cairn ${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, text);
    };
    await usage({ SCHED_TOKEN: root }, ['sched', 'acl', 'policy', 'list', '-format=yaml'], /invalid -format "yaml"/);
    await usage({ SCHED_TOKEN: root }, ['sched', 'acl', 'auth-method', 'create', '-type=JWT'], /missing required flag -name/);
    await usage({ SCHED_TOKEN: root }, ['sched', 'acl', 'auth-method', 'create', '-name=x', '-type=LDAP'], /invalid -type "LDAP": use OIDC or JWT/);
    await usage({ SCHED_TOKEN: root }, ['sched', 'acl', 'auth-method', 'create', '-name=x', '-type=JWT', '-config={nope'], /-config: invalid JSON/);
    await usage({}, ['sched', 'acl', 'policy', 'list', '-address=ftp://x'], /invalid scheduler address "ftp:\/\/x"/);
    await usage({}, ['sched', 'login', '-method=ci'], /a JWT login needs exactly one of -login-token=JWT or -login-token-file=FILE/);
    await usage({}, ['sched', 'login', '-method=corp', '-oidc-callback-addr=nowhere'], /invalid -oidc-callback-addr "nowhere"/);
    await usage({}, ['sched', 'login', '-method=corp', '-login-token=x'], /-login-token and -login-token-file are for JWT methods; "corp" is an OIDC method/);
    assert.deepEqual(
      [parseCallbackAddr('localhost:4649'), parseCallbackAddr('[::1]:80')],
      [
        { host: 'localhost', port: 4649 },
        { host: '[::1]', port: 80 },
      ],
    );
    await usage({ SCHED_TOKEN: root }, ['sched', 'event', 'stream', '-index=-1'], /invalid value "-1" for -index/);
    await usage({}, ['sched', 'acl', 'policy', 'read'], /missing required argument/);
    await usage({}, ['sched', 'frobnicate'], /unknown command|error/i);

    const bad = await cairn({ SCHED_TOKEN: root }, [
      'sched',
      'acl',
      'auth-method',
      'create',
      '-name=bad name',
      '-type=JWT',
      '-token-locality=local',
      '-max-token-ttl=1h',
      '-config={"JWKSURL":"http://x"}',
    ]);
    assert.deepEqual([bad.code, bad.stderr], [1, "Error: auth method 0 invalid: 1 error occurred: * invalid name 'bad name' (HTTP 400)\n"]);
    const denied = await cairn({}, ['sched', 'acl', 'policy', 'read', 'node-read']);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /^Error: Permission denied \(HTTP 403\)\n$/);
    const down = await cairn({}, ['sched', 'node', 'status', '-address=127.0.0.1:1']);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^Error: cannot reach the scheduler at http:\/\/127\.0\.0\.1:1: [^\n]+\n$/);
  });
});
