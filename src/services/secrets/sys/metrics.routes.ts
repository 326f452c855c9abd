/**
 * `GET /v1/sys/metrics` (Vault's `sys/metrics`; issue 14 item 7): the server's metrics as
 * go-metrics JSON, or Prometheus text with `?format=prometheus` or an OpenMetrics `Accept`
 * (kernel/metrics/format.ts). A logical path: it needs an unsealed core and a token with
 * `read` on `sys/metrics`, and only the root namespace has it. Listeners with
 * `telemetry { unauthenticated_metrics_access = true }` answer it before all that
 * (service.ts), as the reference's dedicated handler.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { notFound, type HttpResponse } from '../../../kernel/http/index.js';
import { metricsFormat, SECRETS_FORMAT_RULES, type ServiceMetrics } from '../../../kernel/metrics/index.js';
import type { SecretsPath } from '../types.js';

/**
 * The scrape in the format `format` (the query parameter) and `accept` (the header) ask
 * for, as a reply. @throws 400 `metric response format "<f>" unknown` for another `format`.
 */
export async function metricsReply(metrics: ServiceMetrics, format: string | null | undefined, accept: string | string[] | undefined): Promise<HttpResponse> {
  const scrape = await metrics.scrape(metricsFormat(format, accept, SECRETS_FORMAT_RULES));
  return { status: 200, headers: { 'Content-Type': scrape.contentType }, body: scrape.body };
}

/** `sys/metrics`. */
export const metricsPath: SecretsPath = {
  pattern: 'metrics',
  synopsis: "The server's metrics (JSON, or Prometheus text with format=prometheus)",
  fields: { format: Type.String({ description: '`prometheus` for Prometheus text; empty for JSON (or Prometheus text when Accept names application/openmetrics-text)' }) },
  operations: {
    read: {
      summary: 'Read the metrics',
      handle: async (r) => {
        if (!r.core.metrics) throw notFound();
        return { reply: await metricsReply(r.core.metrics, r.data.format as string | undefined, r.headers.accept) };
      },
    },
  },
};
