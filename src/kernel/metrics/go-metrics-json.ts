/**
 * The JSON the reference products answer their metrics endpoints with by default (Vault
 * `GET /v1/sys/metrics`, Consul `GET /v1/agent/metrics`, Nomad `GET /v1/metrics`): the
 * summary of go-metrics' in-memory sink, `{"Timestamp","Gauges","Points","Counters","Samples"}`,
 * rendered from a `prom-client` registry.
 *
 * What differs from go-metrics (docs/compatibility.md): names are the Prometheus names
 * (`cairn_http_requests_total`, not dotted); counters and samples are totals since the
 * service started, not the last 10-second interval, so `Counters[].Count` and `Sum` are the
 * counter's value, and `Samples[]` (histograms) carry `Count`, `Sum` and `Mean` only — no
 * `Min`, `Max`, `Stddev` or `Rate`, which a cumulative histogram does not know.
 *
 * @module
 */
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** One gauge sample. */
interface GoGauge {
  readonly Name: string;
  readonly Value: number;
  readonly Labels: Record<string, string>;
}

/** One counter or histogram, cumulative (see the module doc). */
interface GoSampled {
  readonly Name: string;
  readonly Count: number;
  readonly Sum: number;
  /** Histograms only: `Sum / Count` (0 when `Count` is 0). */
  readonly Mean?: number;
  readonly Labels: Record<string, string>;
}

/** go-metrics' `MetricsSummary`. */
export interface GoMetricsSummary {
  /** go's `time.Time.String()` in UTC, whole seconds: `2026-01-02 15:04:05 +0000 UTC`. */
  readonly Timestamp: string;
  readonly Gauges: GoGauge[];
  /** Always empty (go-metrics' points; nothing here emits them). */
  readonly Points: never[];
  readonly Counters: GoSampled[];
  readonly Samples: GoSampled[];
}

type Metric = MetricObjectWithValues<MetricValue<string> & { metricName?: string }>;

/** Renders `metrics` (from `registry.getMetricsAsJSON()`) as go-metrics' summary at time `at`. */
export function goMetricsJson(metrics: readonly Metric[], at: Date): GoMetricsSummary {
  const out: GoMetricsSummary = { Timestamp: goTime(at), Gauges: [], Points: [], Counters: [], Samples: [] };
  for (const m of metrics) {
    // prom-client's typings call the type an enum; at run time it is the exposition name.
    const type = String(m.type);
    if (type === 'gauge') for (const v of m.values) out.Gauges.push({ Name: m.name, Value: v.value, Labels: labelsOf(v.labels) });
    else if (type === 'counter') for (const v of m.values) out.Counters.push({ Name: m.name, Count: v.value, Sum: v.value, Labels: labelsOf(v.labels) });
    else out.Samples.push(...sampled(m));
  }
  return out;
}

/** A histogram's or summary's `_count` and `_sum` per label set (buckets and quantiles dropped). */
function sampled(m: Metric): GoSampled[] {
  const byLabels = new Map<string, { labels: Record<string, string>; count: number; sum: number }>();
  for (const v of m.values) {
    const isCount = v.metricName === `${m.name}_count`;
    const isSum = v.metricName === `${m.name}_sum`;
    if (!isCount && !isSum) continue;
    const labels = labelsOf(v.labels);
    const key = JSON.stringify(labels);
    let e = byLabels.get(key);
    if (!e) byLabels.set(key, (e = { labels, count: 0, sum: 0 }));
    if (isCount) e.count = v.value;
    else e.sum = v.value;
  }
  return [...byLabels.values()].map((e) => ({ Name: m.name, Count: e.count, Sum: e.sum, Mean: e.count === 0 ? 0 : e.sum / e.count, Labels: e.labels }));
}

function labelsOf(labels: Partial<Record<string, string | number>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (v !== undefined) out[k] = String(v);
  return out;
}

function goTime(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}
