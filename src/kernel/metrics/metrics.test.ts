/**
 * The metrics kernel on real storage: group-commit metrics of SQLite and PostgreSQL move
 * after writes, the PostgreSQL pool's use shows busy / idle / waiting connections while
 * reads are in flight, a scrape-time gauge drops label sets that went away, go-metrics JSON
 * keeps histogram counts and sums, and the three format rules of the references.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { PostgresBackend, quoteTableName, SqliteBackend } from '../store/index.js';
import { sideTableName } from '../store/pg-schema.js';
import { startPgTestServer } from '../store/testdata/pg-cluster.js';
import { parsePrometheusText, sampleValue } from '../../../test/prometheus-text.js';
import { MESH_FORMAT_RULES, metricsFormat, observeBackend, SCHED_FORMAT_RULES, SECRETS_FORMAT_RULES, ServiceMetrics } from './index.js';

const samples = async (m: ServiceMetrics) => parsePrometheusText((await m.scrape('prometheus')).body);

describe('store metrics', () => {
  it('SQLite: one group of concurrent writes shows as one commit of their size', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-metrics-'));
    const backend = SqliteBackend.open({ path: join(dir, 'm.db') });
    try {
      const m = new ServiceMetrics();
      observeBackend(m, backend);
      await Promise.all(Array.from({ length: 5 }, (_, i) => backend.put(`k/${i}`, Buffer.from('v'))));
      const s = await samples(m);
      assert.equal(sampleValue(s, 'cairn_store_commit_group_writes_count'), 1);
      assert.equal(sampleValue(s, 'cairn_store_commit_group_writes_sum'), 5);
      assert.equal(sampleValue(s, 'cairn_store_commit_duration_seconds_count'), 1);
      assert.equal(sampleValue(s, 'cairn_store_commit_failures_total'), 0);
      assert.equal(sampleValue(s, 'cairn_store_pg_pool_max'), undefined, 'no pool metrics on SQLite');
    } finally {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: pool connections by state, and commits', async () => {
    const server = await startPgTestServer();
    const table = `cairn_test_metrics_${randomBytes(3).toString('hex')}`;
    const backend = await PostgresBackend.open({ connectionUrl: server.url, table, maxParallel: 2 });
    try {
      const m = new ServiceMetrics();
      observeBackend(m, backend);
      await backend.put('a', Buffer.from('1'));
      let s = await samples(m);
      assert.equal(sampleValue(s, 'cairn_store_pg_pool_max'), 2);
      assert.equal(sampleValue(s, 'cairn_store_commit_group_writes_count'), 1);
      assert.equal(sampleValue(s, 'cairn_store_pg_pool_connections', { state: 'waiting' }), 0);
      // Four reads on two connections while another session locks the table: two hold a
      // connection (blocked on the lock), two wait for one.
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${quoteTableName(table)} IN ACCESS EXCLUSIVE MODE`);
      const reads = Array.from({ length: 4 }, (_, i) => backend.get(`missing/${i}`));
      let busy: number | undefined;
      let waiting: number | undefined;
      try {
        // The pool hands out its connections as they open: poll until it has settled.
        for (let i = 0; i < 200 && !(busy === 2 && waiting === 2); i++) {
          if (i > 0) await new Promise((r) => setTimeout(r, 10));
          s = await samples(m);
          busy = sampleValue(s, 'cairn_store_pg_pool_connections', { state: 'busy' });
          waiting = sampleValue(s, 'cairn_store_pg_pool_connections', { state: 'waiting' });
        }
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      assert.deepEqual({ busy, waiting }, { busy: 2, waiting: 2 });
      await Promise.all(reads);
      s = await samples(m);
      assert.equal(sampleValue(s, 'cairn_store_pg_pool_connections', { state: 'waiting' }), 0);
      assert.equal(sampleValue(s, 'cairn_store_pg_pool_connections', { state: 'busy' }), 0);
      assert.ok(sampleValue(s, 'cairn_store_pg_pool_connections', { state: 'idle' })! >= 1);
    } finally {
      await backend.close();
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(`DROP TABLE IF EXISTS ${quoteTableName(table)}, ${sideTableName(table, 'index')}, ${sideTableName(table, 'ha')}`);
      await admin.end();
      await server.stop();
    }
  });
});

describe('ServiceMetrics', () => {
  it('a scrape-time gauge drops label sets that went away; JSON keeps counts and sums', async () => {
    const m = new ServiceMetrics();
    let states: Array<readonly [Record<string, string>, number]> = [
      [{ state: 'a' }, 1],
      [{ state: 'b' }, 2],
    ];
    m.gauge({ name: 'test_things', help: 'things', labelNames: ['state'], read: () => states });
    assert.equal(sampleValue(await samples(m), 'test_things', { state: 'b' }), 2);
    states = [[{ state: 'a' }, 3]];
    const s = await samples(m);
    assert.equal(sampleValue(s, 'test_things', { state: 'a' }), 3);
    assert.equal(sampleValue(s, 'test_things', { state: 'b' }), undefined);
    const json = JSON.parse((await m.scrape('json')).body);
    assert.deepEqual(
      json.Gauges.filter((g: { Name: string }) => g.Name === 'test_things'),
      [{ Name: 'test_things', Value: 3, Labels: { state: 'a' } }],
    );
    const lag = json.Samples.find((x: { Name: string }) => x.Name === 'nodejs_gc_duration_seconds');
    if (lag) assert.equal(lag.Mean, lag.Count === 0 ? 0 : lag.Sum / lag.Count);
  });
});

describe('metricsFormat', () => {
  it("follows each reference's rules", () => {
    const om = 'application/openmetrics-text; version=1.0.0';
    assert.equal(metricsFormat('prometheus', undefined, SECRETS_FORMAT_RULES), 'prometheus');
    assert.equal(metricsFormat(null, om, SECRETS_FORMAT_RULES), 'prometheus');
    assert.equal(metricsFormat('', 'prometheus/telemetry', SECRETS_FORMAT_RULES), 'prometheus');
    assert.equal(metricsFormat(null, 'application/json', SECRETS_FORMAT_RULES), 'json');
    assert.throws(() => metricsFormat('xml', om, SECRETS_FORMAT_RULES), { status: 400, message: 'metric response format "xml" unknown' });
    assert.equal(metricsFormat('xml', om, MESH_FORMAT_RULES), 'prometheus');
    assert.equal(metricsFormat('xml', undefined, MESH_FORMAT_RULES), 'json');
    assert.equal(metricsFormat(null, om, SCHED_FORMAT_RULES), 'json');
    assert.equal(metricsFormat('prometheus', undefined, SCHED_FORMAT_RULES), 'prometheus');
  });
});
