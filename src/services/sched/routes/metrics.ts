/**
 * `GET /v1/metrics` (Nomad's metrics endpoint; issue 14 item 7): this agent's metrics as
 * go-metrics JSON, or Prometheus text with `?format=prometheus` (kernel/metrics/format.ts).
 * No ACL, as the reference ("ACL Required: none").
 *
 * @module
 */
import { METRICS_QUERY, metricsFormat, SCHED_FORMAT_RULES } from '../../../kernel/metrics/index.js';
import { PUBLIC } from '../../../kernel/http/index.js';
import type { SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import type { SchedReply } from '../http.js';

/** The scrape. */
async function metricsHandler(ctx: Ctx): Promise<SchedReply> {
  return { raw: await ctx.deps.metrics.scrape(metricsFormat(ctx.query.get('format'), ctx.req.headers.accept, SCHED_FORMAT_RULES)) };
}

/** The agent's metrics endpoint. */
export const metricsRoutes: readonly SchedRoute[] = [
  {
    pattern: 'metrics',
    synopsis: "This agent's metrics (JSON, or Prometheus text)",
    methods: { GET: { access: PUBLIC, query: METRICS_QUERY, handle: metricsHandler } },
  },
];
