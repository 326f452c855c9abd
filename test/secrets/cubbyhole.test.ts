/**
 * The `cubbyhole/` engine (issue 17 scope 2): storage private to each token, mounted in
 * every namespace, not removable, deleted with its token (revoked or expired).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listRecursive } from '../../src/kernel/store/index.js';
import { hashToken } from '../../src/services/secrets/token/store.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => (s = await startTestServer({ clock: () => new Date(now) })));
after(() => s.close());

async function token(body: Record<string, unknown> = {}): Promise<string> {
  const r = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['default'], ...body } });
  assert.equal(r.status, 200, r.text);
  return r.json.auth.client_token as string;
}

/** Every key stored for token `id`'s cubbyholes, all namespaces: `<namespace id>/<path>`. */
async function stored(id: string): Promise<string[]> {
  const prefix = `sys/cubbyhole/${hashToken(id)}/`;
  return (await listRecursive(s.service.core.backend, prefix)).map((k) => k.slice(prefix.length));
}

describe('cubbyhole', () => {
  it("is private to each token: the same path holds different data, and root cannot see another token's", async () => {
    const a = await token();
    const b = await token();
    assert.equal((await s.call('POST', '/v1/cubbyhole/app/cfg', { token: a, body: { owner: 'a' } })).status, 204);
    assert.equal((await s.call('PUT', '/v1/cubbyhole/app/cfg', { token: b, body: { owner: 'b' } })).status, 204);
    const ra = await s.call('GET', '/v1/cubbyhole/app/cfg', { token: a });
    assert.equal(ra.status, 200, ra.text);
    assert.deepEqual(ra.json.data, { owner: 'a' });
    assert.equal(ra.json.mount_type, 'cubbyhole');
    assert.equal(ra.json.lease_duration, 0);
    assert.deepEqual((await s.call('GET', '/v1/cubbyhole/app/cfg', { token: b })).json.data, { owner: 'b' });
    assert.equal((await s.call('GET', '/v1/cubbyhole/app/cfg')).status, 404, 'root has its own, empty cubbyhole');
    const stray = await token();
    assert.equal((await s.call('GET', '/v1/cubbyhole/app/cfg', { token: stray })).status, 404);
    assert.equal((await s.call('LIST', '/v1/cubbyhole/', { token: stray })).status, 404);
  });

  it('lists, overwrites and deletes; a write needs data', async () => {
    const t = await token();
    for (const p of ['a', 'dir/b', 'dir/c']) assert.equal((await s.call('POST', `/v1/cubbyhole/${p}`, { token: t, body: { v: p } })).status, 204);
    assert.deepEqual((await s.call('LIST', '/v1/cubbyhole/', { token: t })).json.data.keys, ['a', 'dir/']);
    assert.deepEqual((await s.call('GET', '/v1/cubbyhole/dir?list=true', { token: t })).json.data.keys, ['b', 'c']);
    assert.equal((await s.call('POST', '/v1/cubbyhole/a', { token: t, body: { w: 2 } })).status, 204);
    assert.deepEqual((await s.call('GET', '/v1/cubbyhole/a', { token: t })).json.data, { w: 2 });
    const empty = await s.call('POST', '/v1/cubbyhole/a', { token: t, body: {} });
    assert.deepEqual([empty.status, empty.json], [400, { errors: ['missing data fields'] }]);
    assert.equal((await s.call('DELETE', '/v1/cubbyhole/a', { token: t })).status, 204);
    assert.equal((await s.call('GET', '/v1/cubbyhole/a', { token: t })).status, 404);
    assert.equal((await s.call('GET', '/v1/cubbyhole/a', { token: null })).status, 403);
  });

  it('is destroyed with its token: revoked, revoked with its parent, or expired', async () => {
    const t = await token();
    await s.call('POST', '/v1/cubbyhole/x', { token: t, body: { v: 1 } });
    assert.deepEqual(await stored(t), ['root/x']);
    assert.equal((await s.call('POST', '/v1/auth/token/revoke-self', { token: t })).status, 204);
    assert.deepEqual(await stored(t), []);

    await s.call('PUT', '/v1/sys/policies/acl/maker', { body: { policy: 'path "auth/token/create" { capabilities = ["update"] }' } });
    const parent = await token({ policies: ['default', 'maker'] });
    const child = (await s.call('POST', '/v1/auth/token/create', { token: parent, body: {} })).json.auth.client_token as string;
    await s.call('POST', '/v1/cubbyhole/x', { token: child, body: { v: 1 } });
    assert.equal((await s.call('POST', '/v1/auth/token/revoke', { body: { token: parent } })).status, 204);
    assert.deepEqual(await stored(child), []);

    const shortLived = await token({ ttl: '1m' });
    await s.call('POST', '/v1/cubbyhole/x', { token: shortLived, body: { v: 1 } });
    now += 61_000;
    try {
      assert.equal((await s.call('GET', '/v1/cubbyhole/x', { token: shortLived })).status, 403);
      assert.deepEqual(await stored(shortLived), [], 'the lookup that found it expired revoked it with its cubbyhole');
    } finally {
      now -= 61_000;
    }
  });

  it('is mounted in every namespace, separately, and cannot be unmounted or mounted over', async () => {
    const mounts = await s.call('GET', '/v1/sys/mounts');
    assert.equal(mounts.json.data['cubbyhole/'].type, 'cubbyhole');
    assert.equal((await s.call('POST', '/v1/sys/namespaces/team', {})).status, 200);
    const ns = { 'X-Secrets-Namespace': 'team' };
    const inNs = await s.call('GET', '/v1/sys/mounts', { headers: ns });
    assert.equal(inNs.json.data['cubbyhole/'].type, 'cubbyhole');
    assert.equal((await s.call('POST', '/v1/cubbyhole/k', { headers: ns, body: { v: 'team' } })).status, 204);
    assert.equal((await s.call('POST', '/v1/cubbyhole/k', { body: { v: 'root' } })).status, 204);
    assert.equal((await s.call('GET', '/v1/team/cubbyhole/k')).json.data.v, 'team');
    assert.equal((await s.call('GET', '/v1/cubbyhole/k')).json.data.v, 'root');

    const del = await s.call('DELETE', '/v1/sys/mounts/cubbyhole');
    assert.deepEqual([del.status, del.json], [400, { errors: ['cannot unmount "cubbyhole/"'] }]);
    assert.equal((await s.call('POST', '/v1/sys/mounts/cubbyhole', { body: { type: 'kv' } })).status, 400);
    assert.equal((await s.call('GET', '/v1/cubbyhole/k')).json.data.v, 'root', 'still there');
  });
});
