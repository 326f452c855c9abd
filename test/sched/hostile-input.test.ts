/**
 * Hostile input to the scheduler (issue 14 item 2): policies nested thousands of levels
 * deep, bodies nested past the kernel's JSON limit, out-of-range durations, NUL in a path.
 * Each is a plain-text 400 naming the problem, changes nothing, and the valid request after
 * it works. (Bodies that are JSON but not objects already answered 400 with Go's texts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const deepBlocks = (n: number) => 'namespace "a" { '.repeat(n) + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('scheduler: hostile input', () => {
  let a: TestAgent;
  const req = (method: string, p: string, o: { body?: unknown; raw?: string; token?: string } = {}) => call(a.url, method, p, { token: ROOT, ...o });
  /** What a refused request could have changed. */
  const snapshot = async () => ({
    tokens: (await req('GET', '/v1/acl/tokens')).json,
    policies: (await req('GET', '/v1/acl/policies')).json,
    methods: (await req('GET', '/v1/acl/auth-methods')).json,
  });

  before(async () => {
    a = await startAgent();
  });
  after(() => a.stop());

  it('refuses policies 2,000–5,000 blocks deep, and the policy writes and new tokens after them work', async () => {
    const before = await snapshot();
    for (const n of [2000, 5000, 3000, 2000, 4000, 2000, 2500, 5000, 2000, 3000]) {
      const r = await req('PUT', '/v1/acl/policy/deep', { body: { Name: 'deep', Rules: deepBlocks(n) } });
      assert.equal(r.status, 400);
      assert.equal(
        r.text,
        'policy 0 invalid: 1 error occurred:\n\t* failed to parse rules: Failed to parse ACL Policy: At 1:527: nesting deeper than 32 levels\n\n',
      );
    }
    assert.deepEqual(await snapshot(), before);
    for (let i = 0; i < 10; i++) {
      const w = await req('PUT', `/v1/acl/policy/ok${i}`, { body: { Name: `ok${i}`, Rules: 'namespace "default" { policy = "read" }' } });
      assert.equal(w.status, 200, w.text);
    }
    const t = await req('POST', '/v1/acl/token', { body: { Type: 'client', Policies: ['ok7'] } });
    assert.equal(t.status, 200, t.text);
    const self = await call(a.url, 'GET', '/v1/acl/token/self', { token: t.json.SecretID });
    assert.equal(self.status, 200, self.text);
    assert.deepEqual(self.json.Policies, ['ok7']);
  });

  it('refuses bodies nested past 128 levels, with or without a token', async () => {
    const before = await snapshot();
    const token = await req('POST', '/v1/acl/token', { raw: `{"Name":${deepArray(2500)}}` });
    assert.deepEqual([token.status, token.text], [400, 'JSON input exceeds allowed nesting depth (128)']);
    const login = await call(a.url, 'POST', '/v1/acl/login', { raw: `{"LoginToken":${deepArray(3000)}}` });
    assert.deepEqual([login.status, login.text], [400, 'JSON input exceeds allowed nesting depth (128)']);
    assert.deepEqual(await snapshot(), before);
  });

  it('refuses durations past Go’s int64 nanoseconds, naming the field', async () => {
    await req('PUT', '/v1/acl/policy/ttl', { body: { Name: 'ttl', Rules: 'namespace "default" { policy = "read" }' } });
    const before = await snapshot();
    const ttl = await req('POST', '/v1/acl/token', { raw: '{"Type":"client","Policies":["ttl"],"ExpirationTTL":1e400}' });
    assert.deepEqual([ttl.status, ttl.text], [400, 'ACLToken.ExpirationTTL: number Infinity is out of range for a duration']);
    const text = await req('POST', '/v1/acl/token', { body: { Type: 'client', Policies: ['ttl'], ExpirationTTL: '9999999999h' } });
    assert.deepEqual([text.status, text.text], [400, 'time: invalid duration "9999999999h"']);
    const method = await req('POST', '/v1/acl/auth-method', {
      raw: '{"Name":"m","Type":"JWT","TokenLocality":"local","MaxTokenTTL":1e400,"Config":{"JWTValidationPubKeys":["x"]}}',
    });
    assert.deepEqual([method.status, method.text], [400, 'ACLAuthMethod.MaxTokenTTL: number Infinity is out of range for a duration']);
    assert.deepEqual(await snapshot(), before);
    const ok = await req('POST', '/v1/acl/token', { body: { Type: 'client', Policies: ['ttl'], ExpirationTTL: '1h' } });
    assert.equal(ok.status, 200, ok.text);
  });

  it('refuses NUL in a path', async () => {
    const r = await req('GET', '/v1/acl/policy/a%00');
    assert.deepEqual([r.status, r.text], [400, 'invalid request path: names and paths must not contain NUL characters (U+0000)']);
    assert.equal((await req('GET', '/v1/acl/policies')).status, 200);
  });
});
