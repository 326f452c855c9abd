/**
 * The scheduler's ACL token, policy and role endpoints over HTTP (the reference's
 * `nomad/acl_endpoint.go`, `command/agent/acl_endpoint.go`; reference/sched.md §1): bootstrap
 * once, then only through the reset file; token CRUD with the reference's validation texts
 * and go-multierror format; `token/self`; a client token's view of policies and roles;
 * unknown and expired secrets; policy and role validation; blocking reads; the anonymous
 * policy; ACLs disabled; writes of a non-authoritative region forwarded.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BOOTSTRAP_META_ID } from '../../src/services/sched/bootstrap.js';
import { T, type PolicyDoc, type RoleDoc, type TokenDoc } from '../../src/services/sched/state.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const READ_DEFAULT = 'namespace "default" { policy = "read" }';
const one = (kind: string, e: string) => `${kind} 0 invalid: 1 error occurred:\n\t* ${e}\n\n`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('scheduler ACL bootstrap', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent({}, { root: null });
  });
  after(() => a.stop());

  it('works once, then 400 with the reset index; the reset file allows exactly one more', async () => {
    const first = await call(a.url, 'POST', '/v1/acl/bootstrap');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.json.Name, first.json.Type, first.json.Global, first.json.Policies], ['Bootstrap Token', 'management', true, null]);
    assert.match(first.json.SecretID, UUID);
    assert.equal(first.headers.get('x-sched-index'), String(first.json.CreateIndex));
    assert.equal(a.state.get<TokenDoc>(T.tokens, first.json.AccessorID)?.SecretID, first.json.SecretID);

    const resetIndex = a.state.get(T.meta, BOOTSTRAP_META_ID)!.ModifyIndex;
    const again = await call(a.url, 'POST', '/v1/acl/bootstrap', { token: first.json.SecretID });
    assert.deepEqual([again.status, again.text], [400, `ACL bootstrap already done (reset index: ${resetIndex})`]);

    writeFileSync(join(a.dataDir, 'acl-bootstrap-reset'), '999\n');
    const wrong = await call(a.url, 'PUT', '/v1/acl/bootstrap');
    assert.deepEqual([wrong.status, wrong.text], [400, `Invalid bootstrap reset index (specified 999, reset index: ${resetIndex})`]);

    writeFileSync(join(a.dataDir, 'acl-bootstrap-reset'), `${resetIndex}\n`);
    const bad = await call(a.url, 'PUT', '/v1/acl/bootstrap', { body: { BootstrapSecret: 'not-a-uuid' } });
    assert.deepEqual([bad.status, bad.text], [400, 'invalid acl token']);
    const chosen = '6f1c1e2a-3b4c-4d5e-8f70-0123456789ab';
    const second = await call(a.url, 'PUT', '/v1/acl/bootstrap', { body: { bootstrapsecret: chosen } });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.SecretID, chosen);
    const self = await call(a.url, 'GET', '/v1/acl/token/self', { token: chosen });
    assert.equal(self.json.AccessorID, second.json.AccessorID);

    const newIndex = a.state.get(T.meta, BOOTSTRAP_META_ID)!.ModifyIndex;
    assert.ok(newIndex > resetIndex);
    const third = await call(a.url, 'POST', '/v1/acl/bootstrap');
    assert.deepEqual([third.status, third.text], [400, `Invalid bootstrap reset index (specified ${resetIndex}, reset index: ${newIndex})`]);
    assert.equal(a.state.list<TokenDoc>(T.tokens).length, 2);
  });

  it('answers a body that is not JSON with the decoder text', async () => {
    const r = await call(a.url, 'POST', '/v1/acl/bootstrap', { raw: '{' });
    assert.equal(r.status, 400);
    assert.match(r.text, /^failed to decode request body: /);
  });
});

describe('scheduler ACL tokens, policies and roles', () => {
  let a: TestAgent;
  let clock = Date.now();
  let reader: { AccessorID: string; SecretID: string };
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });

  before(async () => {
    a = await startAgent({}, { now: () => clock });
    assert.equal((await req('PUT', '/v1/acl/policy/reader', { Name: 'reader', Description: 'reads default', Rules: READ_DEFAULT })).status, 200);
    const r = await req('POST', '/v1/acl/token', { Name: 'reader', Type: 'client', Policies: ['reader'] });
    reader = r.json;
  });
  after(() => a.stop());

  it('creates a client token: the secret is shown to its creator, stored, listed as a stub', async () => {
    const r = await req('POST', '/v1/acl/token', { Name: 'ci', Type: 'client', Policies: ['reader', 'other'], Global: true });
    assert.equal(r.status, 200, r.text);
    const t = r.json;
    assert.match(t.AccessorID, UUID);
    assert.match(t.SecretID, UUID);
    assert.deepEqual(
      [t.Name, t.Type, t.Policies, t.Roles, t.Global, t.ExpirationTime, t.ExpirationTTL],
      ['ci', 'client', ['reader', 'other'], null, true, null, ''],
    );
    assert.equal(r.headers.get('x-sched-index'), String(t.ModifyIndex));
    assert.equal(r.headers.get('x-sched-knownleader'), null);
    const stored = a.state.get<TokenDoc>(T.tokens, t.AccessorID)!;
    assert.deepEqual([stored.SecretID, stored.Hash, stored.Global], [t.SecretID, t.Hash, true]);

    const list = await req('GET', '/v1/acl/tokens');
    assert.equal(list.status, 200);
    const stub = list.json.find((s: { AccessorID: string }) => s.AccessorID === t.AccessorID);
    assert.equal(stub.Name, 'ci');
    assert.equal('SecretID' in stub, false);
    assert.ok(Number(list.headers.get('x-sched-index')) >= t.ModifyIndex);

    const byPrefix = await req('GET', `/v1/acl/tokens?prefix=${t.AccessorID.slice(0, 8)}`);
    assert.deepEqual(
      byPrefix.json.map((s: { AccessorID: string }) => s.AccessorID),
      [t.AccessorID],
    );
    const globals = await req('GET', '/v1/acl/tokens?global=true');
    assert.ok(globals.json.every((s: { Global: boolean }) => s.Global));
    assert.ok(globals.json.some((s: { AccessorID: string }) => s.AccessorID === t.AccessorID));
    const odd = await req('GET', '/v1/acl/tokens?prefix=abc');
    assert.deepEqual([odd.status, odd.text], [400, 'index error: Input (without hyphens) must be even length']);

    const got = await req('GET', `/v1/acl/token/${t.AccessorID}`);
    assert.deepEqual([got.status, got.json.SecretID, got.json.Name], [200, t.SecretID, 'ci']);
  });

  it('rejects invalid tokens with the reference texts', async () => {
    const cases: [unknown, string][] = [
      [{ Name: 'x', Type: 'client' }, one('token', 'client token missing policies or roles')],
      [{ Name: 'x', Type: 'management', Policies: ['reader'] }, one('token', 'management token cannot be associated with policies or roles')],
      [{ Name: 'x', Type: 'root' }, one('token', 'token type must be client or management')],
      [{ Name: 'n'.repeat(257), Type: 'management' }, one('token', 'token name too long')],
      [{ Type: 'management', ExpirationTTL: '48h' }, one('token', 'expiration time cannot be more than 24h0m0s in the future (was 48h0m0s)')],
      [{ Type: 'management', ExpirationTTL: '10s' }, one('token', 'expiration time cannot be less than 1m0s in the future (was 10s)')],
      [
        { Type: 'client', ExpirationTTL: '-1m' },
        "token 0 invalid: 4 errors occurred:\n\t* client token missing policies or roles\n\t* token expiration TTL '-1m0s' should not be negative\n\t* expiration time cannot be before create time\n\t* expiration time cannot be less than 1m0s in the future (was -1m0s)\n\n",
      ],
      [{ Type: 'management', ExpirationTTL: 'soon' }, 'time: invalid duration "soon"'],
      [{ Type: 'client', Policies: 'reader' }, 'json: cannot unmarshal string into Go struct field ACLToken.Policies of type []string'],
      [{ Type: 'client', Roles: [{ Name: 'nope' }] }, 'cannot find role nope'],
    ];
    for (const [body, text] of cases) {
      const r = await req('POST', '/v1/acl/token', body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    }
    const empty = await req('POST', '/v1/acl/token');
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
    const client = await req('POST', '/v1/acl/token', { Type: 'management' }, reader.SecretID);
    assert.deepEqual([client.status, client.text], [403, 'Permission denied']);
  });

  it('updates a token (fields left out kept); Global, Type and expiry cannot change; deletes with an empty reply', async () => {
    const t = (await req('POST', '/v1/acl/token', { Name: 'temp', Type: 'client', Policies: ['reader'], ExpirationTTL: '1h' })).json;
    assert.equal(t.ExpirationTTL, '1h0m0s');
    assert.equal(Date.parse(t.ExpirationTime) - Date.parse(t.CreateTime), 3_600_000);

    const mismatch = await req('POST', `/v1/acl/token/${t.AccessorID}`, { Name: 'x' });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'ACL token accessor does not match request path']);
    const up = await req('PUT', `/v1/acl/token/${t.AccessorID}`, { AccessorID: t.AccessorID, Name: 'renamed' });
    assert.equal(up.status, 200, up.text);
    assert.deepEqual(
      [up.json.Name, up.json.Policies, up.json.SecretID, up.json.ExpirationTime, up.json.CreateTime],
      ['renamed', ['reader'], t.SecretID, t.ExpirationTime, t.CreateTime],
    );
    assert.notEqual(up.json.Hash, t.Hash);
    assert.equal(a.state.get<TokenDoc>(T.tokens, t.AccessorID)!.Name, 'renamed');

    const locked = await req('PUT', `/v1/acl/token/${t.AccessorID}`, {
      AccessorID: t.AccessorID,
      Type: 'management',
      Policies: [],
      Global: true,
      ExpirationTTL: '2h',
    });
    assert.equal(locked.status, 400);
    assert.equal(
      locked.text,
      'token 0 invalid: 3 errors occurred:\n\t* cannot toggle global mode\n\t* cannot update expiration TTL\n\t* cannot update token type\n\n',
    );
    const missing = await req('PUT', '/v1/acl/token/00000000-0000-4000-8000-000000000000', { AccessorID: '00000000-0000-4000-8000-000000000000', Name: 'x' });
    assert.deepEqual([missing.status, missing.text], [400, 'cannot find token 00000000-0000-4000-8000-000000000000']);

    const del = await req('DELETE', `/v1/acl/token/${t.AccessorID}`);
    assert.deepEqual([del.status, del.text, del.headers.get('content-type')], [200, '', null]);
    assert.ok(Number(del.headers.get('x-sched-index')) > up.json.ModifyIndex);
    assert.equal(a.state.get(T.tokens, t.AccessorID), undefined);
    const gone = await req('GET', `/v1/acl/token/${t.AccessorID}`);
    assert.deepEqual([gone.status, gone.text], [404, 'ACL token not found']);
    const twice = await req('DELETE', `/v1/acl/token/${t.AccessorID}`);
    assert.deepEqual([twice.status, twice.text], [400, `Cannot delete nonexistent tokens: ${t.AccessorID}`]);
  });

  it('token/self shows the caller its own token; an unknown secret is 403 `ACL token not found`', async () => {
    const self = await req('GET', '/v1/acl/token/self', undefined, reader.SecretID);
    assert.deepEqual([self.status, self.json.AccessorID, self.json.SecretID], [200, reader.AccessorID, reader.SecretID]);
    const root = await req('GET', '/v1/acl/token/self');
    assert.equal(root.json.Type, 'management');
    const unknown = await req('GET', '/v1/acl/token/self', undefined, '11111111-2222-4333-8444-555555555555');
    assert.deepEqual([unknown.status, unknown.text], [403, 'ACL token not found']);
    const none = await req('GET', '/v1/acl/token/self', undefined, null);
    assert.deepEqual([none.status, none.text], [403, 'ACL token not found']);
  });

  it('a client token reads its own policy and token, nothing else, and cannot list tokens', async () => {
    await req('PUT', '/v1/acl/policy/secret', { Name: 'secret', Rules: 'node { policy = "write" }' });
    const own = await req('GET', '/v1/acl/policy/reader', undefined, reader.SecretID);
    assert.equal(own.status, 200, own.text);
    assert.deepEqual([own.json.Name, own.json.Description, own.json.Rules, own.json.JobACL], ['reader', 'reads default', READ_DEFAULT, null]);
    assert.deepEqual([own.json.RulesJSON.Namespaces[0].Name, own.json.RulesJSON.Namespaces[0].Policy], ['default', 'read']);
    assert.ok(own.json.RulesJSON.Namespaces[0].Capabilities.includes('read-job'));
    assert.equal(own.headers.get('x-sched-index'), String(own.json.ModifyIndex));

    const list = await req('GET', '/v1/acl/policies', undefined, reader.SecretID);
    assert.deepEqual(
      list.json.map((p: { Name: string }) => p.Name),
      ['reader'],
    );
    assert.deepEqual(Object.keys(list.json[0]), ['Name', 'Description', 'Hash', 'CreateIndex', 'ModifyIndex']);
    const all = await req('GET', '/v1/acl/policies?prefix=se');
    assert.deepEqual(
      all.json.map((p: { Name: string }) => p.Name),
      ['secret'],
    );

    for (const path of ['/v1/acl/tokens', '/v1/acl/policy/secret', `/v1/acl/token/${(await req('GET', '/v1/acl/token/self')).json.AccessorID}`]) {
      const r = await req('GET', path, undefined, reader.SecretID);
      assert.deepEqual([r.status, r.text], [403, 'Permission denied'], path);
    }
    const mine = await req('GET', `/v1/acl/token/${reader.AccessorID}`, undefined, reader.SecretID);
    assert.deepEqual([mine.status, mine.json.SecretID], [200, reader.SecretID]);
    const write = await req('PUT', '/v1/acl/policy/reader', { Name: 'reader', Rules: '' }, reader.SecretID);
    assert.deepEqual([write.status, write.text], [403, 'Permission denied']);
  });

  it('answers an unknown secret 403 `Permission denied` and an expired token too', async () => {
    const unknown = await req('GET', '/v1/acl/policies', undefined, '11111111-2222-4333-8444-555555555555');
    assert.deepEqual([unknown.status, unknown.text], [403, 'Permission denied']);
    const t = (await req('POST', '/v1/acl/token', { Name: 'short', Type: 'client', Policies: ['reader'], ExpirationTTL: '1m' })).json;
    assert.equal((await req('GET', '/v1/acl/policy/reader', undefined, t.SecretID)).status, 200);
    clock += 61_000;
    const expired = await req('GET', '/v1/acl/policy/reader', undefined, t.SecretID);
    assert.deepEqual([expired.status, expired.text], [403, 'Permission denied']);
    const self = await req('GET', '/v1/acl/token/self', undefined, t.SecretID);
    assert.deepEqual([self.status, self.text], [403, 'ACL token not found']);
  });

  it('validates policies with the reference texts', async () => {
    const bad = await req('PUT', '/v1/acl/policy/broken', { Name: 'broken', Rules: 'namespace "default" { policy = "admin" }' });
    assert.equal(bad.status, 400);
    assert.match(
      bad.text,
      /^policy 0 invalid: 1 error occurred:\n\t\* failed to parse rules: Invalid namespace policy: namespace "default": "admin" is not .*\n\n$/,
    );
    const syntax = await req('PUT', '/v1/acl/policy/broken', { Name: 'broken', Rules: 'namespace "default" {' });
    assert.match(syntax.text, /^policy 0 invalid: 1 error occurred:\n\t\* failed to parse rules: Failed to parse ACL Policy: /);
    const name = await req('PUT', '/v1/acl/policy/bad_name', { Name: 'bad_name', Description: 'd'.repeat(257), Rules: READ_DEFAULT });
    assert.deepEqual([name.status, name.text], [400, "policy 0 invalid: 2 errors occurred:\n\t* invalid name 'bad_name'\n\t* description longer than 256\n\n"]);
    const mismatch = await req('PUT', '/v1/acl/policy/one', { Name: 'two', Rules: READ_DEFAULT });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'ACL policy name does not match request path']);
    const job = await req('PUT', '/v1/acl/policy/job', { Name: 'job', Rules: READ_DEFAULT, JobACL: { JobID: 'web' } });
    assert.deepEqual([job.status, job.text], [400, one('policy', 'namespace must be set to set job ID')]);
    assert.equal(a.state.get(T.policies, 'broken'), undefined);
    const missing = await req('GET', '/v1/acl/policy/nope');
    assert.deepEqual([missing.status, missing.text], [404, 'ACL policy not found']);

    const ok = await req('POST', '/v1/acl/policy/ops', { Name: 'ops', Rules: READ_DEFAULT });
    assert.deepEqual([ok.status, ok.text], [200, '']);
    assert.equal(a.state.get<PolicyDoc>(T.policies, 'ops')?.Rules, READ_DEFAULT);
    const del = await req('DELETE', '/v1/acl/policy/ops');
    assert.deepEqual([del.status, del.text], [200, '']);
    assert.equal(a.state.get(T.policies, 'ops'), undefined);
  });

  it("manages roles: policies must exist, names are unique, a token holds its roles' policies", async () => {
    const noPolicy = await req('POST', '/v1/acl/role', { Name: 'ops', Policies: [{ Name: 'nope' }] });
    assert.deepEqual([noPolicy.status, noPolicy.text], [400, 'cannot find policy nope']);
    const invalid = await req('POST', '/v1/acl/role', { Name: 'bad name' });
    assert.deepEqual(
      [invalid.status, invalid.text],
      [400, "role 0 invalid: 2 errors occurred:\n\t* invalid name 'bad name'\n\t* at least one policy should be specified\n\n"],
    );

    const created = await req('POST', '/v1/acl/role', { Name: 'ops', Description: 'operators', Policies: [{ Name: 'secret' }, { Name: 'secret' }] });
    assert.equal(created.status, 200, created.text);
    const role = created.json;
    assert.match(role.ID, UUID);
    assert.deepEqual([role.Name, role.Description, role.Policies], ['ops', 'operators', [{ Name: 'secret' }]]);
    assert.equal(a.state.get<RoleDoc>(T.roles, role.ID)?.Name, 'ops');
    const dup = await req('POST', '/v1/acl/role', { Name: 'ops', Policies: [{ Name: 'secret' }] });
    assert.deepEqual([dup.status, dup.text], [400, 'role with name ops already exists']);

    const t = (await req('POST', '/v1/acl/token', { Name: 'op', Type: 'client', Roles: [{ Name: 'ops' }] })).json;
    assert.deepEqual(t.Roles, [{ ID: role.ID, Name: 'ops' }]);
    assert.equal((await req('GET', '/v1/acl/policy/secret', undefined, t.SecretID)).status, 200);
    assert.deepEqual(
      (await req('GET', '/v1/acl/policies', undefined, t.SecretID)).json.map((p: { Name: string }) => p.Name),
      ['secret'],
    );
    assert.equal((await req('GET', `/v1/acl/role/${role.ID}`, undefined, t.SecretID)).status, 200);
    assert.equal((await req('GET', '/v1/acl/role/name/ops', undefined, t.SecretID)).json.ID, role.ID);
    assert.deepEqual(
      (await req('GET', '/v1/acl/roles', undefined, t.SecretID)).json.map((r: { ID: string }) => r.ID),
      [role.ID],
    );
    assert.deepEqual((await req('GET', '/v1/acl/roles', undefined, reader.SecretID)).json, []);
    const denied = await req('GET', `/v1/acl/role/${role.ID}`, undefined, reader.SecretID);
    assert.deepEqual([denied.status, denied.text], [403, 'Permission denied']);

    const path = await req('PUT', `/v1/acl/role/${role.ID}`, { ID: 'other', Name: 'ops', Policies: [{ Name: 'secret' }] });
    assert.deepEqual([path.status, path.text], [400, 'ACL role ID does not match request path']);
    const renamed = await req('PUT', `/v1/acl/role/${role.ID}`, { ID: role.ID, Name: 'operators', Policies: [{ Name: 'secret' }, { Name: 'reader' }] });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.json.Name, renamed.json.CreateIndex], ['operators', role.CreateIndex]);
    assert.deepEqual((await req('GET', `/v1/acl/token/${t.AccessorID}`)).json.Roles, [{ ID: role.ID, Name: 'operators' }]);
    const byName = await req('GET', '/v1/acl/role/name/operators');
    assert.deepEqual([byName.status, byName.json.ID], [200, role.ID]);

    const del = await req('DELETE', `/v1/acl/role/${role.ID}`);
    assert.deepEqual([del.status, del.text], [200, '']);
    assert.equal(a.state.get(T.roles, role.ID), undefined);
    assert.deepEqual(
      [(await req('GET', `/v1/acl/role/${role.ID}`)).status, (await req('DELETE', `/v1/acl/role/${role.ID}`)).text],
      [404, 'ACL role not found'],
    );
    assert.equal((await req('GET', `/v1/acl/token/${t.AccessorID}`)).json.Roles, null);
  });

  it('blocks a read with ?index= until a write passes it', async () => {
    const first = await req('GET', '/v1/acl/policies');
    const index = Number(first.headers.get('x-sched-index'));
    let done = false;
    const pending = req('GET', `/v1/acl/policies?index=${index}&wait=10s`).then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(done, false);
    await req('PUT', '/v1/acl/policy/late', { Name: 'late', Rules: READ_DEFAULT });
    const r = await pending;
    assert.ok(Number(r.headers.get('x-sched-index')) > index);
    assert.ok(r.json.some((p: { Name: string }) => p.Name === 'late'));
  });

  it('applies the `anonymous` policy to requests without a token', async () => {
    assert.deepEqual((await req('GET', '/v1/acl/policies', undefined, null)).json, []);
    const missing = await req('GET', '/v1/acl/policy/anonymous', undefined, null);
    assert.deepEqual([missing.status, missing.text], [404, 'ACL policy not found']);
    await req('PUT', '/v1/acl/policy/anonymous', { Name: 'anonymous', Rules: READ_DEFAULT });
    assert.deepEqual(
      (await req('GET', '/v1/acl/policies', undefined, null)).json.map((p: { Name: string }) => p.Name),
      ['anonymous'],
    );
    assert.equal((await req('GET', '/v1/acl/policy/anonymous', undefined, null)).status, 200);
    const tokens = await req('GET', '/v1/acl/tokens', undefined, null);
    assert.deepEqual([tokens.status, tokens.text], [403, 'Permission denied']);
  });
});

describe('scheduler ACL endpoints with ACLs disabled, and in a non-authoritative region', () => {
  let off: TestAgent;
  let a: TestAgent;
  let b: TestAgent;
  before(async () => {
    [off, a] = await Promise.all([startAgent({ acl: { enabled: false } }), startAgent()]);
    b = await startAgent({ region: 'europe', authoritativeRegion: 'global', regionAddresses: { global: new URL(a.url).host } }, { root: null });
  });
  after(async () => {
    await Promise.all([off.stop(), b.stop()]);
    await a.stop();
  });

  it('answers every ACL route 400 `ACL support disabled`', async () => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/v1/acl/bootstrap'],
      ['GET', '/v1/acl/tokens'],
      ['GET', '/v1/acl/token/self'],
      ['POST', '/v1/acl/token', { Type: 'management' }],
      ['GET', '/v1/acl/policies'],
      ['PUT', '/v1/acl/policy/x', { Name: 'x', Rules: '' }],
      ['DELETE', '/v1/acl/policy/x'],
      ['GET', '/v1/acl/roles'],
      ['POST', '/v1/acl/role', { Name: 'x' }],
      ['GET', '/v1/acl/role/name/x'],
    ];
    for (const [method, path, body] of routes) {
      const r = await call(off.url, method, path, { token: ROOT, body });
      assert.deepEqual([r.status, r.text], [400, 'ACL support disabled'], `${method} ${path}`);
    }
  });

  it('forwards policy, role and global token writes to the authoritative region; local tokens stay', async () => {
    const p = await call(b.url, 'PUT', '/v1/acl/policy/fwd', { token: ROOT, body: { Name: 'fwd', Rules: READ_DEFAULT } });
    assert.equal(p.status, 200, p.text);
    assert.ok(a.state.get(T.policies, 'fwd'));
    const role = await call(b.url, 'POST', '/v1/acl/role', { token: ROOT, body: { Name: 'fwd', Policies: [{ Name: 'fwd' }] } });
    assert.equal(role.status, 200, role.text);
    assert.ok(a.state.get(T.roles, role.json.ID));
    const global = await call(b.url, 'POST', '/v1/acl/token', { token: ROOT, body: { Name: 'g', Type: 'client', Policies: ['fwd'], Global: true } });
    assert.equal(global.status, 200, global.text);
    assert.ok(a.state.get(T.tokens, global.json.AccessorID));
    // The root token lives in the authoritative region only (no replication token here): a local write is checked here.
    const local = await call(b.url, 'POST', '/v1/acl/token', { token: ROOT, body: { Name: 'l', Type: 'client', Policies: ['fwd'] } });
    assert.deepEqual([local.status, local.text], [403, 'Permission denied']);
    const boot = await call(b.url, 'POST', '/v1/acl/bootstrap');
    assert.equal(boot.status, 400);
    assert.match(boot.text, /^ACL bootstrap already done \(reset index: \d+\)$/);
  });
});
