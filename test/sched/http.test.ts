/**
 * The scheduler's HTTP conventions (reference/sched.md §1): texts of 404 and 405, plain-text
 * errors, `?pretty`, `?stale` parsing, `?region=` forwarding and `No path to region`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

describe('scheduler HTTP conventions', () => {
  let a: TestAgent;
  let b: TestAgent;
  before(async () => {
    a = await startAgent();
    b = await startAgent({ region: 'europe', authoritativeRegion: 'global', regionAddresses: { global: new URL(a.url).host } }, { root: null });
  });
  after(async () => {
    await b.stop();
    await a.stop();
  });

  it('answers an unknown path 404 `404 page not found` and an undeclared method 405 `Invalid method`, as plain text', async () => {
    const nf = await call(a.url, 'GET', '/v1/nope');
    assert.deepEqual([nf.status, nf.text, nf.headers.get('content-type')], [404, '404 page not found\n', 'text/plain; charset=utf-8']);
    const na = await call(a.url, 'DELETE', '/v1/regions');
    assert.deepEqual([na.status, na.text], [405, 'Invalid method']);
  });

  it('indents with ?pretty (not with pretty=0) and rejects a bad ?stale', async () => {
    assert.equal((await call(a.url, 'GET', '/v1/regions?pretty')).text, '[\n    "global"\n]\n');
    assert.equal((await call(a.url, 'GET', '/v1/regions?pretty=0')).text, '["global"]');
    const bad = await call(a.url, 'GET', '/v1/regions?stale=maybe');
    assert.deepEqual([bad.status, bad.text], [400, 'Expect `true` or `false` for `stale` query string parameter']);
    assert.equal((await call(a.url, 'GET', '/v1/regions?stale')).status, 200);
  });

  it('forwards ?region= to that region, and answers 500 `No path to region` for an unknown one', async () => {
    assert.deepEqual((await call(b.url, 'GET', '/v1/regions?region=global')).json, ['global']);
    assert.equal((await call(b.url, 'GET', '/v1/status/leader?region=global')).json, new URL(a.url).host);
    const none = await call(b.url, 'GET', '/v1/regions?region=mars');
    assert.deepEqual([none.status, none.text], [500, 'No path to region']);
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const r = await call(b.url, 'GET', `/v1/regions?region=${name}`);
      assert.deepEqual([r.status, r.text], [500, 'No path to region'], name);
    }
    assert.deepEqual((await call(b.url, 'GET', '/v1/regions')).json, ['europe', 'global']);
  });
});
