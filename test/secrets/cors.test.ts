/**
 * CORS (spec 000 "Errors" 403; reference/secrets.md §1.11): off by default; once
 * enabled, allowed origins get the headers, others 403, preflights answered.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

it('allows configured origins, refuses others, answers preflights', async () => {
  const off = await s.call('GET', '/v1/sys/mounts', { headers: { Origin: 'https://evil.example' } });
  assert.equal(off.status, 200, 'CORS is off by default');
  assert.equal(off.headers.get('access-control-allow-origin'), null);

  for (const body of [{}, { allowed_origins: [] }, { allowed_origins: ['not an origin'] }, { allowed_origins: ['*', 'https://a.example'] }]) {
    const r = await s.call('PUT', '/v1/sys/config/cors', { body });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.match(r.json.errors[0], /allowed_origins/);
  }
  assert.equal((await s.call('GET', '/v1/sys/config/cors')).json.data.enabled, false, 'refused writes changed nothing');

  assert.equal((await s.call('PUT', '/v1/sys/config/cors', { body: { allowed_origins: ['https://ui.example'], allowed_headers: 'X-Custom' } })).status, 204);
  const cfg = await s.call('GET', '/v1/sys/config/cors');
  assert.deepEqual(cfg.json.data, { enabled: true, allowed_origins: ['https://ui.example'], allowed_headers: ['X-Custom'] });

  const ok = await s.call('GET', '/v1/sys/mounts', { headers: { Origin: 'https://ui.example' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('access-control-allow-origin'), 'https://ui.example');
  const okErr = await s.call('GET', '/v1/secret/data/none', { headers: { Origin: 'https://ui.example' } });
  assert.equal(okErr.status, 404);
  assert.equal(okErr.headers.get('access-control-allow-origin'), 'https://ui.example', 'errors carry the headers too');

  const denied = await s.call('GET', '/v1/sys/mounts', { headers: { Origin: 'https://evil.example' } });
  assert.equal(denied.status, 403);
  assert.deepEqual(denied.json, { errors: ['origin not allowed'] });
  assert.equal((await s.call('GET', '/v1/sys/mounts')).status, 200, 'no Origin: not a cross-origin request');

  const pre = await s.call('OPTIONS', '/v1/secret/data/x', { token: null, headers: { Origin: 'https://ui.example', 'Access-Control-Request-Method': 'PUT' } });
  assert.equal(pre.status, 204);
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /X-Secrets-Token.*X-Custom/);
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /LIST/);
  const badPre = await s.call('OPTIONS', '/v1/secret/data/x', {
    token: null,
    headers: { Origin: 'https://ui.example', 'Access-Control-Request-Method': 'TRACE' },
  });
  assert.equal(badPre.status, 405);
  const evilPre = await s.call('OPTIONS', '/v1/secret/data/x', {
    token: null,
    headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
  });
  assert.equal(evilPre.status, 403, 'a preflight from a disallowed origin');
  assert.deepEqual(evilPre.json, { errors: ['origin not allowed'] });
  assert.equal(evilPre.headers.get('access-control-allow-origin'), null);

  assert.equal((await s.call('DELETE', '/v1/sys/config/cors')).status, 204);
  assert.equal((await s.call('GET', '/v1/sys/mounts', { headers: { Origin: 'https://evil.example' } })).status, 200);
});
