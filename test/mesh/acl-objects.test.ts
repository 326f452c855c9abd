/**
 * Tokens, policies and roles over HTTP (reference/mesh.md §0, §6): CRUD, enforcement with
 * the reference's 403 texts, secrets hidden without `acl:write`, bad input (400 naming
 * the problem, nothing changed), the HTTP conventions (405 + Allow, 404 text, ?pretty,
 * query-meta headers) and blocking queries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '5d1c7a3e-9b2f-4c6d-8e0a-1f2b3c4d5e6f';

describe('discovery ACL objects', () => {
  let a: TestAgent;
  const as = (token: string) => ({
    get: (p: string) => call(a.url, 'GET', p, { token }),
    put: (p: string, body?: unknown) => call(a.url, 'PUT', p, { token, body }),
    del: (p: string) => call(a.url, 'DELETE', p, { token }),
  });
  const root = () => as(ROOT);

  before(async () => {
    a = await startAgent({ initialManagement: ROOT });
  });
  after(() => a.stop());

  it('policies: create, read by id and name, list stubs, rename, delete; bad input is 400 and changes nothing', async () => {
    const p = await root().put('/v1/acl/policy', { Name: 'node-read', Description: 'nodes', Rules: 'node_prefix "" { policy = "read" }' });
    assert.equal(p.status, 200);
    assert.deepEqual(Object.keys(p.json).sort(), ['CreateIndex', 'Description', 'Hash', 'ID', 'ModifyIndex', 'Name', 'Rules']);
    assert.equal((await root().get(`/v1/acl/policy/${p.json.ID}`)).json.Rules, 'node_prefix "" { policy = "read" }');
    assert.equal((await root().get('/v1/acl/policy/name/node-read')).json.ID, p.json.ID);
    const listed = (await root().get('/v1/acl/policies')).json;
    assert.deepEqual(listed.map((x: { Name: string }) => x.Name).sort(), ['builtin/global-read-only', 'global-management', 'node-read']);
    assert.ok(
      listed.every((x: object) => !('Rules' in x)),
      'stubs carry no Rules',
    );

    const before = (await root().get('/v1/acl/policies')).headers.get('x-mesh-index');
    const bad = async (body: unknown, text: string | RegExp) => {
      const r = await root().put('/v1/acl/policy', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    };
    await bad({}, 'Invalid Policy: no Name is set');
    await bad({ Name: 'bad name' }, "Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    await bad({ Name: 'node-read' }, 'Invalid Policy: A Policy with Name "node-read" already exists');
    await bad({ Name: 'x', Rules: 'service "web" { policy = "admin" }' }, /^Invalid service policy/);
    await bad({ Name: 'x', Rules: 'servce "web" { policy = "read" }' }, /servce/);
    await bad({ Name: 'x', ID: p.json.ID }, 'Cannot specify the ID when creating a new policy');
    await bad({ Name: 7 }, 'Name must be a string');
    const raw = await call(a.url, 'PUT', '/v1/acl/policy', { token: ROOT, raw: '{"Name":' });
    assert.equal(raw.status, 400);
    assert.match(raw.text, /^Policy decoding failed: /);
    assert.equal((await root().get('/v1/acl/policies')).headers.get('x-mesh-index'), before, 'nothing changed');

    const renamed = await root().put(`/v1/acl/policy/${p.json.ID}`, { Name: 'nodes-read', Rules: p.json.Rules });
    assert.equal(renamed.json.Name, 'nodes-read');
    assert.equal(renamed.json.CreateIndex, p.json.CreateIndex);
    assert.ok(renamed.json.ModifyIndex > p.json.ModifyIndex);
    assert.equal(
      (await root().put(`/v1/acl/policy/${p.json.ID}`, { ID: '3f2b1c0d-0000-4000-8000-000000000000', Name: 'y' })).text,
      'Policy ID in URL and payload do not match',
    );
    const gm = '00000000-0000-0000-0000-000000000001';
    assert.equal(
      (await root().put(`/v1/acl/policy/${gm}`, { Name: 'global-management', Rules: 'acl = "read"' })).text,
      'Changing the Rules for the builtin global-management policy is not permitted',
    );
    assert.equal((await root().del(`/v1/acl/policy/${gm}`)).text, 'Delete operation not permitted on the builtin global-management policy');
    assert.equal((await root().del(`/v1/acl/policy/${p.json.ID}`)).text, 'true');
    const gone = await root().get(`/v1/acl/policy/${p.json.ID}`);
    assert.deepEqual([gone.status, gone.text], [404, 'Requested policy does not exist: ACL not found']);
    assert.equal((await root().get('/v1/acl/policy/not-a-uuid')).text, 'Policy ID invalid UUID');
  });

  it('tokens: create with links by name, read, update, clone, delete; enforcement and hidden secrets', async () => {
    const readOnly = await root().put('/v1/acl/policy', { Name: 'acl-read', Rules: 'acl = "read"' });
    const role = await root().put('/v1/acl/role', { Name: 'readers', Policies: [{ Name: 'acl-read' }] });
    assert.equal(role.status, 200);
    assert.deepEqual(role.json.Policies, [{ ID: readOnly.json.ID, Name: 'acl-read' }]);

    const t = await root().put('/v1/acl/token', { Description: 'ops', Roles: [{ Name: 'readers' }], ServiceIdentities: [{ ServiceName: 'web' }] });
    assert.equal(t.status, 200);
    assert.deepEqual(t.json.Roles, [{ ID: role.json.ID, Name: 'readers' }]);
    assert.equal(t.json.Local, false);
    assert.equal('Policies' in t.json, false, 'empty lists are left out');
    assert.match(t.json.SecretID, /^[0-9a-f-]{36}$/);

    // The reader (through its role) can read, sees no secrets, cannot write.
    const reader = as(t.json.SecretID);
    const seen = await reader.get(`/v1/acl/token/${t.json.AccessorID}`);
    assert.equal(seen.status, 200);
    assert.equal(seen.json.SecretID, '<hidden>');
    assert.ok((await reader.get('/v1/acl/tokens')).json.every((x: { SecretID: string }) => x.SecretID === '<hidden>'));
    const denied = await reader.put('/v1/acl/policy', { Name: 'nope' });
    assert.deepEqual([denied.status, denied.text], [403, `Permission denied: token with AccessorID '${t.json.AccessorID}' lacks permission 'acl:write'`]);
    const anon = await call(a.url, 'GET', '/v1/acl/tokens');
    assert.deepEqual(
      [anon.status, anon.text],
      [403, "Permission denied: anonymous token lacks permission 'acl:read'. The anonymous token is used implicitly when a request does not specify a token."],
    );
    const unknown = await as('1b2c3d4e-0000-4000-8000-000000000000').get('/v1/acl/tokens');
    assert.deepEqual([unknown.status, unknown.text], [403, 'ACL not found']);
    assert.equal((await reader.get('/v1/acl/token/self')).json.SecretID, t.json.SecretID, 'token/self shows its own secret');

    const bad = async (body: unknown, text: string) => {
      const r = await root().put('/v1/acl/token', body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    };
    await bad({ Policies: [{ Name: 'missing' }] }, 'No such ACL policy with name "missing"');
    await bad({ Roles: [{ ID: '9a8b7c6d-0000-4000-8000-000000000000' }] }, 'No such ACL role with ID "9a8b7c6d-0000-4000-8000-000000000000"');
    await bad({ AccessorID: 'nope' }, 'Invalid Token: AccessorID - not a valid UUID');
    await bad(
      { SecretID: '00000000-0000-0000-0000-000000000099' },
      'Invalid Token: SecretID - UUIDs with the prefix "00000000-0000-0000-0000-0000000000" are reserved',
    );
    await bad({ AccessorID: t.json.SecretID }, 'Invalid Token: AccessorID is already in use');
    await bad(
      { ServiceIdentities: [{ ServiceName: 'Web!' }] },
      `Service identity "Web!" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`,
    );
    await bad({ NodeIdentities: [{ NodeName: 'n1' }] }, 'Node identity is missing the datacenter field on this token');
    await bad({ ExpirationTTL: '10s' }, 'ExpirationTime cannot be less than 1m0s in the future (was 10s)');
    await bad({ ExpirationTTL: '1h', ExpirationTime: '2099-01-01T00:00:00Z' }, 'Token Expiration TTL and Expiration Time cannot both be set');
    await bad({ AuthMethod: 'k8s' }, 'AuthMethod field is disallowed outside of login');

    const expiring = await root().put('/v1/acl/token', { ExpirationTTL: '1h', Local: true });
    assert.ok(Math.abs(Date.parse(expiring.json.ExpirationTime) - Date.parse(expiring.json.CreateTime) - 3_600_000) < 5);
    assert.equal(expiring.json.Local, true);

    const updated = await root().put(`/v1/acl/token/${t.json.AccessorID}`, { Description: 'ops v2', Policies: [{ Name: 'acl-read' }] });
    assert.equal(updated.json.Description, 'ops v2');
    assert.equal('Roles' in updated.json, false, 'links are replaced wholesale');
    assert.notEqual(updated.json.Hash, t.json.Hash);
    assert.equal((await root().put(`/v1/acl/token/${t.json.AccessorID}`, { Local: true })).text, `Cannot toggle local mode of ${t.json.AccessorID}`);
    const cloned = await root().put(`/v1/acl/token/${t.json.AccessorID}/clone`, { Description: 'copy' });
    assert.equal(cloned.json.Description, 'copy');
    assert.deepEqual(cloned.json.Policies, updated.json.Policies);
    assert.notEqual(cloned.json.SecretID, t.json.SecretID);

    assert.equal((await reader.del(`/v1/acl/token/${cloned.json.AccessorID}`)).status, 403);
    assert.equal((await root().del(`/v1/acl/token/${cloned.json.AccessorID}`)).text, 'true');
    assert.equal((await root().get(`/v1/acl/token/${cloned.json.AccessorID}`)).text, 'Requested token does not exist: ACL not found');
    assert.equal((await as(cloned.json.SecretID).get('/v1/acl/token/self')).status, 403, 'a deleted token is unknown');
    assert.equal((await root().del('/v1/acl/token/00000000-0000-0000-0000-000000000002')).text, 'Delete operation not permitted on the anonymous token');
    const me = (await root().get('/v1/acl/token/self')).json.AccessorID;
    assert.equal((await root().del(`/v1/acl/token/${me}`)).text, "Deletion of the request's authorization token is not permitted");
    const byPolicy = (await root().get(`/v1/acl/tokens?policy=${readOnly.json.ID}`)).json;
    assert.deepEqual(
      byPolicy.map((x: { AccessorID: string }) => x.AccessorID),
      [t.json.AccessorID],
    );

    // A policy change applies to the next request of a token that holds it (no stale authorizer).
    assert.equal((await reader.put('/v1/acl/policy', { Name: 'by-reader' })).status, 403);
    await root().put(`/v1/acl/policy/${readOnly.json.ID}`, { Name: 'acl-read', Rules: 'acl = "write"' });
    assert.equal((await reader.put('/v1/acl/policy', { Name: 'by-reader' })).status, 200);
    await root().put(`/v1/acl/policy/${readOnly.json.ID}`, { Name: 'acl-read', Rules: 'acl = "read"' });
    assert.equal((await reader.put('/v1/acl/policy', { Name: 'by-reader-2' })).status, 403);
  });

  it('token reads stay current: renamed policies and roles, a deleted role, an update, secrets shown per caller, ?pretty', async () => {
    const policy = await root().put('/v1/acl/policy', { Name: 'cache-p1', Rules: 'acl = "read"' });
    const role = await root().put('/v1/acl/role', { Name: 'cache-r1', Policies: [{ Name: 'cache-p1' }] });
    const t = await root().put('/v1/acl/token', { Description: 'cached', Policies: [{ Name: 'cache-p1' }], Roles: [{ Name: 'cache-r1' }] });
    const path = `/v1/acl/token/${t.json.AccessorID}`;
    const read = async (token = ROOT) => (await as(token).get(path)).json;
    assert.deepEqual((await read()).Policies, [{ ID: policy.json.ID, Name: 'cache-p1' }]);
    assert.deepEqual(await read(), await read(), 'the same reply twice');
    // The token itself is unchanged: its links show the names as they are now.
    await root().put(`/v1/acl/policy/${policy.json.ID}`, { Name: 'cache-p2', Rules: 'acl = "read"' });
    assert.deepEqual((await read()).Policies, [{ ID: policy.json.ID, Name: 'cache-p2' }]);
    await root().put(`/v1/acl/role/${role.json.ID}`, { Name: 'cache-r2', Policies: [{ Name: 'cache-p2' }] });
    assert.deepEqual((await read()).Roles, [{ ID: role.json.ID, Name: 'cache-r2' }]);
    // The token's own reader (acl:read through its policy) sees it hidden; the management token in clear, alternately.
    assert.equal((await read(t.json.SecretID)).SecretID, '<hidden>');
    assert.equal((await read()).SecretID, t.json.SecretID);
    assert.equal((await read(t.json.SecretID)).SecretID, '<hidden>');
    const pretty = await call(a.url, 'GET', `${path}?pretty`, { token: ROOT });
    assert.equal(pretty.text, `${JSON.stringify(await read(), null, 4)}\n`);
    assert.equal((await root().del(`/v1/acl/role/${role.json.ID}`)).status, 200);
    assert.equal('Roles' in (await read()), false, 'a deleted role is no longer linked');
    const updated = await root().put(path, { Description: 'cached v2', Policies: [{ Name: 'cache-p2' }] });
    assert.equal((await read()).Description, 'cached v2');
    assert.equal((await read()).ModifyIndex, updated.json.ModifyIndex);
  });

  it('HTTP conventions: 405 with Allow, OPTIONS, 404 text, ?pretty, index headers, token in ?token= and Bearer', async () => {
    const m = await call(a.url, 'POST', '/v1/acl/tokens', { token: ROOT });
    assert.deepEqual([m.status, m.text, m.headers.get('allow')], [405, 'method POST not allowed', 'OPTIONS,GET']);
    const o = await call(a.url, 'OPTIONS', '/v1/acl/token/self');
    assert.deepEqual([o.status, o.headers.get('allow')], [200, 'OPTIONS,GET']);
    const nf = await call(a.url, 'GET', '/v1/nope', { token: ROOT });
    assert.deepEqual([nf.status, nf.text], [404, 'Invalid URL path: not a recognized HTTP API endpoint\n']);
    const r = await call(a.url, 'GET', `/v1/acl/policies?pretty&token=${ROOT}`);
    assert.equal(r.status, 200);
    assert.ok(r.text.startsWith('[\n    {'), 'pretty: 4-space indent');
    assert.ok(Number(r.headers.get('x-mesh-index')) >= 1);
    assert.equal(r.headers.get('x-mesh-knownleader'), 'true');
    assert.equal(r.headers.get('x-mesh-lastcontact'), '0');
    assert.equal(r.headers.get('x-mesh-default-acl-policy'), 'deny');
    const bearer = await fetch(`${a.url}/v1/acl/token/self`, { headers: { Authorization: `Bearer ${ROOT}` } });
    assert.equal(bearer.status, 200);
    assert.equal(
      (await call(a.url, 'GET', `/v1/acl/policies?stale&consistent&token=${ROOT}`)).text,
      'Cannot specify ?stale with ?consistent, conflicting semantics.',
    );
    const badStale = await call(a.url, 'GET', `/v1/acl/policies?max_stale=abc&token=${ROOT}`);
    assert.deepEqual([badStale.status, badStale.text], [400, 'Invalid max_stale value "abc"']);
    const staleAndConsistent = await call(a.url, 'GET', `/v1/acl/policies?max_stale=10s&consistent&token=${ROOT}`);
    assert.deepEqual([staleAndConsistent.status, staleAndConsistent.text], [400, 'Cannot specify ?stale with ?consistent, conflicting semantics.']);
    const zeroStale = await call(a.url, 'GET', `/v1/acl/policies?max_stale=0s&token=${ROOT}`);
    assert.deepEqual([zeroStale.status, zeroStale.headers.get('x-mesh-effective-consistency')], [200, 'leader'], 'max_stale=0 is no stale read');
    assert.equal((await call(a.url, 'GET', `/v1/acl/policies?max_stale=10s&token=${ROOT}`)).headers.get('x-mesh-effective-consistency'), 'stale');
    assert.equal((await call(a.url, 'GET', `/v1/acl/policies?index=x&token=${ROOT}`)).text, 'Invalid index');
    assert.equal((await call(a.url, 'GET', `/v1/acl/policies?index=1&wait=soon&token=${ROOT}`)).text, 'Invalid wait time');
    const noIndex = await call(a.url, 'GET', `/v1/acl/policies?wait=-1&token=${ROOT}`);
    assert.deepEqual([noIndex.status, noIndex.text], [400, 'Invalid wait time'], 'checked without index too');
  });

  it('blocking query: returns when a write lands, not before; at wait when nothing changes', async () => {
    const first = await root().get('/v1/acl/policies');
    const index = Number(first.headers.get('x-mesh-index'));
    let done = false;
    const t0 = performance.now();
    const waiting = call(a.url, 'GET', `/v1/acl/policies?index=${index}&wait=10s`, { token: ROOT }).then((r) => ((done = true), r));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(done, false, 'still blocked without a write');
    await root().put('/v1/acl/token', { Description: 'not a policy' });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(done, false, 'a token write does not wake a policies query');
    await root().put('/v1/acl/policy', { Name: 'wake-up' });
    const woke = await waiting;
    assert.ok(Number(woke.headers.get('x-mesh-index')) > index);
    assert.ok(woke.json.some((p: { Name: string }) => p.Name === 'wake-up'));
    assert.ok(performance.now() - t0 < 5000);

    const idle = Number(woke.headers.get('x-mesh-index'));
    const t1 = performance.now();
    const timedOut = await call(a.url, 'GET', `/v1/acl/policies?index=${idle}&wait=400ms`, { token: ROOT });
    const took = performance.now() - t1;
    assert.equal(timedOut.status, 200);
    assert.equal(Number(timedOut.headers.get('x-mesh-index')), idle);
    assert.ok(took >= 390 && took < 400 * (1 + 1 / 16) + 300, `waited ${took} ms`);
  });
});
