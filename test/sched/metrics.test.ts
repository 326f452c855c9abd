/**
 * `GET /v1/metrics` of the scheduler (issue 14 item 7; Nomad's metrics endpoint), over real
 * HTTP: no ACL, as the reference; go-metrics JSON unless `?format=prometheus` (an `Accept`
 * header does not switch it); requests counted by route pattern; the event stream's open
 * subscribers and the ACL token count visible; group commits move after a write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parsePrometheusText, sampleValue, type Sample } from '../prometheus-text.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { Stream } from './stream.js';

describe('scheduler metrics', () => {
  let agent: TestAgent;
  before(async () => {
    agent = await startAgent();
  });
  after(() => agent.stop());

  const scrape = async (): Promise<Sample[]> => {
    const r = await call(agent.url, 'GET', '/v1/metrics?format=prometheus');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheusText(r.text);
  };

  it('needs no token, and answers JSON unless ?format=prometheus', async () => {
    const r = await call(agent.url, 'GET', '/v1/metrics', { headers: { Accept: 'application/openmetrics-text' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(Object.keys(r.json).sort(), ['Counters', 'Gauges', 'Points', 'Samples', 'Timestamp']);
    assert.deepEqual(
      r.json.Gauges.find((g: { Name: string }) => g.Name === 'cairn_sched_acl_tokens'),
      { Name: 'cairn_sched_acl_tokens', Value: 1, Labels: {} },
    );
    const samples = await scrape();
    assert.equal(sampleValue(samples, 'cairn_server_leader'), 1);
    const put = await call(agent.url, 'PUT', '/v1/metrics');
    assert.deepEqual([put.status, put.text], [405, 'Invalid method']);
  });

  it('counts requests by route pattern and status', async () => {
    const labels = { method: 'GET', route: 'acl/token/self', status: '200' };
    const before = sampleValue(await scrape(), 'cairn_http_requests_total', labels) ?? 0;
    assert.equal((await call(agent.url, 'GET', '/v1/acl/token/self', { token: ROOT })).status, 200);
    const denied = { method: 'GET', route: 'acl/token/self', status: '403' };
    const deniedBefore = sampleValue(await scrape(), 'cairn_http_requests_total', denied) ?? 0;
    assert.equal((await call(agent.url, 'GET', '/v1/acl/token/self', { token: 'b1d3c5e7-0000-4000-8000-000000000bad' })).status, 403);
    const now = await scrape();
    assert.equal(sampleValue(now, 'cairn_http_requests_total', labels), before + 1);
    assert.equal(sampleValue(now, 'cairn_http_requests_total', denied), deniedBefore + 1);
    assert.ok(sampleValue(now, 'cairn_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })! >= before + 1);
  });

  it('shows open event streams and group commits after a write', async () => {
    const before = await scrape();
    assert.equal(sampleValue(before, 'cairn_sched_event_subscribers'), 0);
    const writes = sampleValue(before, 'cairn_store_commit_group_writes_sum')!;
    const stream = await Stream.open(agent.url, 'topic=Node');
    try {
      assert.equal(stream.res.status, 200);
      await stream.line(); // the first heartbeat: the subscription exists
      assert.equal(sampleValue(await scrape(), 'cairn_sched_event_subscribers'), 1);
      const p = await call(agent.url, 'POST', '/v1/acl/policy/metrics-test', {
        token: ROOT,
        body: { Name: 'metrics-test', Rules: 'namespace "default" { policy = "read" }' },
      });
      assert.equal(p.status, 200, p.text);
      assert.ok(sampleValue(await scrape(), 'cairn_store_commit_group_writes_sum')! > writes);
    } finally {
      stream.close();
    }
  });
});
