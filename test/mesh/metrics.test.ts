/**
 * `GET /v1/agent/metrics` of the discovery service (issue 14 item 7; Consul's agent metrics
 * endpoint), over real HTTP: go-metrics JSON by default, Prometheus text with
 * `?format=prometheus` or an OpenMetrics `Accept`, `agent:read` on the agent's node name
 * required with ACLs on, requests counted by route pattern (never the raw path), group
 * commits and open blocking queries visible.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parsePrometheusText, sampleValue, type Sample } from '../prometheus-text.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = 'b1d3c5e7-0000-4000-8000-0000000000aa';

describe('discovery agent metrics', () => {
  let agent: TestAgent;
  before(async () => {
    agent = await startAgent({ initialManagement: ROOT });
  });
  after(() => agent.stop());

  const scrape = async (): Promise<Sample[]> => {
    const r = await call(agent.url, 'GET', '/v1/agent/metrics?format=prometheus', { token: ROOT });
    assert.equal(r.status, 200, r.text);
    return parsePrometheusText(r.text);
  };

  it('answers go-metrics JSON by default, with the ACL token count among the gauges', async () => {
    const r = await call(agent.url, 'GET', '/v1/agent/metrics', { token: ROOT });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(Object.keys(r.json).sort(), ['Counters', 'Gauges', 'Points', 'Samples', 'Timestamp']);
    assert.match(r.json.Timestamp, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC$/);
    const tokens = r.json.Gauges.find((g: { Name: string }) => g.Name === 'cairn_mesh_acl_tokens');
    // The initial-management token and the anonymous token.
    assert.deepEqual(tokens, { Name: 'cairn_mesh_acl_tokens', Value: 2, Labels: {} });
    assert.ok(r.json.Samples.some((s: { Name: string }) => s.Name === 'cairn_store_commit_duration_seconds'));
  });

  it('answers Prometheus text with ?format=prometheus or an OpenMetrics Accept', async () => {
    const r = await call(agent.url, 'GET', '/v1/agent/metrics?format=prometheus', { token: ROOT });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const samples = parsePrometheusText(r.text);
    assert.equal(sampleValue(samples, 'cairn_server_leader'), 1);
    assert.equal(sampleValue(samples, 'cairn_mesh_acl_tokens'), 2);
    assert.ok(sampleValue(samples, 'process_resident_memory_bytes')! > 0);
    const a = await call(agent.url, 'GET', '/v1/agent/metrics', { token: ROOT, headers: { Accept: 'application/openmetrics-text; version=1.0.0' } });
    assert.equal(a.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    parsePrometheusText(a.text);
    // Another format is JSON, as the reference.
    const other = await call(agent.url, 'GET', '/v1/agent/metrics?format=xml', { token: ROOT });
    assert.equal(other.headers.get('content-type'), 'application/json');
  });

  it('needs agent:read on the agent node name', async () => {
    const anonymous = await call(agent.url, 'GET', '/v1/agent/metrics');
    assert.equal(anonymous.status, 403);
    assert.match(anonymous.text, /^Permission denied: anonymous token lacks permission 'agent:read' on "test"/);
    const unknown = await call(agent.url, 'GET', '/v1/agent/metrics', { token: 'a9e3c2b1-1111-4111-8111-000000000000' });
    assert.deepEqual([unknown.status, unknown.text], [403, 'ACL not found']);
    const token = async (rules: string, name: string) => {
      const p = await call(agent.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: name, Rules: rules } });
      assert.equal(p.status, 200, p.text);
      const t = await call(agent.url, 'PUT', '/v1/acl/token', { token: ROOT, body: { Policies: [{ Name: name }] } });
      assert.equal(t.status, 200, t.text);
      return t.json.SecretID as string;
    };
    const other = await token('agent "other" { policy = "read" }', 'other-agent');
    assert.equal((await call(agent.url, 'GET', '/v1/agent/metrics', { token: other })).status, 403);
    const reader = await token('agent "test" { policy = "read" }', 'this-agent');
    assert.equal((await call(agent.url, 'GET', '/v1/agent/metrics', { token: reader })).status, 200);
  });

  it('counts requests by route pattern and status, never by the raw path', async () => {
    const created = await call(agent.url, 'PUT', '/v1/acl/token', { token: ROOT, body: { Description: 'counted' } });
    assert.equal(created.status, 200, created.text);
    const id = created.json.AccessorID as string;
    const before = await scrape();
    const labels = { method: 'GET', route: 'acl/token/:accessor', status: '200' };
    const count = sampleValue(before, 'cairn_http_requests_total', labels) ?? 0;
    assert.equal((await call(agent.url, 'GET', `/v1/acl/token/${id}`, { token: ROOT })).status, 200);
    assert.equal((await call(agent.url, 'GET', '/v1/no/such/path', { token: ROOT })).status, 404);
    const text = (await call(agent.url, 'GET', '/v1/agent/metrics?format=prometheus', { token: ROOT })).text;
    const now = parsePrometheusText(text);
    assert.equal(sampleValue(now, 'cairn_http_requests_total', labels), count + 1);
    assert.equal(sampleValue(now, 'cairn_http_request_duration_seconds_count', labels), count + 1);
    assert.ok((sampleValue(now, 'cairn_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) ?? 0) >= 1);
    assert.ok(!text.includes(id), 'the accessor id of a request path is no label value');
    assert.ok(!text.includes('no/such/path'));
  });

  it('shows group commits move after a write, and an open blocking query', async () => {
    const before = await scrape();
    const commits = sampleValue(before, 'cairn_store_commit_group_writes_count')!;
    const p = await call(agent.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: 'committed', Rules: '' } });
    assert.equal(p.status, 200, p.text);
    const after = await scrape();
    assert.ok(sampleValue(after, 'cairn_store_commit_group_writes_count')! > commits);
    assert.ok(sampleValue(after, 'cairn_store_commit_duration_seconds_count')! > commits - 1);
    assert.equal(sampleValue(after, 'cairn_store_commit_failures_total'), 0);
    assert.equal(sampleValue(after, 'cairn_http_blocking_queries'), 0);

    const index = Number(p.headers.get('x-mesh-index') ?? 0) || 1_000_000;
    const blocked = call(agent.url, 'GET', `/v1/acl/policies?index=${index + 1000}&wait=10s`, { token: ROOT });
    let open = 0;
    for (let i = 0; i < 100 && open === 0; i++) {
      open = sampleValue(await scrape(), 'cairn_http_blocking_queries')!;
      if (open === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(open, 1);
    // A write to the table ends the wait.
    await call(agent.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: 'wake', Rules: '' } });
    await call(agent.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: 'wake2', Rules: '' } });
    await agent.close();
    assert.equal((await blocked).status, 200);
    agent = await startAgent({ initialManagement: ROOT }, { dataDir: agent.dataDir });
  });
});
