/**
 * Hostile input to the secrets service (issue 14 item 2): policies nested thousands of
 * levels deep, JSON bodies nested past the kernel's limit (with and without a token), NUL
 * in a path or in a name that becomes a store key. Each is a 400 naming the problem in the
 * service's `{"errors":[…]}` style, changes nothing, and the valid request after it works.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  const r = await s.call('POST', '/v1/sys/auth/userpass', { body: { type: 'userpass' } });
  assert.equal(r.status, 204, r.text);
});
after(() => s.close());

const deepBlocks = (n: number) => 'path "a" { '.repeat(n) + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const TOO_DEEP = '{"errors":["failed to parse JSON input: JSON input exceeds allowed nesting depth (128)"]}';

/** What a refused request could have changed. */
async function snapshot() {
  const data = async (method: string, path: string) => (await s.call(method, path)).json?.data ?? null;
  return {
    policies: await data('LIST', '/v1/sys/policies/acl'),
    accessors: await data('LIST', '/v1/auth/token/accessors'),
    secrets: await data('LIST', '/v1/secret/metadata'),
    seal: (await s.call('GET', '/v1/sys/seal-status', { token: null })).json,
  };
}

describe('secrets: hostile input', () => {
  it('refuses policies 2,000–5,000 blocks deep, and later policy writes and new tokens work', async () => {
    const before = await snapshot();
    for (const n of [2000, 5000, 3000, 2000, 4000, 2000, 2500, 5000, 2000, 3000]) {
      const r = await s.call('PUT', '/v1/sys/policies/acl/deep', { body: { policy: deepBlocks(n) } });
      assert.equal(r.status, 400);
      assert.equal(r.text, '{"errors":["failed to parse policy: line 1, column 362: nesting deeper than 32 levels"]}');
    }
    // The same in JSON (read with JSON.parse once within bounds): refused before it is parsed.
    const deepJson = '{"path":{"a":' + '{"x":'.repeat(3000) + '1' + '}'.repeat(3002);
    const json = await s.call('PUT', '/v1/sys/policies/acl/deep', { body: { policy: deepJson } });
    assert.equal(json.status, 400, json.text);
    assert.match(json.json.errors[0], /^failed to parse policy: line 1, column \d+: nesting deeper than 32 levels$/);
    assert.deepEqual(await snapshot(), before);
    for (let i = 0; i < 10; i++) {
      const w = await s.call('PUT', `/v1/sys/policies/acl/ok${i}`, { body: { policy: 'path "secret/data/app" { capabilities = ["read"] }' } });
      assert.equal(w.status, 204, w.text);
    }
    const t = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['ok3'] } });
    assert.equal(t.status, 200, t.text);
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: t.json.auth.client_token });
    assert.equal(self.status, 200, self.text);
    assert.deepEqual(self.json.data.policies, ['default', 'ok3']);
  });

  it('refuses JSON bodies nested past 128 levels, before any token check', async () => {
    const before = await snapshot();
    const cases: Array<[string, string, string, string | null]> = [
      ['PUT', '/v1/sys/unseal', `{"key":${deepArray(2500)}}`, null],
      ['PUT', '/v1/auth/userpass/login/bob', `{"password":${deepArray(3000)}}`, null],
      ['PUT', '/v1/secret/data/deep', `{"data":{"a":${deepArray(2500)}}}`, s.rootToken],
      ['PUT', '/v1/secret/metadata/deep', `{"custom_metadata":{"a":${deepArray(2500)}}}`, s.rootToken],
      // One past the limit: the body's own object is a level.
      ['PUT', '/v1/secret/data/deep', `{"data":{"a":${deepArray(127)}}}`, s.rootToken],
    ];
    for (const [method, path, body, token] of cases) {
      const r = await s.call(method, path, { body, token });
      assert.equal(r.status, 400, `${method} ${path}`);
      assert.equal(r.text, TOO_DEEP);
    }
    assert.deepEqual(await snapshot(), before);
    // At the limit, the same write is accepted and reads back.
    const w = await s.call('PUT', '/v1/secret/data/deep', { body: `{"data":{"a":${deepArray(126)}}}` });
    assert.equal(w.status, 200, w.text);
    const r = await s.call('GET', '/v1/secret/data/deep');
    assert.equal(JSON.stringify(r.json.data.data.a), deepArray(126));
    assert.equal((await s.call('DELETE', '/v1/secret/metadata/deep')).status, 204);
  });

  it('refuses NUL in a path and in a policy name, and changes nothing', async () => {
    const before = await snapshot();
    const path = '{"errors":["invalid request path: names and paths must not contain NUL characters (U+0000)"]}';
    const read = await s.call('GET', '/v1/secret/data/a%00');
    assert.deepEqual([read.status, read.text], [400, path]);
    const write = await s.call('PUT', '/v1/secret/data/a%00', { body: { data: { k: 'v' } } });
    assert.deepEqual([write.status, write.text], [400, path]);
    const token = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['a\u0000b'] } });
    assert.deepEqual([token.status, token.text], [400, '{"errors":["names and paths must not contain NUL characters (U+0000)"]}']);
    assert.deepEqual(await snapshot(), before);
    const ok = await s.call('PUT', '/v1/secret/data/a', { body: { data: { k: 'v' } } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await s.call('DELETE', '/v1/secret/metadata/a')).status, 204);
  });
});
