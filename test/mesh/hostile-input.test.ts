/**
 * Hostile input to the discovery service (issue 14 item 2): rules nested thousands of
 * levels deep, bodies nested past the kernel's JSON limit, out-of-range durations, bodies
 * that are JSON but not objects, NUL in a path. Each is a plain-text 400 naming the
 * problem, changes nothing, and the valid request after it works.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '7a1c9e3b-5d2f-4b6a-8c0e-1d2e3f4a5b6c';
const deepBlocks = (n: number) => 'key_prefix "a" { '.repeat(n) + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('discovery: hostile input', () => {
  let a: TestAgent;
  const put = (p: string, o: { body?: unknown; raw?: string; token?: string } = {}) => call(a.url, 'PUT', p, { token: ROOT, ...o });
  const get = (p: string, token = ROOT) => call(a.url, 'GET', p, { token });
  /** What a refused request could have changed. */
  const snapshot = async () => ({
    tokens: (await get('/v1/acl/tokens')).json,
    policies: (await get('/v1/acl/policies')).json,
    methods: (await get('/v1/acl/auth-methods')).json,
  });

  before(async () => {
    a = await startAgent({ initialManagement: ROOT });
  });
  after(() => a.stop());

  it('refuses rules 2,000–5,000 blocks deep (HCL or JSON), and later policy writes and new tokens work', async () => {
    const before = await snapshot();
    for (const n of [2000, 5000, 3000, 2000, 4000, 2000, 2500, 5000, 2000, 3000]) {
      const r = await put('/v1/acl/policy', { body: { Name: 'deep', Rules: deepBlocks(n) } });
      assert.deepEqual([r.status, r.text], [400, 'Failed to parse ACL rules: At 1:560: nesting deeper than 32 levels']);
    }
    const json = await put('/v1/acl/policy', { body: { Name: 'deep', Rules: `{"key_prefix":{"a":${deepArray(3000)}}}` } });
    assert.deepEqual([json.status, json.text], [400, 'Failed to parse ACL rules: At 1:50: nesting deeper than 32 levels']);
    assert.deepEqual(await snapshot(), before);
    for (let i = 0; i < 10; i++) {
      const w = await put('/v1/acl/policy', { body: { Name: `ok${i}`, Rules: 'key_prefix "" { policy = "read" }' } });
      assert.equal(w.status, 200, w.text);
    }
    const t = await put('/v1/acl/token', { body: { Policies: [{ Name: 'ok4' }] } });
    assert.equal(t.status, 200, t.text);
    const self = await get('/v1/acl/token/self', t.json.SecretID);
    assert.equal(self.status, 200, self.text);
    assert.equal(self.json.Policies[0].Name, 'ok4');
  });

  it('refuses bodies nested past 128 levels, with or without a token', async () => {
    const before = await snapshot();
    const token = await put('/v1/acl/token', { raw: `{"Description":${deepArray(2500)}}` });
    assert.deepEqual([token.status, token.text], [400, 'Token decoding failed: JSON input exceeds allowed nesting depth (128)']);
    const login = await call(a.url, 'POST', '/v1/acl/login', { raw: `{"Meta":${deepArray(3000)}}` });
    assert.deepEqual([login.status, login.text], [400, 'Failed to decode request body: JSON input exceeds allowed nesting depth (128)']);
    assert.deepEqual(await snapshot(), before);
  });

  it('refuses durations past Go’s int64 nanoseconds, naming the field', async () => {
    const before = await snapshot();
    const ttl = await put('/v1/acl/token', { raw: '{"ExpirationTTL":1e308}' });
    assert.deepEqual([ttl.status, ttl.text], [400, 'Token Expiration TTL: number 1e+308 is out of range for a duration']);
    const text = await put('/v1/acl/token', { body: { ExpirationTTL: '9999999999h' } });
    assert.deepEqual([text.status, text.text], [400, "Token Expiration TTL '9999999999h' is not a duration"]);
    const method = await put('/v1/acl/auth-method', { raw: '{"Name":"m","Type":"jwt","MaxTokenTTL":1e400,"Config":{}}' });
    assert.deepEqual([method.status, method.text], [400, 'Invalid Auth Method: MaxTokenTTL: number Infinity is out of range for a duration']);
    assert.deepEqual(await snapshot(), before);
    // The longest Go duration is still a valid TTL.
    const longest = await put('/v1/acl/token', { body: { ExpirationTTL: '2562047h' } });
    assert.equal(longest.status, 200, longest.text);
    const lifetimeMs = Date.parse(longest.json.ExpirationTime) - Date.parse(longest.json.CreateTime);
    assert.equal(Math.round(lifetimeMs / 3600e3), 2562047);
    assert.equal((await call(a.url, 'DELETE', `/v1/acl/token/${longest.json.AccessorID}`, { token: ROOT })).status, 200);
  });

  it('refuses bodies that are JSON but not objects, on create and update', async () => {
    const made = await put('/v1/acl/token', { body: { Description: 'kept' } });
    assert.equal(made.status, 200, made.text);
    const before = await snapshot();
    const kinds: Array<[string, string]> = [
      ['123', 'a number'],
      ['"str"', 'a string'],
      ['null', 'null'],
      ['[]', 'an array'],
      ['true', 'a boolean'],
    ];
    for (const [raw, got] of kinds) {
      for (const path of ['/v1/acl/token', `/v1/acl/token/${made.json.AccessorID}`]) {
        const r = await put(path, { raw });
        assert.deepEqual([r.status, r.text], [400, `Token decoding failed: the body must be a JSON object, not ${got}`], `${path} ${raw}`);
      }
      const p = await put('/v1/acl/policy', { raw });
      assert.deepEqual([p.status, p.text], [400, `Policy decoding failed: the body must be a JSON object, not ${got}`]);
    }
    assert.deepEqual(await snapshot(), before);
    assert.equal((await get(`/v1/acl/token/${made.json.AccessorID}`)).json.Description, 'kept');
  });

  it('refuses NUL in a path', async () => {
    const r = await get('/v1/acl/policy/name/a%00');
    assert.deepEqual([r.status, r.text], [400, 'invalid request path: names and paths must not contain NUL characters (U+0000)']);
    assert.equal((await get('/v1/acl/policy/name/global-management')).status, 200);
  });
});
