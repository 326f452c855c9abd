/**
 * Policy parameter constraints over HTTP against a real server (reference `acl.go`
 * `AllowOperation`): `allowed_parameters` (names, values, empty lists, `"*"`, globs,
 * list and comma-separated values), `denied_parameters` (values, `"*"`, denied beats
 * allowed), `required_parameters`, two policies on one path merged, reads and
 * `sys/capabilities` unaffected, malformed constraints refused with a 400 naming the field.
 * Writes go to a KV v1 mount, whose body fields are the request's top-level data.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  assert.equal((await s.call('POST', '/v1/sys/mounts/kv', { body: { type: 'kv' } })).status, 204);
});
after(() => s.close());

async function policy(name: string, text: string): Promise<void> {
  const r = await s.call('PUT', `/v1/sys/policies/acl/${name}`, { body: { policy: text } });
  assert.equal(r.status, 204, r.text);
}

async function token(policies: string[]): Promise<string> {
  const r = await s.call('POST', '/v1/auth/token/create', { body: { policies } });
  assert.equal(r.status, 200, r.text);
  return r.json.auth.client_token as string;
}

/** Writes `body` to `kv/<path>` with `tok`; the status. Refusals must be the reference's 403. */
async function write(tok: string, path: string, body: Record<string, unknown>): Promise<number> {
  const r = await s.call('POST', `/v1/kv/${path}`, { token: tok, body });
  if (r.status === 403) assert.deepEqual(r.json, { errors: ['permission denied'] });
  return r.status;
}

/** An empty body passes the ACL: the KV engine, not the policy, refuses it. */
async function assertEmptyPasses(tok: string, path: string): Promise<void> {
  const r = await s.call('POST', `/v1/kv/${path}`, { token: tok, body: {} });
  assert.deepEqual([r.status, r.json], [400, { errors: ['missing data fields'] }]);
}

describe('allowed_parameters', () => {
  let tok: string;
  before(async () => {
    await policy(
      'allowed',
      `path "kv/allowed" {
  capabilities = ["create", "update", "read"]
  allowed_parameters = {
    "owner" = []
    "env"   = ["dev", "staging"]
    "Team"  = ["web-*", "*-ops"]
    "tags"  = ["a", "b"]
    "port"  = [8080, 8443]
  }
}
path "kv/star" {
  capabilities = ["create", "update"]
  allowed_parameters = { "*" = [] "env" = ["dev"] }
}`,
    );
    tok = await token(['allowed']);
  });

  it('admits listed names with any value (empty list) or a listed value', async () => {
    assert.equal(await write(tok, 'allowed', { owner: 'anyone', env: 'dev' }), 204);
    assert.equal(await write(tok, 'allowed', { env: 'staging', port: 8443 }), 204);
    await assertEmptyPasses(tok, 'allowed');
  });

  it('refuses an unlisted name or an unlisted value', async () => {
    assert.equal(await write(tok, 'allowed', { owner: 'x', other: 'y' }), 403);
    assert.equal(await write(tok, 'allowed', { env: 'prod' }), 403);
    assert.equal(await write(tok, 'allowed', { port: 22 }), 403);
    assert.equal(await write(tok, 'allowed', { port: '8080' }), 403, 'a string is not the number');
  });

  it('matches names case-insensitively and values by prefix/suffix glob', async () => {
    assert.equal(await write(tok, 'allowed', { team: 'web-frontend' }), 204);
    assert.equal(await write(tok, 'allowed', { TEAM: 'platform-ops' }), 204);
    assert.equal(await write(tok, 'allowed', { team: 'db' }), 403);
    assert.equal(await write(tok, 'allowed', { team: 'xweb-a' }), 403, 'the glob is anchored');
  });

  it('admits a list or comma-separated value only when every element is allowed', async () => {
    assert.equal(await write(tok, 'allowed', { tags: ['a', 'b'] }), 204);
    assert.equal(await write(tok, 'allowed', { tags: 'a, b' }), 204);
    assert.equal(await write(tok, 'allowed', { tags: ['a', 'c'] }), 403);
    assert.equal(await write(tok, 'allowed', { tags: 'a,c' }), 403);
  });

  it('"*" admits any other name; listed names keep their value lists', async () => {
    assert.equal(await write(tok, 'star', { anything: 'at all', env: 'dev' }), 204);
    assert.equal(await write(tok, 'star', { anything: 'at all', env: 'prod' }), 403);
  });
});

describe('denied_parameters', () => {
  let tok: string;
  before(async () => {
    await policy(
      'denied',
      `path "kv/denied" {
  capabilities = ["create", "update"]
  denied_parameters = {
    "admin" = []
    "env"   = ["prod*"]
    "tags"  = ["root"]
  }
  allowed_parameters = { "env" = [] "admin" = [] "tags" = [] "owner" = [] }
}
path "kv/nothing" {
  capabilities = ["create", "update"]
  denied_parameters = { "*" = [] }
}`,
    );
    tok = await token(['denied']);
  });

  it('refuses a denied name (empty list) or a denied value, even when allowed', async () => {
    assert.equal(await write(tok, 'denied', { admin: 'no' }), 403);
    assert.equal(await write(tok, 'denied', { env: 'production' }), 403);
    assert.equal(await write(tok, 'denied', { env: 'dev', owner: 'me' }), 204);
  });

  it('refuses a list or comma-separated value when any element is denied', async () => {
    assert.equal(await write(tok, 'denied', { tags: ['a', 'root'] }), 403);
    assert.equal(await write(tok, 'denied', { tags: 'a,root' }), 403);
    assert.equal(await write(tok, 'denied', { tags: ['a', 'b'] }), 204);
  });

  it('"*" refuses any data, but not an empty body', async () => {
    assert.equal(await write(tok, 'nothing', { x: '1' }), 403);
    await assertEmptyPasses(tok, 'nothing');
  });
});

describe('required_parameters', () => {
  it('refuses a write without a required name, and a read without it as a query parameter', async () => {
    await policy('required', 'path "kv/required" {\n  capabilities = ["create", "update", "read"]\n  required_parameters = ["owner", "Env"]\n}');
    const tok = await token(['required']);
    assert.equal(await write(tok, 'required', { owner: 'me' }), 403);
    assert.equal(await write(tok, 'required', { owner: 'me', env: 'dev' }), 204);
    // The reference checks reads' query parameters too.
    assert.equal((await s.call('GET', '/v1/kv/required', { token: tok })).status, 403);
    assert.equal((await s.call('GET', '/v1/kv/required?owner=me&env=dev', { token: tok })).status, 200);
    // Probes of capabilities alone ignore the constraints, as the reference's.
    const ui = await s.call('GET', '/v1/sys/internal/ui/mounts/kv/required', { token: tok });
    assert.equal(ui.status, 200, ui.text);
    assert.equal(ui.json.data.path, 'kv/');
  });
});

describe('two policies granting one path', () => {
  it('merge their constraints: value lists appended, required names unioned', async () => {
    await policy(
      'merge-a',
      JSON.stringify({ path: { 'kv/merged': { capabilities: ['create', 'update'], allowed_parameters: { env: ['dev'] }, required_parameters: ['env'] } } }),
    );
    await policy(
      'merge-b',
      JSON.stringify({ path: { 'kv/merged': { capabilities: ['update'], allowed_parameters: { env: ['qa'], owner: [] }, required_parameters: ['owner'] } } }),
    );
    const a = await token(['merge-a']);
    const both = await token(['merge-a', 'merge-b']);
    assert.equal(await write(a, 'merged', { env: 'qa' }), 403);
    assert.equal(await write(both, 'merged', { env: 'qa' }), 403, 'owner is now required');
    assert.equal(await write(both, 'merged', { env: 'qa', owner: 'me' }), 204);
    assert.equal(await write(both, 'merged', { env: 'dev', owner: 'me' }), 204);
    assert.equal(await write(both, 'merged', { env: 'prod', owner: 'me' }), 403);
  });
});

describe('what constraints leave alone', () => {
  it('reads without data, lists and deletes pass; sys/capabilities reports capabilities only', async () => {
    await policy(
      'readers',
      'path "kv/open" {\n  capabilities = ["create", "read", "list", "delete"]\n  allowed_parameters = { "v" = ["1"] }\n  denied_parameters = { "x" = [] }\n}',
    );
    const tok = await token(['readers']);
    assert.equal(await write(tok, 'open', { v: '1' }), 204);
    const read = await s.call('GET', '/v1/kv/open', { token: tok });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.data, { v: '1' });
    const caps = await s.call('POST', '/v1/sys/capabilities-self', { token: tok, body: { paths: ['kv/open'] } });
    assert.equal(caps.status, 200, caps.text);
    assert.deepEqual(caps.json['kv/open'], ['create', 'delete', 'list', 'read']);
    assert.equal((await s.call('DELETE', '/v1/kv/open?x=1', { token: tok })).status, 204);
  });
});

describe('malformed constraints', () => {
  const cases: [string, string][] = [
    ['path "kv/a" {\n  capabilities = ["update"]\n  allowed_parameters = ["x"]\n}', '"allowed_parameters" must be a map'],
    ['path "kv/a" {\n  capabilities = ["update"]\n  denied_parameters = { "x" = "y" }\n}', '"denied_parameters.x" must be a list'],
    ['path "kv/a" {\n  capabilities = ["update"]\n  allowed_parameters = { "x" = [["nested"]] }\n}', '"allowed_parameters.x" must be a list'],
    [JSON.stringify({ path: { 'kv/a': { capabilities: ['update'], required_parameters: 'x' } } }), '"required_parameters" must be a list of strings'],
    ['path "kv/a" {\n  capabilities = ["update"]\n  mfa_methods = ["totp"]\n}', '"mfa_methods" is not supported'],
    ['path "kv/a" {\n  capabilities = ["update"]\n  max_wrapping_ttl = "1x"\n}', 'error parsing max_wrapping_ttl: '],
  ];
  it('are refused with a 400 naming the field, and nothing is stored', async () => {
    for (const [text, message] of cases) {
      const r = await s.call('PUT', '/v1/sys/policies/acl/bad', { body: { policy: text } });
      assert.equal(r.status, 400, text);
      assert.equal(r.json.errors.length, 1);
      assert.ok(r.json.errors[0].startsWith('failed to parse policy: path "kv/a": ' + message), r.json.errors[0]);
    }
    assert.equal((await s.call('GET', '/v1/sys/policies/acl/bad')).status, 404);
  });
});
