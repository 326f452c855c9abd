/**
 * The `cairn` administration commands end to end against real secrets services: the seal
 * lifecycle (`operator init|unseal|seal`, `status`), policies, auth methods, `login` with the
 * token helper file, and namespaces.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../src/cli/main.js';
import { startSealedServer, startTestServer, type TestServer } from './helpers.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-op-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `cairn` in-process; `env` is all the environment it sees (no HOME, so no stray token file). */
async function run(env: Record<string, string | undefined>, argv: string[], o: { stdin?: string; prompt?: (p: string) => string } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, env, {
    stdout: (x) => (stdout += x),
    stderr: (x) => (stderr += x),
    readStdin: async () => o.stdin ?? '',
    promptSecret: async (p) => {
      if (!o.prompt) throw new Error(`unexpected prompt ${p}`);
      return o.prompt(p);
    },
  });
  return { code, stdout, stderr };
}

describe('cairn operator init / unseal / seal and status', () => {
  let server: Awaited<ReturnType<typeof startSealedServer>>;
  before(async () => (server = await startSealedServer()));
  after(() => server.close());

  it('initialises 3/2, reports sealed with exit 2, unseals with two keys, seals again', async () => {
    const env = { SECRETS_ADDR: server.url, CAIRN_TOKEN_PATH: join(dir, 'op-token') };
    const before = await run(env, ['status']);
    assert.equal(before.code, 2, before.stderr);
    assert.match(before.stdout, /^Initialized\s+false$/m);

    const init = await run(env, ['operator', 'init', '-key-shares=3', '-key-threshold=2']);
    assert.equal(init.code, 0, init.stderr);
    const keys = [...init.stdout.matchAll(/^Unseal Key (\d): (\S+)$/gm)].map((m) => m[2]);
    assert.equal(keys.length, 3);
    const root = /^Initial Root Token: (\S+)$/m.exec(init.stdout)?.[1];
    assert.ok(root);
    assert.match(init.stdout, /initialized with 3 key shares and a key threshold of 2/);
    assert.ok(init.stdout.split('\n').every((l) => l.length <= 80));

    const sealed = await run(env, ['status']);
    assert.equal(sealed.code, 2);
    assert.match(
      sealed.stdout,
      /^Key\s+Value\n---\s+-----\nSeal Type\s+shamir\nInitialized\s+true\nSealed\s+true\nTotal Shares\s+3\nThreshold\s+2\nUnseal Progress\s+0\/2\nUnseal Nonce\s+n\/a\nVersion\s+\S+\nStorage Type\s+\S+\nHA Enabled\s+false\n$/,
    );

    const first = await run(env, ['operator', 'unseal', keys[0]]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Unseal Progress\s+1\/2$/m);
    assert.match(first.stdout, /^Unseal Nonce\s+[0-9a-f-]{8,}$/m);

    // The second key through the hidden prompt, as on a terminal.
    const prompts: string[] = [];
    const second = await run(env, ['operator', 'unseal'], { prompt: (p) => (prompts.push(p), `${keys[2]}\n`) });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(prompts, ['Unseal Key (will be hidden): ']);
    assert.match(second.stdout, /^Sealed\s+false$/m);

    const open = await run(env, ['status', '-format=json']);
    assert.equal(open.code, 0, open.stderr);
    const json = JSON.parse(open.stdout);
    assert.equal(json.sealed, false);
    assert.equal(json.ha_enabled, false);
    const table = await run(env, ['status']);
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^Cluster Name\s+\S+$/m);
    assert.doesNotMatch(table.stdout, /Unseal Progress/);

    assert.equal((await run(env, ['operator', 'init'])).code, 1, 'a second init is refused');
    const denied = await run(env, ['operator', 'seal']);
    assert.equal(denied.code, 1, 'sealing needs a token');
    const seal = await run({ ...env, SECRETS_TOKEN: root }, ['operator', 'seal']);
    assert.equal(seal.code, 0, seal.stderr);
    assert.match(seal.stdout, /^Success! The secrets service is sealed\.$/m);
    assert.equal((await run(env, ['status'])).code, 2);

    assert.match((await run(env, ['operator', 'unseal', keys[1]])).stdout, /^Unseal Progress\s+1\/2$/m);
    const reset = await run(env, ['operator', 'unseal', '-reset']);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /^Unseal Progress\s+0\/2$/m);

    const bad = await run(env, ['operator', 'unseal', 'not-a-key']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  });

  it('prints the raw init body with -format=json', async () => {
    const other = await startSealedServer();
    try {
      const r = await run({ SECRETS_ADDR: other.url }, ['operator', 'init', '-key-shares=1', '-key-threshold=1', '-format=json']);
      assert.equal(r.code, 0, r.stderr);
      const body = JSON.parse(r.stdout);
      assert.equal(body.keys.length, 1);
      assert.equal(body.keys_base64.length, 1);
      assert.equal(typeof body.root_token, 'string');
      assert.equal((await run({ SECRETS_ADDR: other.url }, ['operator', 'init', '-status'])).code, 0);
    } finally {
      await other.close();
    }
  });

  it('exits 1 with one line when the server cannot be reached', async () => {
    const r = await run({ SECRETS_ADDR: 'http://127.0.0.1:1' }, ['status']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });
});

describe('cairn policy / auth / login against a real server', () => {
  let s: TestServer;
  let env: Record<string, string>;
  before(async () => {
    s = await startTestServer();
    env = { SECRETS_ADDR: s.url, SECRETS_TOKEN: s.rootToken };
  });
  after(() => s.close());

  it('policy write (file and stdin) / read / list / delete', async () => {
    const file = join(dir, 'app.hcl');
    const text = 'path "secret/data/app/*" {\n  capabilities = ["read", "list"]\n}\n';
    writeFileSync(file, text);
    const w = await run(env, ['policy', 'write', 'App-Read', file]);
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stdout, 'Success! Uploaded policy: app-read\n');
    const r = await run(env, ['policy', 'read', 'app-read']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, text.trim() + '\n');
    assert.deepEqual(JSON.parse((await run(env, ['policy', 'read', '-format=json', 'app-read'])).stdout), { policy: text });

    assert.equal((await run(env, ['policy', 'write', 'from-stdin', '-'], { stdin: 'path "x/*" { capabilities = ["read"] }' })).code, 0);
    const l = await run(env, ['policy', 'list']);
    assert.equal(l.code, 0, l.stderr);
    const names = l.stdout.trim().split('\n');
    for (const n of ['app-read', 'default', 'from-stdin', 'root']) assert.ok(names.includes(n), l.stdout);
    assert.ok(JSON.parse((await run(env, ['policy', 'list', '-format=json'])).stdout).includes('app-read'));

    const bad = await run(env, ['policy', 'write', 'broken', '-'], { stdin: 'path "x" { capabilities = ["fly"] }' });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    assert.equal((await run(env, ['policy', 'write', 'nofile', join(dir, 'missing.hcl')])).code, 2);

    const d = await run(env, ['policy', 'delete', 'app-read']);
    assert.equal(d.stdout, 'Success! Deleted policy: app-read\n');
    const gone = await run(env, ['policy', 'read', 'app-read']);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /No policy named: app-read/);
  });

  it('auth enable / list / disable, userpass login storing the token, token lookup using it', async () => {
    const e = await run(env, ['auth', 'enable', '-description=people', 'userpass']);
    assert.equal(e.code, 0, e.stderr);
    assert.equal(e.stdout, 'Success! Enabled userpass auth method at: userpass/\n');
    assert.equal((await run(env, ['auth', 'enable', '-path=robots', 'approle'])).code, 0);
    const l = await run(env, ['auth', 'list']);
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /^Path\s+Type\s+Accessor\s+Description\s+Version$/m);
    assert.match(l.stdout, /^userpass\/\s+userpass\s+\S+\s+people\s+/m);
    assert.match(l.stdout, /^robots\/\s+approle\s+/m);
    assert.match(l.stdout, /^token\/\s+token\s+/m);
    assert.equal(JSON.parse((await run(env, ['auth', 'list', '-format=json'])).stdout)['userpass/'].type, 'userpass');

    const user = await s.call('POST', '/v1/auth/userpass/users/alice', { body: { password: 'pw', token_policies: 'default' } });
    assert.ok(user.status < 300, user.text);

    const tokenPath = join(dir, 'login-token');
    const userEnv = { SECRETS_ADDR: s.url, CAIRN_TOKEN_PATH: tokenPath };
    const login = await run(userEnv, ['login', '-method=userpass', 'username=alice', 'password=pw']);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /^Success! You are now authenticated\./);
    const token = /^token\s+(\S+)$/m.exec(login.stdout)?.[1];
    assert.ok(token, login.stdout);
    for (const k of ['token_accessor', 'token_duration', 'token_renewable', 'token_policies', 'policies'])
      assert.match(login.stdout, new RegExp(`^${k}\\s`, 'm'));
    assert.match(login.stdout, /^token_policies\s+\["default"\]$/m);
    assert.equal(readFileSync(tokenPath, 'utf8'), token);
    assert.equal(statSync(tokenPath).mode & 0o777, 0o600);

    const lookup = await run(userEnv, ['token', 'lookup', '-format=json']);
    assert.equal(lookup.code, 0, lookup.stderr);
    assert.equal(JSON.parse(lookup.stdout).data.id, token);
    assert.match(JSON.parse(lookup.stdout).data.path, /^auth\/userpass\/login\/alice/);

    // SECRETS_TOKEN wins over the stored token.
    const rootLookup = await run({ ...userEnv, SECRETS_TOKEN: s.rootToken }, ['token', 'lookup', '-format=json']);
    assert.deepEqual(JSON.parse(rootLookup.stdout).data.policies, ['root']);

    const wrong = await run(userEnv, ['login', '-method=userpass', 'username=alice', 'password=nope']);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stderr.trim().split('\n').length, 1, wrong.stderr);
    assert.match(wrong.stderr, /invalid username or password/);
    assert.equal(readFileSync(tokenPath, 'utf8'), token, 'a failed login keeps the stored token');

    // The password prompt, -no-store, -field.
    const prompted = await run(userEnv, ['login', '-method=userpass', '-no-store', '-field=token', 'username=alice'], { prompt: () => 'pw' });
    assert.equal(prompted.code, 0, prompted.stderr);
    assert.notEqual(prompted.stdout, token);
    assert.equal(readFileSync(tokenPath, 'utf8'), token, '-no-store leaves the file alone');

    const d = await run(env, ['auth', 'disable', 'robots']);
    assert.equal(d.stdout, 'Success! Disabled the auth method (if it existed) at: robots/\n');
    assert.doesNotMatch((await run(env, ['auth', 'list'])).stdout, /robots/);
  });

  it('login with a token argument (the default method) stores it; approle login', async () => {
    const tokenPath = join(dir, 'root-login-token');
    const r = await run({ SECRETS_ADDR: s.url, CAIRN_TOKEN_PATH: tokenPath }, ['login', s.rootToken]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^token_duration\s+∞$/m);
    assert.match(r.stdout, /^policies\s+\["root"\]$/m);
    assert.equal(readFileSync(tokenPath, 'utf8'), s.rootToken);
    const bad = await run({ SECRETS_ADDR: s.url, CAIRN_TOKEN_PATH: tokenPath }, ['login', 'not-a-token']);
    assert.equal(bad.code, 1);
    assert.equal(readFileSync(tokenPath, 'utf8'), s.rootToken);
    const child = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['default'] } })).json.auth.client_token;
    const explicit = await run({ SECRETS_ADDR: s.url, CAIRN_TOKEN_PATH: tokenPath }, ['login', '-method=token', `token=${child}`]);
    assert.equal(explicit.code, 0, explicit.stderr);
    assert.match(explicit.stdout, /^token_policies\s+\["default"\]$/m);
    assert.equal(readFileSync(tokenPath, 'utf8'), child);

    await s.call('POST', '/v1/sys/auth/approle', { body: { type: 'approle' } });
    await s.call('POST', '/v1/auth/approle/role/web', { body: { token_policies: 'default' } });
    const roleId = (await s.call('GET', '/v1/auth/approle/role/web/role-id')).json.data.role_id;
    const secretId = (await s.call('POST', '/v1/auth/approle/role/web/secret-id')).json.data.secret_id;
    const a = await run({ SECRETS_ADDR: s.url }, ['login', '-method=approle', '-no-store', '-format=json', `role_id=${roleId}`, `secret_id=${secretId}`]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(typeof JSON.parse(a.stdout).auth.client_token, 'string');
    assert.match(a.stderr, /not stored in the token helper/);
    const wrong = await run({ SECRETS_ADDR: s.url }, ['login', '-method=approle', '-no-store', `role_id=${roleId}`, 'secret_id=wrong']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /invalid role or secret ID/);
    assert.equal((await run({ SECRETS_ADDR: s.url }, ['login', '-method=ldap'])).code, 2);
  });
});

describe('cairn namespace against a real server', () => {
  let s: TestServer;
  let env: Record<string, string>;
  before(async () => {
    s = await startTestServer();
    env = { SECRETS_ADDR: s.url, SECRETS_TOKEN: s.rootToken };
  });
  after(() => s.close());

  it('namespace create / list / delete, nested with -namespace and SECRETS_NAMESPACE', async () => {
    const c = await run(env, ['namespace', 'create', 'team-a']);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /^path\s+team-a\/$/m);
    assert.match(c.stdout, /^id\s+\S+$/m);
    const nested = await run(env, ['namespace', 'create', '-namespace=team-a', '-format=json', 'dev']);
    assert.equal(nested.code, 0, nested.stderr);
    assert.equal(JSON.parse(nested.stdout).path, 'team-a/dev/', 'the full path, as the reference answers');

    const l = await run(env, ['namespace', 'list']);
    assert.equal(l.code, 0, l.stderr);
    assert.equal(l.stdout, 'Keys\n----\nteam-a/\n');
    assert.deepEqual(JSON.parse((await run({ ...env, SECRETS_NAMESPACE: 'team-a' }, ['namespace', 'list', '-format=json'])).stdout), ['dev/']);
    assert.deepEqual(JSON.parse((await run(env, ['namespace', 'list', '-ns=team-a', '-format=json'])).stdout), ['dev/']);

    // Every command honours -namespace and SECRETS_NAMESPACE: the data lands in team-a only.
    assert.equal((await s.call('POST', '/v1/sys/mounts/secret', { headers: { 'X-Secrets-Namespace': 'team-a' }, body: { type: 'kv-v2' } })).status, 204);
    const put = await run(env, ['kv', 'put', '-namespace=team-a', 'secret/db', 'password=team-a-only']);
    assert.equal(put.code, 0, put.stderr);
    const fromEnv = await run({ ...env, SECRETS_NAMESPACE: 'team-a' }, ['kv', 'get', '-field=password', 'secret/db']);
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.equal(fromEnv.stdout.trim(), 'team-a-only');
    assert.equal((await s.call('GET', '/v1/team-a/secret/data/db')).json.data.data.password, 'team-a-only', 'stored in team-a');
    assert.equal((await s.call('GET', '/v1/secret/data/db')).status, 404, 'not in the root namespace');
    const flagWins = await run({ ...env, SECRETS_NAMESPACE: 'team-a' }, ['kv', 'get', '-namespace=team-a/dev', 'secret/db']);
    assert.notEqual(flagWins.code, 0, 'the flag wins over the variable: team-a/dev has no secret/ mount');
    assert.doesNotMatch(flagWins.stdout, /team-a-only/);

    const d = await run(env, ['namespace', 'delete', '-ns=team-a', 'dev']);
    assert.equal(d.code, 0, d.stderr);
    assert.equal(d.stdout, 'Success! Namespace deleted at: team-a/dev/\n');
    const empty = await run({ ...env, SECRETS_NAMESPACE: 'team-a' }, ['namespace', 'list']);
    assert.equal(empty.code, 2);
    assert.equal((await run(env, ['namespace', 'delete', 'team-a'])).code, 0);
  });
});
