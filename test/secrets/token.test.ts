/**
 * Tokens, first step (issue 2): create, lookup-self, lookup, renew-self, revoke-self,
 * children revoked with the parent, expiry (reference/secrets.md §4.1, §4.3).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => (s = await startTestServer({ clock: () => new Date(now) })));
after(() => s.close());

async function create(body: unknown, token?: string) {
  const r = await s.call('POST', '/v1/auth/token/create', { body, token });
  assert.equal(r.status, 200, r.text);
  return r.json.auth as { client_token: string; accessor: string; policies: string[]; lease_duration: number };
}

describe('tokens', () => {
  it('root token looks itself up', async () => {
    const r = await s.call('GET', '/v1/auth/token/lookup-self');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.data.policies, ['root']);
    assert.equal(r.json.data.ttl, 0);
    assert.equal(r.json.data.expire_time, null);
    assert.equal(r.json.data.path, 'auth/token/root');
    assert.equal(r.json.data.id, s.rootToken);
  });

  it('creates a child token with the auth block and a default TTL of 768h', async () => {
    const auth = await create({ policies: ['default'], meta: { team: 'a' }, display_name: 'ci' });
    assert.match(auth.client_token, /^cs\.[A-Za-z0-9]{24}$/);
    assert.match(auth.accessor, /^[A-Za-z0-9]{24}$/);
    assert.deepEqual(auth.policies, ['default']);
    assert.equal(auth.lease_duration, 2764800);
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    assert.equal(self.status, 200);
    assert.equal(self.json.data.display_name, 'token-ci');
    assert.deepEqual(self.json.data.meta, { team: 'a' });
    assert.equal(self.json.data.orphan, false);
    const byRoot = await s.call('POST', '/v1/auth/token/lookup', { body: { token: auth.client_token } });
    assert.equal(byRoot.json.data.accessor, auth.accessor);
    const byAccessor = await s.call('POST', '/v1/auth/token/lookup-accessor', { body: { accessor: auth.accessor } });
    assert.equal(byAccessor.json.data.id, '', 'an accessor lookup never shows the token');
  });

  it('a default-policy token may use its own token endpoints and nothing else', async () => {
    const auth = await create({ policies: ['default'] });
    const denied = await s.call('GET', '/v1/secret/data/x', { token: auth.client_token });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.json, { errors: ['permission denied'] });
    assert.equal((await s.call('GET', '/v1/sys/mounts', { token: auth.client_token })).status, 403);
    const child = await s.call('POST', '/v1/auth/token/create', { token: auth.client_token, body: {} });
    assert.equal(child.status, 403);
  });

  it('expires tokens at their TTL and renews them', async () => {
    const auth = await create({ ttl: '1h', policies: ['default'] });
    assert.equal(auth.lease_duration, 3600);
    now += 30 * 60_000;
    const renewed = await s.call('POST', '/v1/auth/token/renew-self', { token: auth.client_token, body: { increment: '2h' } });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.json.auth.lease_duration, 7200);
    now += 2 * 3600_000 + 1000;
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token })).status, 403);
  });

  it('revoke-self revokes the token and its children', async () => {
    const parent = await create({ policies: ['default'] });
    // A default-policy token may not create children; root creates one under the parent's name via the store.
    const core = s.service.core;
    const parentEntry = await core.tokens.lookup(parent.client_token, core.now());
    const child = await core.tokens.create({ policies: ['default'], parent: parentEntry, path: 'auth/token/create', now: core.now() });
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: child.id })).status, 200);
    assert.equal((await s.call('POST', '/v1/auth/token/revoke-self', { token: parent.client_token })).status, 204);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: parent.client_token })).status, 403);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: child.id })).status, 403);
    const gone = await s.call('POST', '/v1/auth/token/lookup-accessor', { body: { accessor: parent.accessor } });
    assert.equal(gone.status, 400);
  });

  it('revokes by accessor, children included; an unknown accessor is a 400', async () => {
    const auth = await create({ policies: ['default'] });
    assert.equal((await s.call('POST', '/v1/auth/token/revoke-accessor', { body: { accessor: auth.accessor } })).status, 204);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token })).status, 403);
    const again = await s.call('POST', '/v1/auth/token/revoke-accessor', { body: { accessor: auth.accessor } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.json, { errors: ['invalid accessor'] });
    assert.equal((await s.call('POST', '/v1/auth/token/revoke-accessor', { body: {} })).status, 400);
  });

  it('refuses bad input on create and changes nothing', async () => {
    for (const body of [{ ttl: 'forever' }, { policies: { a: 1 } }, { meta: 'x' }, { renewable: 'maybe' }]) {
      const r = await s.call('POST', '/v1/auth/token/create', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.json.errors[0].length > 0);
    }
    const fixed = await create({ id: 'my-fixed-token', policies: ['default'] });
    assert.equal(fixed.client_token, 'my-fixed-token');
    const dup = await s.call('POST', '/v1/auth/token/create', { body: { id: 'my-fixed-token' } });
    assert.equal(dup.status, 400);
  });
});
