/**
 * `GET /v1/client/allocation/:id/stats` (the reference's route, `namespace:read-job`):
 * what an allocation's tasks use now, answered by the agent whose client runs it (others
 * forward, client-locate.ts) — `{ResourceUsage, Tasks: {<task>: {ResourceUsage, Timestamp,
 * Pids: null}}, Timestamp}` with `Timestamp` in Unix ns, from `/proc`
 * (client/process-stats.ts). A task between runs is left out; the allocation's figures are
 * its tasks' sum.
 *
 * @module
 */
import type { SchedRoute } from '../access.js';
import { sumUsage, taskUsage, type ResourceUsage } from '../client/process-stats.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { allocAccess, locateAlloc } from './client-locate.js';

/** The stats of `:id`. @throws 400 `Allocation "<id>" is not running`; as {@link locateAlloc}. */
async function stats(ctx: Ctx): Promise<SchedReply> {
  const where = await locateAlloc(ctx);
  if ('forwarded' in where) return where.forwarded;
  const { runner, alloc, client } = where.local;
  if (!runner || runner.finished) throw schedBadRequest(`Allocation "${alloc.ID}" is not running`);
  const nowNs = Date.now() * 1e6;
  const tasks: Record<string, { ResourceUsage: ResourceUsage; Timestamp: number; Pids: null }> = {};
  for (const [name, t] of runner.tasks) {
    const usage = t.pid !== undefined && !t.dead ? taskUsage(t.pid, client.cpuMhz) : undefined;
    if (usage) tasks[name] = { ResourceUsage: usage, Timestamp: nowNs, Pids: null };
  }
  return { body: { ResourceUsage: sumUsage(Object.values(tasks).map((t) => t.ResourceUsage)), Tasks: tasks, Timestamp: nowNs } };
}

/** Routes of this file (see the module doc). */
export const clientStatsRoutes: readonly SchedRoute[] = [
  {
    pattern: 'client/allocation/:id/stats',
    synopsis: "What an allocation's tasks use now: memory (RSS) and CPU",
    methods: { GET: { access: allocAccess('read-job'), forward: 'local', handle: stats } },
  },
];
