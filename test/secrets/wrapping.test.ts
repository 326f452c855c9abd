/**
 * Response wrapping (issue 17 scope 2): `X-Secrets-Wrap-TTL` on any request, the
 * `sys/wrapping/*` endpoints, single use under concurrency, expiry at the TTL, policy
 * `min_wrapping_ttl` / `max_wrapping_ttl` (scope 5), and the AppRole trusted-broker flow
 * (reference/secrets.md §1.3, §1.4, §1.10).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listRecursive } from '../../src/kernel/store/index.js';
import { hashToken } from '../../src/services/secrets/token/store.js';
import { SecretsApiError, SecretsClient } from '../../src/sdk/index.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => {
  s = await startTestServer({ clock: () => new Date(now) });
  const w = await s.call('POST', '/v1/secret/data/app/db', { body: { data: { password: 'hunter2' } } });
  assert.equal(w.status, 200, w.text);
});
after(() => s.close());

const INVALID = 'wrapping token is not valid or does not exist';
const wrapTtl = (ttl: string) => ({ 'X-Secrets-Wrap-TTL': ttl });

interface WrapInfo {
  token: string;
  accessor: string;
  ttl: number;
  creation_time: string;
  creation_path: string;
  wrapped_accessor?: string;
}

/** A wrapped read of `path`: asserts the reply holds only `wrap_info`, returns it. */
async function wrappedRead(path: string, ttl = '5m', token?: string): Promise<WrapInfo> {
  const r = await s.call('GET', path, { headers: wrapTtl(ttl), token });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.data, null);
  assert.equal(r.json.auth, null);
  assert.equal(r.json.lease_duration, 0);
  assert.ok(!r.text.includes('hunter2'), 'the secret is not in the wrapped reply');
  return r.json.wrap_info as WrapInfo;
}

/** Keys stored in the cubbyhole of the token `id`. */
const cubbyholeKeys = (id: string) => listRecursive(s.service.core.backend, `sys/cubbyhole/${hashToken(id)}/`);

describe('response wrapping', () => {
  it('a wrapped KV read returns only wrap_info; unwrap with the wrapping token returns the secret once', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db');
    assert.match(info.token, /^cs\./);
    assert.match(info.accessor, /^[A-Za-z0-9]{24}$/);
    assert.equal(info.ttl, 300);
    assert.equal(info.creation_time, '2026-01-01T00:00:00Z');
    assert.equal(info.creation_path, 'secret/data/app/db');
    assert.equal(info.wrapped_accessor, undefined);

    const u = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    assert.equal(u.status, 200, u.text);
    assert.deepEqual(u.json.data.data, { password: 'hunter2' });
    assert.equal(u.json.data.metadata.version, 1);
    assert.equal(u.json.wrap_info, null);
    assert.equal(u.json.mount_type, 'kv');
    assert.deepEqual(await cubbyholeKeys(info.token), [], 'the cubbyhole went with the token');

    const again = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    assert.deepEqual([again.status, again.json], [400, { errors: [INVALID] }], 'the same answer with the token as the request token');
    const noToken = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: null });
    assert.equal(noToken.status, 403);
    const limited = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['unrelated'], no_default_policy: true } })).json.auth.client_token;
    const denied = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: limited, body: { token: info.token } });
    assert.equal(denied.status, 403, 'a token in the body needs a caller allowed to unwrap');
    const byBody = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } });
    assert.equal(byBody.status, 400);
    assert.deepEqual(byBody.json, { errors: [INVALID] });
  });

  it('unwrap with the token in the body (another token calling) works once; a second unwrap is 400 with the reference text', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db', '60');
    assert.equal(info.ttl, 60);
    const first = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.data.data.password, 'hunter2');
    const second = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } });
    assert.equal(second.status, 400);
    assert.deepEqual(second.json, { errors: [INVALID] });
  });

  it('of 20 concurrent unwraps of one token exactly one succeeds', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db');
    const replies = await Promise.all(Array.from({ length: 20 }, () => s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } })));
    const ok = replies.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, replies.map((r) => r.status).join(','));
    assert.equal(ok[0].json.data.data.password, 'hunter2');
    for (const r of replies.filter((x) => x.status !== 200)) assert.deepEqual([r.status, r.json], [400, { errors: [INVALID] }]);
  });

  it('a wrapping token expires at its TTL: unwrap and lookup refuse it and its cubbyhole is deleted', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db', '2m');
    assert.equal((await cubbyholeKeys(info.token)).length, 2);
    const live = await s.call('POST', '/v1/sys/wrapping/lookup', { token: null, body: { token: info.token } });
    assert.equal(live.status, 200, live.text);
    now += 121_000;
    try {
      const look = await s.call('POST', '/v1/sys/wrapping/lookup', { token: null, body: { token: info.token } });
      assert.deepEqual([look.status, look.json], [400, { errors: [INVALID] }]);
      const u = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } });
      assert.deepEqual([u.status, u.json], [400, { errors: [INVALID] }]);
      assert.deepEqual(await cubbyholeKeys(info.token), []);
    } finally {
      now -= 121_000;
    }
  });

  it('lookup is unauthenticated and shows creation path, time and TTL without using the token', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db', '10m');
    const viaPost = await s.call('POST', '/v1/sys/wrapping/lookup', { token: null, body: { token: info.token } });
    assert.equal(viaPost.status, 200, viaPost.text);
    assert.deepEqual(viaPost.json.data, { creation_path: 'secret/data/app/db', creation_time: '2026-01-01T00:00:00Z', creation_ttl: 600 });
    const viaGet = await s.call('GET', `/v1/sys/wrapping/lookup?token=${info.token}`, { token: null });
    assert.deepEqual(viaGet.json.data, viaPost.json.data);
    const unknown = await s.call('POST', '/v1/sys/wrapping/lookup', { token: null, body: { token: 'cs.nope' } });
    assert.deepEqual([unknown.status, unknown.json], [400, { errors: [INVALID] }]);
    const notWrapping = await s.call('POST', '/v1/sys/wrapping/lookup', { token: null, body: { token: s.rootToken } });
    assert.equal(notWrapping.status, 400, 'a token that is not a wrapping token');
    assert.equal((await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } })).status, 200, 'lookup did not use it');
  });

  it('rewrap moves the response to a new token with the same creation TTL and path; the old one is revoked', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db', '10m');
    now += 30_000;
    try {
      const r = await s.call('POST', '/v1/sys/wrapping/rewrap', { body: { token: info.token } });
      assert.equal(r.status, 200, r.text);
      const fresh = r.json.wrap_info as WrapInfo;
      assert.equal(r.json.data, null);
      assert.notEqual(fresh.token, info.token);
      assert.equal(fresh.ttl, 600);
      assert.equal(fresh.creation_path, 'secret/data/app/db');
      assert.equal(fresh.creation_time, '2026-01-01T00:00:30Z');
      const old = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } });
      assert.deepEqual([old.status, old.json], [400, { errors: [INVALID] }]);
      const u = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: fresh.token } });
      assert.equal(u.json.data.data.password, 'hunter2');
    } finally {
      now -= 30_000;
    }
  });

  it('sys/wrapping/wrap wraps arbitrary JSON and needs a wrap TTL', async () => {
    const bare = await s.call('POST', '/v1/sys/wrapping/wrap', { body: { a: 1 } });
    assert.deepEqual([bare.status, bare.json], [400, { errors: ['endpoint requires response wrapping to be used'] }]);
    const r = await s.call('POST', '/v1/sys/wrapping/wrap', { body: { a: 1, nested: { b: ['x'] } }, headers: wrapTtl('1m') });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.wrap_info.creation_path, 'sys/wrapping/wrap');
    assert.equal(r.json.data, null);
    const u = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: r.json.wrap_info.token } });
    assert.deepEqual(u.json.data, { a: 1, nested: { b: ['x'] } });
  });

  it('a wrapped token-creating response carries wrapped_accessor; unwrapping gives the token', async () => {
    const r = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['default'] }, headers: wrapTtl('1m') });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.auth, null);
    const info = r.json.wrap_info as WrapInfo;
    assert.match(info.wrapped_accessor ?? '', /^[A-Za-z0-9]{24}$/);
    const u = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    assert.equal(u.json.auth.accessor, info.wrapped_accessor);
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: u.json.auth.client_token });
    assert.equal(self.status, 200);
  });

  it('a wrapping token can do nothing but unwrap; its policy can be neither rewritten nor given to a token', async () => {
    const info = await wrappedRead('/v1/secret/data/app/db');
    assert.equal((await s.call('GET', '/v1/secret/data/app/db', { token: info.token })).status, 403);
    assert.equal((await s.call('GET', '/v1/cubbyhole/response', { token: info.token })).status, 403);
    assert.equal((await s.call('GET', '/v1/auth/token/lookup-self', { token: info.token })).status, 403);
    const w = await s.call('PUT', '/v1/sys/policies/acl/response-wrapping', { body: { policy: 'path "*" { capabilities = ["read"] }' } });
    assert.deepEqual([w.status, w.json], [400, { errors: ['cannot update "response-wrapping" policy'] }]);
    const give = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['response-wrapping'] } });
    assert.deepEqual([give.status, give.json], [400, { errors: ['cannot assign policy "response-wrapping"'] }]);
    assert.equal((await s.call('POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status, 200);
  });

  it('a bad X-Secrets-Wrap-TTL is a 400 naming the header, and nothing is created', async () => {
    const before = await s.service.core.tokens.count();
    const neg = await s.call('GET', '/v1/secret/data/app/db', { headers: wrapTtl('-5m') });
    assert.deepEqual([neg.status, neg.json], [400, { errors: ['error parsing X-Secrets-Wrap-TTL header: requested wrap ttl cannot be negative'] }]);
    const negSeconds = await s.call('GET', '/v1/secret/data/app/db', { headers: wrapTtl('-30') });
    assert.equal(negSeconds.status, 400);
    const junk = await s.call('GET', '/v1/secret/data/app/db', { headers: wrapTtl('soon') });
    assert.equal(junk.status, 400);
    assert.match(junk.json.errors[0], /^error parsing X-Secrets-Wrap-TTL header: .*soon/);
    const write = await s.call('POST', '/v1/secret/data/app/other', { body: { data: { x: 1 } }, headers: wrapTtl('-1s') });
    assert.equal(write.status, 400);
    assert.equal((await s.call('GET', '/v1/secret/data/app/other')).status, 404, 'the write did not happen');
    assert.equal(await s.service.core.tokens.count(), before);
  });

  it('only replies with content are wrapped: a 404 stays a 404, a 204 stays a 204', async () => {
    const before = await s.service.core.tokens.count();
    assert.equal((await s.call('GET', '/v1/secret/data/missing', { headers: wrapTtl('1m') })).status, 404);
    assert.equal((await s.call('DELETE', '/v1/secret/data/missing', { headers: wrapTtl('1m') })).status, 204);
    assert.equal(await s.service.core.tokens.count(), before);
  });
});

describe('route tables', () => {
  it('the OpenAPI document and help list the wrapping paths and the cubbyhole engine', async () => {
    const doc = await s.call('GET', '/v1/sys/internal/specs/openapi');
    assert.equal(doc.status, 200, doc.text);
    const paths = Object.keys(doc.json.paths);
    for (const p of ['/sys/wrapping/wrap', '/sys/wrapping/unwrap', '/sys/wrapping/lookup', '/sys/wrapping/rewrap'])
      assert.ok(paths.includes(p), `${p} in ${paths.join(' ')}`);
    assert.ok(
      paths.some((p) => p.startsWith('/cubbyhole/')),
      paths.join(' '),
    );
    const help = await s.call('GET', '/v1/sys/wrapping/unwrap?help=1');
    assert.equal(help.status, 200);
    assert.match(help.json.help, /once/);
  });
});

describe('policy min_wrapping_ttl / max_wrapping_ttl', () => {
  let token: string;
  before(async () => {
    const p = await s.call('PUT', '/v1/sys/policies/acl/handoff', {
      body: { policy: 'path "secret/data/app/*" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "1m"\n  max_wrapping_ttl = 3600\n}' },
    });
    assert.equal(p.status, 204, p.text);
    const t = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['handoff'] } });
    token = t.json.auth.client_token;
  });

  it('refuses a read without wrapping or outside the bounds (403) and serves one inside them', async () => {
    const bare = await s.call('GET', '/v1/secret/data/app/db', { token });
    assert.deepEqual([bare.status, bare.json], [403, { errors: ['permission denied'] }]);
    assert.equal((await s.call('GET', '/v1/secret/data/app/db', { token, headers: wrapTtl('30s') })).status, 403);
    assert.equal((await s.call('GET', '/v1/secret/data/app/db', { token, headers: wrapTtl('2h') })).status, 403);
    const info = await wrappedRead('/v1/secret/data/app/db', '1m', token);
    assert.equal(info.ttl, 60);
    const edge = await wrappedRead('/v1/secret/data/app/db', '1h', token);
    assert.equal(edge.ttl, 3600);
  });

  it('rejects bounds that cannot be parsed or a maximum below the minimum, naming the path', async () => {
    const bad = await s.call('PUT', '/v1/sys/policies/acl/bad', {
      body: { policy: 'path "x" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "2h"\n  max_wrapping_ttl = "1h"\n}' },
    });
    assert.deepEqual([bad.status, bad.json], [400, { errors: ['failed to parse policy: path "x": max_wrapping_ttl cannot be less than min_wrapping_ttl'] }]);
    const junk = await s.call('PUT', '/v1/sys/policies/acl/bad', { body: { policy: 'path "x" {\n  capabilities = ["read"]\n  max_wrapping_ttl = "soon"\n}' } });
    assert.equal(junk.status, 400);
    assert.match(junk.json.errors[0], /^failed to parse policy: path "x": error parsing max_wrapping_ttl: /);
  });
});

describe('AppRole secret IDs issued wrapped (the trusted-broker flow)', () => {
  it('the broker gets only a wrapping token; the app unwraps it and logs in with the secret ID', async () => {
    assert.equal((await s.call('POST', '/v1/sys/auth/approle', { body: { type: 'approle' } })).status, 204);
    assert.equal((await s.call('POST', '/v1/auth/approle/role/web', { body: { token_policies: 'default' } })).status, 204);
    const roleId = (await s.call('GET', '/v1/auth/approle/role/web/role-id')).json.data.role_id as string;
    const policy = await s.call('PUT', '/v1/sys/policies/acl/broker', {
      body: { policy: 'path "auth/approle/role/web/secret-id" {\n  capabilities = ["update"]\n  min_wrapping_ttl = "10s"\n  max_wrapping_ttl = "5m"\n}' },
    });
    assert.equal(policy.status, 204, policy.text);
    const broker = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['broker'] } })).json.auth.client_token as string;

    assert.equal((await s.call('POST', '/v1/auth/approle/role/web/secret-id', { token: broker })).status, 403, 'the broker may not see a secret ID');
    const wrapped = await s.call('POST', '/v1/auth/approle/role/web/secret-id', { token: broker, headers: wrapTtl('2m') });
    assert.equal(wrapped.status, 200, wrapped.text);
    assert.equal(wrapped.json.data, null);
    const info = wrapped.json.wrap_info as WrapInfo;
    assert.equal(info.creation_path, 'auth/approle/role/web/secret-id');

    // The app: it holds only the wrapping token, and is the only one to use it.
    const unwrapped = await s.call('POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    assert.equal(unwrapped.status, 200, unwrapped.text);
    const secretId = unwrapped.json.data.secret_id as string;
    assert.ok(secretId);
    const login = await s.call('POST', '/v1/auth/approle/login', { token: null, body: { role_id: roleId, secret_id: secretId } });
    assert.equal(login.status, 200, login.text);
    assert.match(login.json.auth.client_token, /^cs\./);
    // An attacker who intercepted the wrapping token afterwards finds it used.
    const late = await s.call('POST', '/v1/sys/wrapping/unwrap', { body: { token: info.token } });
    assert.deepEqual([late.status, late.json], [400, { errors: [INVALID] }]);
  });
});

describe('SDK: wrapping and cubbyhole clients', () => {
  it('withWrapTtl, wrapping.wrap/lookup/rewrap/unwrap and cubbyhole read/write/list/delete', async () => {
    const client = new SecretsClient({ address: s.url, token: s.rootToken });
    try {
      const wrappedRead = await client.withWrapTtl('5m').read('secret/data/app/db');
      assert.equal(wrappedRead?.data, null);
      const viaOwnToken = await client.withToken(undefined).wrapping.unwrap<{ data: Record<string, string> }>(wrappedRead!.wrap_info!.token);
      assert.equal(viaOwnToken?.data?.data.password, 'hunter2');

      const info = await client.wrapping.wrap({ handoff: 'yes' }, 120);
      assert.equal(info.ttl, 120);
      assert.deepEqual(await client.wrapping.lookup(info.token), {
        creation_path: 'sys/wrapping/wrap',
        creation_time: '2026-01-01T00:00:00Z',
        creation_ttl: 120,
      });
      const moved = await client.wrapping.rewrap(info.token);
      assert.deepEqual((await client.wrapping.unwrap(moved.token))?.data, { handoff: 'yes' });
      await assert.rejects(client.wrapping.unwrap(moved.token), (e: unknown) => e instanceof SecretsApiError && e.status === 400);

      await client.cubbyhole.write('notes/a', { v: 1 });
      assert.deepEqual(await client.cubbyhole.read('notes/a'), { v: 1 });
      assert.deepEqual(await client.cubbyhole.list('notes'), ['a']);
      await client.cubbyhole.delete('notes/a');
      assert.equal(await client.cubbyhole.read('notes/a'), undefined);
    } finally {
      await client.close();
    }
  });
});
