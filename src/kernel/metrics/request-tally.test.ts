/**
 * RequestTally against prom-client's own Counter and Histogram: the same requests give the
 * same exposition text and the same JSON (go-metrics' summary reads it), so scrapers and
 * dashboards see no difference; reset empties both metrics.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { RequestTally } from './request-tally.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'LIST'];
const COUNTER = { name: 'cairn_http_requests_total', help: 'HTTP requests served.' };
const HISTOGRAM = { name: 'cairn_http_request_duration_seconds', help: 'Time to handle an HTTP request.' };

/** Requests: method, route, status, seconds (bounds hit exactly, above the last, other methods). */
const REQUESTS: [string, string, number, number][] = [
  ['GET', 'kv/data/:path+', 200, 0.0004],
  ['GET', 'kv/data/:path+', 200, 0.001],
  ['GET', 'kv/data/:path+', 200, 0.0031],
  ['GET', 'kv/data/:path+', 404, 0.2],
  ['PUT', 'kv/data/:path+', 200, 12],
  ['BREW', 'unmatched', 405, 0.00001],
  ['PROPFIND', 'unmatched', 405, 0.5],
  ['LIST', 'sys/policies/acl', 200, 0.01],
];

function both(): { ours: Registry; theirs: Registry; tally: RequestTally } {
  const ours = new Registry();
  const tally = new RequestTally({ counter: COUNTER, histogram: HISTOGRAM, bounds: BOUNDS, methods: METHODS });
  tally.register(ours);
  const theirs = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ ...COUNTER, labelNames, registers: [theirs] });
  const duration = new Histogram({ ...HISTOGRAM, labelNames, buckets: BOUNDS, registers: [theirs] });
  for (const [method, route, status, seconds] of REQUESTS) {
    tally.observe(method, route, status, seconds);
    const labels = { method: METHODS.includes(method) ? method : 'OTHER', route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, seconds);
  }
  return { ours, theirs, tally };
}

describe('RequestTally', () => {
  it("renders the same exposition text as prom-client's Counter and Histogram", async () => {
    const { ours, theirs } = both();
    const text = await ours.metrics();
    assert.equal(text, await theirs.metrics());
    assert.match(text, /^cairn_http_requests_total\{method="OTHER",route="unmatched",status="405"\} 2$/m);
    assert.match(text, /^cairn_http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="kv\/data\/:path\+",status="200"\} 2$/m);
  });

  it('gives the same JSON (what the go-metrics summary is made from)', async () => {
    const { ours, theirs } = both();
    // What readers of the JSON use; prom-client's own values also carry `exemplar: null`.
    const read = async (r: Registry) =>
      (await r.getMetricsAsJSON()).map((m) => ({
        ...m,
        values: m.values.map((v) => ({ labels: v.labels, value: v.value, metricName: (v as { metricName?: string }).metricName })),
      }));
    assert.deepEqual(await read(ours), await read(theirs));
  });

  it("is emptied by the registry's reset, and a name registered twice throws", async () => {
    const { ours, tally } = both();
    ours.resetMetrics();
    assert.doesNotMatch(await ours.metrics(), /route=/);
    assert.throws(() => tally.register(ours), /already been registered/);
  });
});
