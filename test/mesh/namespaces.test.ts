/**
 * Namespaces with the enterprise switch (spec 001 "Namespace resolution"; reference/mesh.md
 * §7; issue 5 scope 6): every level of the five-level resolution with a visible effect,
 * isolation between namespaces, namespace CRUD and its errors, login in a namespace, and
 * the community edition unchanged, and replication of namespaced objects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { call, startAgent, type Reply, type TestAgent } from './helpers.js';

const ROOT = '7f3e9c5a-1d4b-4e8f-8a2c-3b4c5d6e7f81';

/** Calls with the root token plus a namespace header when given. */
async function req(base: string, method: string, path: string, o: { token?: string; body?: unknown; header?: string } = {}): Promise<Reply> {
  return call(base, method, path, { token: o.token ?? ROOT, body: o.body, headers: o.header === undefined ? undefined : { 'X-Mesh-Namespace': o.header } });
}

/** Polls `f` until `done` holds (at most 20 s). */
async function waitFor<T>(f: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (const end = Date.now() + 20_000; ;) {
    const v = await f();
    if (done(v)) return v;
    if (Date.now() > end) assert.fail(`not met: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ok = (r: Reply) => {
  assert.equal(r.status, 200, r.text);
  return r.json;
};

describe('namespaces (enterprise)', () => {
  let a: TestAgent;
  let ce: TestAgent;
  const go = (method: string, path: string, o?: { token?: string; body?: unknown; header?: string }) => req(a.url, method, path, o);

  before(async () => {
    [a, ce] = await Promise.all([startAgent({ initialManagement: ROOT }, { enterprise: true }), startAgent({ initialManagement: ROOT })]);
    ok(await go('PUT', '/v1/namespace', { body: { Name: 'team-a', Description: 'Team A' } }));
    ok(await go('PUT', '/v1/namespace', { body: { Name: 'team-b' } }));
  });
  after(async () => {
    await Promise.all([a?.stop(), ce?.stop()]);
  });

  it('namespace CRUD: default always there, create, read, update, list, errors', async () => {
    const list = ok(await go('GET', '/v1/namespaces')).map((n: { Name: string }) => n.Name);
    assert.deepEqual(list, ['default', 'team-a', 'team-b']);
    const d = ok(await go('GET', '/v1/namespace/default'));
    assert.equal(d.Description, 'Builtin Default Namespace');
    assert.equal(ok(await go('PUT', '/v1/namespace/team-b', { body: { Description: 'Team B' } })).Description, 'Team B');
    const dup = await go('PUT', '/v1/namespace', { body: { Name: 'team-a' } });
    assert.deepEqual([dup.status, dup.text], [400, 'Namespace "team-a" already exists']);
    const bad = await go('PUT', '/v1/namespace', { body: { Name: 'no/slash' } });
    assert.deepEqual([bad.status, bad.text], [400, 'Invalid Namespace name "no/slash": it must be a valid DNS hostname label']);
    const mismatch = await go('PUT', '/v1/namespace/team-b', { body: { Name: 'team-c' } });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'Namespace name in URL and payload do not match']);
    const missing = await go('GET', '/v1/namespace/nope');
    assert.deepEqual([missing.status, missing.text], [404, 'Namespace "nope" does not exist']);
    const upd = await go('PUT', '/v1/namespace/nope', { body: { Description: 'x' } });
    assert.equal(upd.status, 404);
    const del = await go('DELETE', '/v1/namespace/default');
    assert.deepEqual([del.status, del.text], [400, 'Cannot delete the default namespace']);
    const anon = await call(a.url, 'GET', '/v1/namespaces');
    assert.equal(anon.status, 403, 'operator:read needed');
  });

  it('level 1 > 2 > 3 > 5: the same policy name in two namespaces, chosen by body, ?ns=, header, else default', async () => {
    const inA = ok(await go('PUT', '/v1/acl/policy', { body: { Name: 'shared', Rules: 'key_prefix "" { policy = "read" }', Namespace: 'team-a' } }));
    const inB = ok(await go('PUT', '/v1/acl/policy?ns=team-b', { body: { Name: 'shared', Rules: 'key_prefix "" { policy = "write" }' } }));
    const inDefault = ok(await go('PUT', '/v1/acl/policy', { body: { Name: 'shared' } }));
    assert.deepEqual([inA.Namespace, inB.Namespace, inDefault.Namespace], ['team-a', 'team-b', 'default']);
    // level 1 (body) beats level 2 (?ns=)
    const bodyWins = ok(await go('PUT', '/v1/acl/policy?ns=team-b', { body: { Name: 'body-wins', Namespace: 'team-a' } }));
    assert.equal(bodyWins.Namespace, 'team-a');
    // level 2 (?ns=) beats level 3 (header)
    assert.equal(ok(await go('GET', '/v1/acl/policy/name/shared?ns=team-b', { header: 'team-a' })).ID, inB.ID);
    // level 3 (header) alone
    assert.equal(ok(await go('GET', '/v1/acl/policy/name/shared', { header: 'team-a' })).ID, inA.ID);
    // level 5 (default)
    assert.equal(ok(await go('GET', '/v1/acl/policy/name/shared')).ID, inDefault.ID);
  });

  it('level 4: a token of team-a acts in team-a when nothing else is given, and only there', async () => {
    ok(await go('PUT', '/v1/acl/policy?ns=team-a', { body: { Name: 'ns-admin', Rules: 'acl = "write"' } }));
    const admin = ok(await go('PUT', '/v1/acl/token', { body: { Namespace: 'team-a', Policies: [{ Name: 'ns-admin' }] } }));
    assert.equal(admin.Namespace, 'team-a');
    const made = ok(await go('PUT', '/v1/acl/policy', { token: admin.SecretID, body: { Name: 'made-by-token' } }));
    assert.equal(made.Namespace, 'team-a');
    const names = ok(await go('GET', '/v1/acl/policies', { token: admin.SecretID })).map((p: { Name: string }) => p.Name);
    assert.ok(names.includes('made-by-token') && names.includes('ns-admin') && !names.includes('global-management'), String(names));
    // a token of team-a may not name another namespace
    const other = await go('GET', '/v1/acl/policies?ns=team-b', { token: admin.SecretID });
    assert.equal(other.status, 403);
    assert.match(other.text, /^Permission denied: .* belongs to namespace "team-a" and cannot act in namespace "team-b"$/);
  });

  it('isolation: a policy of team-a is not visible, linkable or deletable from team-b', async () => {
    const p = ok(await go('PUT', '/v1/acl/policy?ns=team-a', { body: { Name: 'only-a' } }));
    const read = await go('GET', `/v1/acl/policy/${p.ID}?ns=team-b`);
    assert.deepEqual([read.status, read.text], [404, 'Requested policy not found in namespace team-b: ACL not found']);
    assert.equal((await go('GET', '/v1/acl/policy/name/only-a?ns=team-b')).status, 404);
    const link = await go('PUT', '/v1/acl/token?ns=team-b', { body: { Policies: [{ ID: p.ID }] } });
    assert.deepEqual([link.status, link.text], [400, `No such ACL policy with ID "${p.ID}"`]);
    const byName = await go('PUT', '/v1/acl/role?ns=team-b', { body: { Name: 'r', Policies: [{ Name: 'only-a' }] } });
    assert.deepEqual([byName.status, byName.text], [400, 'No such ACL policy with name "only-a"']);
    ok(await go('DELETE', `/v1/acl/policy/${p.ID}?ns=team-b`));
    assert.equal(ok(await go('GET', `/v1/acl/policy/${p.ID}?ns=team-a`)).Name, 'only-a', 'still there');
    const bNames = ok(await go('GET', '/v1/acl/policies?ns=team-b')).map((x: { Name: string }) => x.Name);
    assert.ok(!bNames.includes('only-a'));
  });

  it('ns=* lists every namespace; a namespace that does not exist is refused', async () => {
    const all = ok(await go('GET', '/v1/acl/policies?ns=*')).filter((p: { Name: string }) => p.Name === 'shared');
    assert.deepEqual(all.map((p: { Namespace: string }) => p.Namespace).sort(), ['default', 'team-a', 'team-b']);
    const missing = await go('GET', '/v1/acl/policies?ns=nope');
    assert.deepEqual([missing.status, missing.text], [400, 'Namespace "nope" does not exist']);
    const write = await go('PUT', '/v1/acl/role', { body: { Name: 'r', Namespace: 'nope' } });
    assert.deepEqual([write.status, write.text], [400, 'Namespace "nope" does not exist']);
    const star = await go('GET', '/v1/acl/policy/name/shared?ns=*');
    assert.deepEqual([star.status, star.text], [400, 'Namespace "*" does not exist'], '* on list endpoints only');
  });

  it('login: the auth method, its rules, roles and the token live in the resolved namespace', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const config = {
      JWTValidationPubKeys: [await exportSPKI(publicKey)],
      JWTSupportedAlgs: ['ES256'],
      BoundAudiences: ['cairn'],
      ClaimMappings: { sub: 'user' },
    };
    ok(await go('PUT', '/v1/acl/role?ns=team-b', { body: { Name: 'dev', Policies: [{ Name: 'shared' }] } }));
    const m = ok(await go('PUT', '/v1/acl/auth-method', { body: { Name: 'jwt', Type: 'jwt', Config: config, Namespace: 'team-b' } }));
    assert.equal(m.Namespace, 'team-b');
    ok(await go('PUT', '/v1/acl/binding-rule?ns=team-b', { body: { AuthMethod: 'jwt', BindType: 'role', BindName: 'dev' } }));
    const jwt = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'ES256' })
      .setAudience('cairn')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const inDefault = await call(a.url, 'POST', '/v1/acl/login', { body: { AuthMethod: 'jwt', BearerToken: jwt } });
    assert.deepEqual([inDefault.status, inDefault.text], [403, 'ACL not found: auth method "jwt" not found']);
    const t = ok(await call(a.url, 'POST', '/v1/acl/login', { body: { AuthMethod: 'jwt', BearerToken: jwt, Namespace: 'team-b' } }));
    assert.equal(t.Namespace, 'team-b');
    assert.deepEqual(
      t.Roles.map((r: { Name: string }) => r.Name),
      ['dev'],
    );
    const viaQuery = ok(await call(a.url, 'POST', '/v1/acl/login?ns=team-b', { body: { AuthMethod: 'jwt', BearerToken: jwt } }));
    assert.equal(viaQuery.Namespace, 'team-b');
    const self = ok(await go('GET', '/v1/acl/token/self', { token: t.SecretID }));
    assert.equal(self.Namespace, 'team-b');
  });

  it('deleting a namespace deletes what it holds', async () => {
    ok(await go('PUT', '/v1/namespace', { body: { Name: 'gone' } }));
    const p = ok(await go('PUT', '/v1/acl/policy?ns=gone', { body: { Name: 'p' } }));
    const t = ok(await go('PUT', '/v1/acl/token?ns=gone', { body: { Policies: [{ ID: p.ID }] } }));
    ok(await go('DELETE', '/v1/namespace/gone'));
    assert.equal((await go('GET', '/v1/namespace/gone')).status, 404);
    assert.equal((await go('GET', '/v1/acl/policies?ns=gone')).status, 400);
    const ids = ok(await go('GET', '/v1/acl/tokens?ns=*')).map((x: { AccessorID: string }) => x.AccessorID);
    assert.ok(!ids.includes(t.AccessorID));
    // the name is free again, and empty
    ok(await go('PUT', '/v1/namespace', { body: { Name: 'gone' } }));
    assert.deepEqual(ok(await go('GET', '/v1/acl/policies?ns=gone')), []);
  });

  it('community edition: no Namespace in responses, ?ns= and the header refused, no namespace endpoints', async () => {
    const p = ok(await req(ce.url, 'PUT', '/v1/acl/policy', { body: { Name: 'x', Namespace: 'team-a' } }));
    assert.equal('Namespace' in p, false, 'body Namespace ignored, not shown');
    const q = await req(ce.url, 'GET', '/v1/acl/policies?ns=team-a');
    assert.deepEqual([q.status, q.text], [400, 'Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature']);
    const h = await req(ce.url, 'GET', '/v1/acl/policies', { header: 'team-a' });
    assert.deepEqual([h.status, h.text], [400, 'Invalid header: "X-Mesh-Namespace" - Namespaces are a Consul Enterprise feature']);
    assert.equal((await req(ce.url, 'GET', '/v1/namespaces')).status, 404);
    const t = ok(await req(ce.url, 'GET', '/v1/acl/token/self'));
    assert.equal('Namespace' in t, false);
  });
});

describe('namespaces across datacenters (enterprise)', { timeout: 60_000 }, () => {
  it('a policy of team-a arrives in the secondary with its namespace, which is replicated first', async () => {
    const primary = await startAgent({ initialManagement: ROOT }, { enterprise: true });
    const secondary = await startAgent(
      { tokenReplication: true, replicationToken: ROOT },
      { enterprise: true, datacenter: 'dc2', primaryDatacenter: 'dc1', wanAddresses: { dc1: new URL(primary.url).host } },
      { replicationWaitMs: 2000, replicationBackoffMs: 200 },
    );
    try {
      await waitFor(
        () => req(secondary.url, 'GET', '/v1/acl/token/self'),
        (r) => r.status === 200,
      );
      ok(await req(primary.url, 'PUT', '/v1/namespace', { body: { Name: 'team-a', Description: 'A' } }));
      const p = ok(await req(primary.url, 'PUT', '/v1/acl/policy?ns=team-a', { body: { Name: 'shared' } }));
      const there = await waitFor(
        () => req(secondary.url, 'GET', `/v1/acl/policy/${p.ID}?ns=team-a`),
        (r) => r.status === 200,
      );
      assert.deepEqual([there.json.Namespace, there.json.Hash], ['team-a', p.Hash]);
      assert.equal(ok(await req(secondary.url, 'GET', '/v1/namespace/team-a')).Description, 'A');
      // a namespace write sent to the secondary goes to the primary
      ok(await req(secondary.url, 'PUT', '/v1/namespace', { body: { Name: 'team-b' } }));
      assert.equal((await req(primary.url, 'GET', '/v1/namespace/team-b')).status, 200);
      // deleting the namespace in the primary removes it and its policy in the secondary
      ok(await req(primary.url, 'DELETE', '/v1/namespace/team-a'));
      await waitFor(
        () => req(secondary.url, 'GET', '/v1/namespace/team-a'),
        (r) => r.status === 404,
      );
      await waitFor(
        () => req(secondary.url, 'GET', '/v1/acl/policies?ns=*'),
        (r) => !r.json.some((x: { ID: string }) => x.ID === p.ID),
      );
    } finally {
      await secondary.stop();
      await primary.stop();
    }
  });
});
