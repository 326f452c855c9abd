/**
 * Tokens (issues 2 and 3): create, lookup-self, lookup, lookup-accessor, renew-self, renew, renew-accessor,
 * revoke-self, revoke-accessor, revoke; trees revoked with their parent, by hand or by
 * expiry; TTL caps (reference/secrets.md §4.1, §4.3).
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

  it('renews another token by value (renew) and by accessor (renew-accessor, the token not shown), as clients such as hvac call them', async () => {
    const auth = await create({ ttl: '1h', policies: ['default'] });
    now += 30 * 60_000;
    const renewed = await s.call('POST', '/v1/auth/token/renew', { body: { token: auth.client_token, increment: '2h' } });
    assert.equal(renewed.status, 200, renewed.text);
    assert.deepEqual([renewed.json.auth.client_token, renewed.json.auth.accessor, renewed.json.auth.lease_duration], [auth.client_token, auth.accessor, 7200]);
    const byAccessor = await s.call('POST', '/v1/auth/token/renew-accessor', { body: { accessor: auth.accessor, increment: '3h' } });
    assert.equal(byAccessor.status, 200, byAccessor.text);
    assert.deepEqual([byAccessor.json.auth.client_token, byAccessor.json.auth.accessor, byAccessor.json.auth.lease_duration], ['', auth.accessor, 10800]);
    const looked = await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    assert.equal(looked.json.data.ttl, 10800, 'the renewal is stored');

    // Unknown tokens and accessors, a missing field, a token that is not renewable: 400, nothing renewed.
    const cases: [string, object, string][] = [
      ['renew', { token: 'hvs.not-a-token-000000000000' }, 'token not found'],
      ['renew', {}, 'missing required field "token"'],
      ['renew-accessor', { accessor: 'not-an-accessor' }, 'invalid accessor'],
      ['renew', { token: auth.client_token, increment: '-1h' }, 'increment: must not be negative'],
    ];
    for (const [path, body, error] of cases) {
      const r = await s.call('POST', `/v1/auth/token/${path}`, { body });
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(r.json.errors, [error]);
    }
    const fixed = await create({ ttl: '1h', policies: ['default'], renewable: false });
    const refused = await s.call('POST', '/v1/auth/token/renew', { body: { token: fixed.client_token } });
    assert.equal(refused.status, 400);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token })).json.data.ttl, 10800, 'unchanged by the refused calls');
    // Not in the default policy: a token cannot renew another by value without a grant.
    const byDefault = await s.call('POST', '/v1/auth/token/renew', { token: fixed.client_token, body: { token: auth.client_token } });
    assert.equal(byDefault.status, 403);
  });

  it('creates a periodic token (root only): each renewal resets its TTL to the period, past the mount maximum', async () => {
    const auth = await create({ policies: ['default'], period: '1h', no_parent: true });
    assert.equal(auth.lease_duration, 3600);
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    assert.deepEqual([self.json.data.period, self.json.data.orphan, self.json.data.renewable], [3600, true, true]);
    now += 50 * 60_000;
    const renewed = await s.call('POST', '/v1/auth/token/renew-self', { token: auth.client_token, body: { increment: '5h' } });
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal(renewed.json.auth.lease_duration, 3600);
    const policy = 'path "auth/token/create" { capabilities = ["update"] }';
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/token-maker', { body: { policy } })).status, 204);
    const maker = await create({ policies: ['token-maker'] });
    const refused = await s.call('POST', '/v1/auth/token/create', { token: maker.client_token, body: { period: '1h' } });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.json.errors, ['root or sudo privileges required to create periodic token']);
  });

  it('revokes the whole tree with its parent: revoke-self, revoke-accessor, revoke', async () => {
    const maker = 'path "auth/token/create" { capabilities = ["update"] }\npath "secret/data/*" { capabilities = ["read"] }';
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/maker', { body: { policy: maker } })).status, 204);
    /** A tree of four tokens made over HTTP: parent → child → grandchild, parent → sibling. */
    const tree = async () => {
      const parent = await create({ policies: ['maker'] });
      const child = await create({ policies: ['maker'] }, parent.client_token);
      const grandchild = await create({ policies: ['maker'] }, child.client_token);
      const sibling = await create({ policies: ['maker'] }, parent.client_token);
      return { parent, child, grandchild, sibling };
    };
    const live = async (t: { client_token: string }) => (await s.call('GET', '/v1/auth/token/lookup-self', { token: t.client_token })).status === 200;
    const orphan = await create({ policies: ['maker'], no_parent: true });

    const a = await tree();
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: a.grandchild.client_token })).json.data.orphan, false);
    assert.equal((await s.call('POST', '/v1/auth/token/revoke-self', { token: a.child.client_token })).status, 204);
    assert.deepEqual(await Promise.all([a.parent, a.child, a.grandchild, a.sibling].map(live)), [true, false, false, true], 'a subtree goes, the rest stays');
    const gone = await s.call('POST', '/v1/auth/token/lookup-accessor', { body: { accessor: a.grandchild.accessor } });
    assert.equal(gone.status, 400);
    assert.deepEqual(gone.json, { errors: ['invalid accessor'] });

    assert.equal((await s.call('POST', '/v1/auth/token/revoke-accessor', { body: { accessor: a.parent.accessor } })).status, 204);
    assert.deepEqual(await Promise.all([a.parent, a.sibling].map(live)), [false, false]);

    const b = await tree();
    assert.equal((await s.call('POST', '/v1/auth/token/revoke', { body: { token: b.parent.client_token } })).status, 204);
    assert.deepEqual(await Promise.all([b.parent, b.child, b.grandchild, b.sibling].map(live)), [false, false, false, false]);
    assert.equal(await live(orphan), true, 'an orphan belongs to no tree');
  });

  it('revokes children when their parent expires, even if they would live longer', async () => {
    const parent = await create({ policies: ['maker'], ttl: '1h' });
    const child = await create({ policies: ['maker'], ttl: '10h' }, parent.client_token);
    assert.equal(child.lease_duration, 36000);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: child.client_token })).status, 200, 'alive while its parent is');
    now += 3600_000 + 1000;
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: child.client_token })).status, 403, 'dead with its parent');
    assert.equal((await s.call('POST', '/v1/auth/token/lookup-accessor', { body: { accessor: child.accessor } })).status, 400);
    const lookup = await s.call('POST', '/v1/auth/token/lookup', { body: { token: child.client_token } });
    assert.deepEqual([lookup.status, lookup.json], [403, { errors: ['bad token'] }], "the reference's handleLookup: permission denied");
  });

  it('a child lives on while its renewed parent does, and dies with it', async () => {
    const parent = await create({ policies: ['maker'], ttl: '1h' });
    const child = await create({ policies: ['maker'], ttl: '10h' }, parent.client_token);
    const alive = async () => (await s.call('GET', '/v1/auth/token/lookup-self', { token: child.client_token })).status;
    assert.equal(await alive(), 200);
    now += 45 * 60_000;
    assert.equal((await s.call('POST', '/v1/auth/token/renew-self', { token: parent.client_token, body: { increment: '2h' } })).status, 200);
    now += 15 * 60_000 + 1000;
    assert.equal(await alive(), 200, "past the parent's first expiry: the renewal counts");
    now += 105 * 60_000;
    assert.equal(await alive(), 403, 'dead once the renewed parent expires');
  });

  it('caps TTLs at the maximum with a warning, on create and on renewal', async () => {
    const long = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['default'], ttl: '10000h' } });
    assert.equal(long.status, 200);
    assert.equal(long.json.auth.lease_duration, 2764800);
    assert.deepEqual(long.json.warnings, ['TTL of "10000h0m0s" exceeded the effective max_ttl of "768h0m0s"; TTL value is capped accordingly']);
    const bounded = await create({ policies: ['default'], ttl: '1h', explicit_max_ttl: '90m' });
    assert.equal(bounded.lease_duration, 3600);
    now += 45 * 60_000;
    const renewed = await s.call('POST', '/v1/auth/token/renew-self', { token: bounded.client_token, body: { increment: '1h' } });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.json.auth.lease_duration, 2700, 'no further than creation + explicit_max_ttl');
    assert.deepEqual(renewed.json.warnings, ['TTL of "1h0m0s" exceeded the effective max_ttl of "1h30m0s"; TTL value is capped accordingly']);
    const plain = await create({ policies: ['default'] });
    const huge = await s.call('POST', '/v1/auth/token/renew-self', { token: plain.client_token, body: { increment: '100000h' } });
    assert.equal(huge.json.auth.lease_duration, 2764800, 'no further than creation + 768h');
    now += 2700_000 + 1000;
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: bounded.client_token })).status, 403);
  });

  it('refuses negative durations and changes nothing', async () => {
    const t = await create({ policies: ['default'], ttl: '2h' });
    for (const [path, body, message] of [
      ['/v1/auth/token/create', { policies: ['default'], ttl: '-1h' }, 'ttl: must not be negative'],
      ['/v1/auth/token/create', { policies: ['default'], ttl: -5 }, 'ttl: must not be negative'],
      ['/v1/auth/token/create', { policies: ['default'], explicit_max_ttl: '-1h' }, 'explicit_max_ttl: must not be negative'],
      ['/v1/auth/token/renew-self', { increment: '-1h' }, 'increment: must not be negative'],
      ['/v1/auth/token/renew-self', { increment: 'soon' }, /increment/],
    ] as const) {
      const r = await s.call('POST', path, { body, token: path.endsWith('renew-self') ? t.client_token : undefined });
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
      if (typeof message === 'string') assert.deepEqual(r.json, { errors: [message] });
      else assert.match(r.json.errors[0], message);
    }
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: t.client_token });
    assert.equal(self.json.data.ttl, 7200, 'the refused renewal changed nothing');
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
