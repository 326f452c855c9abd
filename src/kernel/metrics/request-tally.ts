/**
 * The tally behind the request metrics (http.ts): `cairn_http_requests_total` and
 * `cairn_http_request_duration_seconds`, kept per (route, method, status) in plain slots and
 * handed to the service's `prom-client` registry as two metrics it renders like its own.
 *
 * Why not `prom-client`'s Counter and Histogram: every request is one `inc` and one `observe`,
 * and each of those validates the labels, builds the label set's hash string and looks the
 * bucket up by its bound as a property name: 4–5 % of a KV read's main thread and of a
 * blocking query's wake-up (BENCHMARKS.md, "Issue 30, third part"). Here a request finds its
 * slot with two `Map` lookups on values it already has (the route pattern, an interned
 * string; the method's index and the status as one number) and adds to a typed array. The
 * registry, the exposition format and the JSON summary stay `prom-client`'s: at a scrape,
 * each metric's `get()` answers in the shape `prom-client`'s own metrics do
 * (`MetricObjectWithValues`: `_bucket` values with `le`, `_sum`, `_count`).
 *
 * @module
 */
import type { Metric, MetricObjectWithValues, MetricValueWithName, Registry } from 'prom-client';

/** The label names of both metrics, in their exposition order. */
type RequestLabels = { method: string; route: string; status: string };

/** One label set's counts: `buckets[i]` requests took at most `bounds[i]` s (not cumulative); the last is +Inf. */
interface Slot {
  readonly labels: RequestLabels;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** What {@link RequestTally} is made with. */
export interface RequestTallyOptions {
  /** Name and help of the counter (requests served). */
  readonly counter: { readonly name: string; readonly help: string };
  /** Name and help of the histogram (seconds until the reply was ready). */
  readonly histogram: { readonly name: string; readonly help: string };
  /** The histogram's upper bounds, in seconds, ascending (+Inf is added). */
  readonly bounds: readonly number[];
  /** The methods kept as labels (any other is counted as `OTHER`). */
  readonly methods: readonly string[];
}

/** Requests counted and timed by route pattern, method and status; see the module doc. */
export class RequestTally {
  /** Route pattern → (method index + status × 16) → slot. */
  private readonly slots = new Map<string, Map<number, Slot>>();
  private readonly bounds: readonly number[];
  private readonly methods: readonly string[];

  constructor(private readonly options: RequestTallyOptions) {
    this.bounds = options.bounds;
    this.methods = [...options.methods, 'OTHER'];
    if (this.methods.length > 16) throw new Error('RequestTally: at most 15 methods');
  }

  /** Counts one request of `method` that route `route` answered with `status` after `seconds`. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let m = this.methods.indexOf(method);
    if (m < 0) m = this.methods.length - 1;
    let byRoute = this.slots.get(route);
    if (byRoute === undefined) this.slots.set(route, (byRoute = new Map()));
    const key = m + status * 16;
    let slot = byRoute.get(key);
    if (slot === undefined) {
      slot = { labels: { method: this.methods[m]!, route, status: String(status) }, buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      byRoute.set(key, slot);
    }
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]!) b++;
    slot.buckets[b]!++;
    slot.sum += seconds;
    slot.count++;
  }

  /** Registers the counter and the histogram in `registry` (a name registered already throws, as `prom-client`'s own do). */
  register(registry: Registry): void {
    const { counter, histogram } = this.options;
    registry.registerMetric(this.metric(counter.name, counter.help, 'counter', () => this.counterValues()));
    registry.registerMetric(this.metric(histogram.name, histogram.help, 'histogram', () => this.histogramValues(histogram.name)));
  }

  /**
   * A metric as the registry reads it at a scrape (`get`) and clears it (`reset`). Both metrics
   * read one tally, so resetting either empties both: the registry only ever resets all its
   * metrics together (`resetMetrics`).
   */
  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValueWithName<string>[]): Metric {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async (): Promise<MetricObjectWithValues<MetricValueWithName<string>>> =>
        ({ name, help, type, aggregator: 'sum', values: values() }) as unknown as MetricObjectWithValues<MetricValueWithName<string>>,
      reset: () => this.slots.clear(),
    };
    // The registry asks only for these members of a metric (registry.js: name, type, get, reset).
    return metric as unknown as Metric;
  }

  private *each(): Generator<Slot> {
    for (const byRoute of this.slots.values()) yield* byRoute.values();
  }

  private counterValues(): MetricValueWithName<string>[] {
    return [...this.each()].map((s) => ({ labels: { ...s.labels }, value: s.count }));
  }

  private histogramValues(name: string): MetricValueWithName<string>[] {
    const out: MetricValueWithName<string>[] = [];
    for (const s of this.each()) {
      let cumulative = 0;
      for (let b = 0; b <= this.bounds.length; b++) {
        cumulative += s.buckets[b]!;
        // `le` first, as prom-client's Histogram writes it.
        out.push({ labels: { le: b < this.bounds.length ? this.bounds[b]! : '+Inf', ...s.labels }, value: cumulative, metricName: `${name}_bucket` });
      }
      out.push({ labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: { ...s.labels }, value: s.count, metricName: `${name}_count` });
    }
    return out;
  }
}
