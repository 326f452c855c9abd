/**
 * `GET /v1/sys/metrics` of the secrets service (issue 14 item 7; Vault's `sys/metrics`), over
 * real HTTP: a token with `read` on `sys/metrics` is needed (403 without), except on a
 * listener with `unauthenticated_metrics_access`, which answers even sealed; go-metrics JSON
 * by default, Prometheus text with `?format=prometheus` or an OpenMetrics `Accept`, 400 for
 * another format; seal and HA gauges follow the state; requests are counted by mount and
 * route pattern, never by the secret's path; group commits move after a write.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { SqliteBackend } from '../../src/kernel/store/index.js';
import { startSecretsService, type SecretsService } from '../../src/services/secrets/service.js';
import { call } from '../helpers.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

describe('secrets service metrics', () => {
  let dir: string;
  let service: SecretsService;
  let closed: string; // a listener with the default rules
  let open: string; // a listener with unauthenticated_metrics_access
  let root: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-metrics-'));
    service = await startSecretsService({
      backend: SqliteBackend.open({ path: join(dir, 'secrets.db') }),
      listeners: [{ address: '127.0.0.1:0' }, { address: '127.0.0.1:0', unauthenticatedMetricsAccess: true }],
      log: silentLogger(),
    });
    [closed, open] = service.listeners.map((l) => l.url);
  });
  after(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async (url = open, token?: string) => {
    const r = await call(url, 'GET', '/v1/sys/metrics?format=prometheus', { token });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheusText(r.text);
  };

  it('serves a listener with unauthenticated_metrics_access while sealed; seal gauges follow the state', async () => {
    let s = await scrape();
    assert.deepEqual([sampleValue(s, 'cairn_secrets_initialized'), sampleValue(s, 'cairn_secrets_sealed'), sampleValue(s, 'cairn_secrets_active')], [0, 1, 0]);
    // The other listener needs the core, as any logical path.
    assert.equal((await call(closed, 'GET', '/v1/sys/metrics')).status, 503);
    const init = await service.node.initialize(1, 1);
    root = init.root_token;
    s = await scrape();
    assert.deepEqual([sampleValue(s, 'cairn_secrets_initialized'), sampleValue(s, 'cairn_secrets_sealed')], [1, 1]);
    await service.node.unseal(init.keys[0]);
    s = await scrape();
    assert.deepEqual([sampleValue(s, 'cairn_secrets_sealed'), sampleValue(s, 'cairn_secrets_active'), sampleValue(s, 'cairn_secrets_standby')], [0, 1, 0]);
    assert.equal(sampleValue(s, 'cairn_secrets_tokens'), 1);
    const ns = await call(open, 'GET', '/v1/sys/metrics', { headers: { 'X-Secrets-Namespace': 'team' } });
    assert.deepEqual([ns.status, ns.json], [400, { errors: ['operation unavailable in namespaces'] }]);
  });

  it('needs read on sys/metrics elsewhere', async () => {
    assert.equal((await call(closed, 'GET', '/v1/sys/metrics')).status, 403);
    const tokenWith = async (name: string, policy: string) => {
      const p = await call(closed, 'PUT', `/v1/sys/policies/acl/${name}`, { token: root, body: { policy } });
      assert.equal(p.status, 204, p.text);
      const t = await call(closed, 'POST', '/v1/auth/token/create', { token: root, body: { policies: [name] } });
      assert.equal(t.status, 200, t.text);
      return t.json.auth.client_token as string;
    };
    const other = await tokenWith('kv-only', 'path "secret/*" { capabilities = ["read"] }');
    assert.equal((await call(closed, 'GET', '/v1/sys/metrics', { token: other })).status, 403);
    const reader = await tokenWith('metrics', 'path "sys/metrics" { capabilities = ["read"] }');
    const r = await call(closed, 'GET', '/v1/sys/metrics', { token: reader });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(Object.keys(r.json).sort(), ['Counters', 'Gauges', 'Points', 'Samples', 'Timestamp']);
    assert.deepEqual(
      r.json.Gauges.find((g: { Name: string }) => g.Name === 'cairn_secrets_tokens'),
      { Name: 'cairn_secrets_tokens', Value: 3, Labels: {} },
    );
    assert.equal(sampleValue(await scrape(closed, reader), 'cairn_secrets_sealed'), 0);
  });

  it('picks the format as the reference: Accept, and 400 for an unknown one', async () => {
    const a = await call(closed, 'GET', '/v1/sys/metrics', { token: root, headers: { Accept: 'application/openmetrics-text' } });
    assert.equal(a.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    parsePrometheusText(a.text);
    for (const url of [closed, open]) {
      const bad = await call(url, 'GET', '/v1/sys/metrics?format=xml', { token: root });
      assert.deepEqual([bad.status, bad.json], [400, { errors: ['metric response format "xml" unknown'] }]);
    }
  });

  it('counts requests by mount and route pattern, and shows the write commit', async () => {
    await service.core.root.mountEngine('secret', { type: 'kv', options: { version: '2' } });
    const before = await scrape();
    const labels = { method: 'POST', route: 'secret/data/:path+', status: '200' };
    const count = sampleValue(before, 'cairn_http_requests_total', labels) ?? 0;
    const writes = sampleValue(before, 'cairn_store_commit_group_writes_count')!;
    const w = await call(closed, 'POST', '/v1/secret/data/billing/db-password', { token: root, body: { data: { value: 'x' } } });
    assert.equal(w.status, 200, w.text);
    const r = await call(open, 'GET', '/v1/sys/metrics?format=prometheus');
    const now = parsePrometheusText(r.text);
    assert.equal(sampleValue(now, 'cairn_http_requests_total', labels), count + 1);
    assert.ok(sampleValue(now, 'cairn_store_commit_group_writes_count')! > writes);
    assert.ok(sampleValue(now, 'cairn_store_commit_duration_seconds_count')! > writes - 1);
    assert.ok(sampleValue(now, 'cairn_http_requests_total', { method: 'GET', route: 'sys/metrics', status: '200' })! >= 1);
    assert.ok(!r.text.includes('billing'), 'a secret path is never a label value');
  });
});
