/**
 * `GET /v1/agent/metrics` (Consul's agent metrics endpoint; issue 14 item 7): this agent's
 * metrics as go-metrics JSON, or Prometheus text with `?format=prometheus` or an OpenMetrics
 * `Accept` (kernel/metrics/format.ts). With ACLs on, the token needs `agent:read` on this
 * agent's node name, as the reference's `AgentMetrics`; without, anyone may read.
 *
 * @module
 */
import { MESH_FORMAT_RULES, METRICS_QUERY, metricsFormat } from '../../../kernel/metrics/index.js';
import { need, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import type { MeshReply } from '../http.js';

/** The scrape, in the format the request asks for. */
async function metricsHandler(ctx: Ctx): Promise<MeshReply> {
  return { raw: await ctx.deps.metrics.scrape(metricsFormat(ctx.query.get('format'), ctx.req.headers.accept, MESH_FORMAT_RULES)) };
}

/** The agent's metrics endpoint: `agent:read` on this agent's node (anyone with ACLs off). */
export const metricsRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'agent/metrics',
    synopsis: "This agent's metrics (JSON, or Prometheus text)",
    methods: { GET: { access: (ctx) => need('agent', 'read', ctx.deps.config.nodeName), query: METRICS_QUERY, handle: metricsHandler } },
  },
];
