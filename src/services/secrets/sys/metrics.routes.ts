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
import { notFound } from '../../../kernel/http/index.js';
import { metricsReply } from '../metrics.js';
import type { SecretsPath } from '../types.js';

/** `sys/metrics`. */
export const metricsPath: SecretsPath = {
  pattern: 'metrics',
  synopsis: "The server's metrics (JSON, or Prometheus text with format=prometheus)",
  fields: {
    format: Type.String({
      description: '`prometheus` for Prometheus text; empty for JSON (or Prometheus text when Accept names application/openmetrics-text)',
    }),
  },
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
