/**
 * One service's metrics (issue 14 item 7): a `prom-client` {@link Registry} of its own, never
 * the library's global one, because `cairn dev` runs every service in one process and each
 * serves only its own metrics. Node's process metrics are in every registry.
 *
 * Naming (docs/deploy.md "Monitoring"): `cairn_<part>_<what>[_<unit>]`, `<part>` being a
 * kernel part shared by services (`http`, `store`, `replication`, `server`) or a service
 * (`secrets`, `mesh`, `sched`, `gateway`). Values that exist only at scrape time (seal
 * state, counts of stored objects) are gauges whose `collect` reads them then.
 *
 * @module
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { goMetricsJson } from './go-metrics-json.js';

/** A scrape: the body and its `Content-Type`. */
export interface MetricsScrape {
  readonly contentType: string;
  readonly body: string;
}

/** How a scrape is rendered: Prometheus text exposition format 0.0.4, or go-metrics' JSON summary. */
export type MetricsFormat = 'prometheus' | 'json';

/** A gauge read at scrape time: its value, or one value per label set. */
export interface ScrapeGauge {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  /**
   * The value now: a number (unlabelled gauge) or `[labels, value]` pairs (a labelled one;
   * label sets not returned have no sample). May be async (a count read from storage).
   */
  readonly read: () => number | ReadonlyArray<readonly [Record<string, string>, number]> | Promise<number>;
}

/** The metrics of one running service. */
export class ServiceMetrics {
  /** The service's own registry; its metrics register here (`registers: [metrics.registry]`). */
  readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Registers a gauge whose value is read at each scrape ({@link ScrapeGauge}). @throws
   * Error when a metric of that name is registered already (a programming error).
   */
  gauge(g: ScrapeGauge): void {
    new Gauge({
      name: g.name,
      help: g.help,
      labelNames: g.labelNames ?? [],
      registers: [this.registry],
      async collect() {
        const v = await g.read();
        if (typeof v === 'number') return this.set(v);
        // Label sets of an earlier scrape that no longer exist must not linger.
        this.reset();
        for (const [labels, value] of v) this.set(labels, value);
      },
    });
  }

  /**
   * Renders every metric in `format`: Prometheus text (`text/plain; version=0.0.4`) or the
   * JSON summary the reference products return by default ({@link goMetricsJson}).
   */
  async scrape(format: MetricsFormat): Promise<MetricsScrape> {
    if (format === 'prometheus') return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    return { contentType: 'application/json', body: JSON.stringify(goMetricsJson(await this.registry.getMetricsAsJSON(), new Date())) };
  }
}
