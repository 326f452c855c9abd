/**
 * `GET /v1/agent/metrics` (Consul's agent metrics endpoint; issue 14 item 7): this agent's
 * metrics as go-metrics JSON, or Prometheus text with `?format=prometheus` or an OpenMetrics
 * `Accept` (kernel/metrics/format.ts). With ACLs on, the token needs `agent:read` on this
 * agent's node name, as the reference's `AgentMetrics`; without, anyone may read.
 *
 * @module
 */
import { MESH_FORMAT_RULES, metricsFormat } from '../../../kernel/metrics/index.js';
import type { Ctx, MeshDeps } from '../deps.js';
import type { MeshReply, MeshRoute } from '../http.js';

/**
 * The scrape. @throws 403 `ACL not found` (unknown token) or `Permission denied: … lacks
 * permission 'agent:read' on "<node>"` with ACLs on.
 */
async function metricsHandler(ctx: Ctx): Promise<MeshReply> {
  const { config, acl, metrics } = ctx.deps;
  if (config.acl.enabled) acl.require(acl.resolve(ctx.secret), 'agent', 'read', config.nodeName);
  return { raw: await metrics.scrape(metricsFormat(ctx.query.get('format'), ctx.req.headers.accept, MESH_FORMAT_RULES)) };
}

/** The agent's metrics endpoint. */
export const metricsRoutes: readonly MeshRoute<MeshDeps>[] = [{ pattern: 'agent/metrics', synopsis: "This agent's metrics (JSON, or Prometheus text)", methods: { GET: metricsHandler } }];
