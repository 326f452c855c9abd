/**
 * The request figures of a service from its Prometheus metrics (kernel/metrics/http.ts:
 * `cairn_http_requests_total` and the `cairn_http_request_duration_seconds` histogram, every
 * route and status summed): a sample per scrape, and between two samples the requests per
 * second and the 99th percentile latency, interpolated within its bucket as Prometheus's
 * `histogram_quantile` does. No server state: the page keeps the samples.
 */

/** One scrape: when (epoch ms), requests served so far, and the cumulative count per bucket bound (seconds). */
export interface MetricSample {
  readonly at: number;
  readonly requests: number;
  readonly buckets: ReadonlyMap<number, number>;
}

const REQUESTS = /^cairn_http_requests_total(?:\{[^}]*\})? ([0-9.e+-]+)$/;
const BUCKET = /^cairn_http_request_duration_seconds_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\} ([0-9.e+-]+)$/;

/** The sample of Prometheus text `text` scraped at `at`. Lines of other metrics are skipped; the text is the page's own service's, bounded by it. */
export function parseSample(text: string, at: number): MetricSample {
  let requests = 0;
  const buckets = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('cairn_http_request')) continue;
    const r = REQUESTS.exec(line);
    if (r) {
      requests += Number(r[1]);
      continue;
    }
    const b = BUCKET.exec(line);
    if (b) {
      const le = b[1] === '+Inf' ? Infinity : Number(b[1]);
      buckets.set(le, (buckets.get(le) ?? 0) + Number(b[2]));
    }
  }
  return { at, requests, buckets };
}

/** Requests per second between samples `a` and `b` (0 when no time passed or the counters restarted). */
export function ratePerSecond(a: MetricSample, b: MetricSample): number {
  const dt = (b.at - a.at) / 1000;
  const dn = b.requests - a.requests;
  return dt > 0 && dn >= 0 ? dn / dt : 0;
}

/** The 99th percentile latency (ms) of the requests served between `a` and `b`; null when there were none. */
export function p99Ms(a: MetricSample, b: MetricSample): number | null {
  const bounds = [...b.buckets.keys()].sort((x, y) => x - y);
  const delta = bounds.map((le) => Math.max(0, (b.buckets.get(le) ?? 0) - (a.buckets.get(le) ?? 0)));
  const total = delta[delta.length - 1] ?? 0;
  if (total <= 0) return null;
  const rank = 0.99 * total;
  for (let i = 0; i < bounds.length; i++) {
    if (delta[i]! < rank) continue;
    const upper = bounds[i]!;
    const lower = i === 0 ? 0 : bounds[i - 1]!;
    // Past the last finite bound the reference's histogram_quantile answers that bound.
    if (!Number.isFinite(upper)) return lower * 1000;
    const below = i === 0 ? 0 : delta[i - 1]!;
    const inBucket = delta[i]! - below;
    return (lower + (upper - lower) * (inBucket > 0 ? (rank - below) / inBucket : 1)) * 1000;
  }
  return null;
}
