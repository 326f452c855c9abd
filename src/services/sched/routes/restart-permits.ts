/**
 * Job-wide template restart permits for clients (issue 27 scope 6; a Cairn addition, the
 * reference has only a per-allocation `splay`): before a template change restarts or signals a
 * task, its client takes a permit of the allocation's (namespace, job, task group), of which at
 * most the job's `update.max_parallel` (absent or 0: 1) are held at once (restart-permits.ts).
 *
 * ```text
 * PUT    /v1/allocation/:id/restart-permit   the allocation's node secret only, no body
 *   → 200 {"Granted":true,"ExpiresAt":"<RFC 3339>"}                          held (or renewed) for 60 s
 *   → 200 {"Granted":false,"RetryAfterMs":N,"Holders":n,"Limit":n}           N: ms until the earliest holder expires, ≤ 5000
 * DELETE /v1/allocation/:id/restart-permit   → 200 {}   released (idempotent)
 * ```
 *
 * Held by the leader (`forward: 'leader'`): the count is one server's, in memory.
 *
 * @module
 */
import type { StoredAlloc } from '../alloc.js';
import { allocTerminal } from '../alloc.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, type SchedReply } from '../http.js';
import type { Job } from '../jobs/types.js';
import { T } from '../state.js';

/** The stored allocation. @throws 404 `alloc not found`. */
function storedAlloc(ctx: Ctx, id: string): (StoredAlloc & { readonly Job?: Job }) | undefined {
  return ctx.deps.state.get<StoredAlloc & { Job?: Job }>(T.allocs, id);
}

function requireAlloc(ctx: Ctx): StoredAlloc & { readonly Job?: Job } {
  const a = storedAlloc(ctx, ctx.params.id!);
  if (!a) throw schedNotFound('alloc not found');
  return a;
}

/** Only the secret of the allocation's node. */
const access = (ctx: Ctx): SchedAccess => ({ secretOf: { node: requireAlloc(ctx).NodeID } });

/** The job's `update.max_parallel`, at least 1 (the group's allocations restarted at once by a deployment). */
function limitOf(job: Job | undefined): number {
  const max = job?.Update?.MaxParallel;
  return typeof max === 'number' && max > 0 ? max : 1;
}

/** Takes or renews the allocation's permit. @throws 400 `alloc is terminal`. */
async function acquire(ctx: Ctx): Promise<SchedReply> {
  const alloc = requireAlloc(ctx);
  if (allocTerminal(alloc)) throw schedBadRequest('alloc is terminal');
  const live = (id: string) => {
    const other = storedAlloc(ctx, id);
    return other !== undefined && !allocTerminal(other);
  };
  const scope = { namespace: alloc.Namespace, job: alloc.JobID, group: alloc.TaskGroup };
  return { body: ctx.deps.restartPermits.acquire(scope, alloc.ID, { limit: limitOf(alloc.Job), live }) };
}

/** Releases the allocation's permit, if it holds one. */
async function release(ctx: Ctx): Promise<SchedReply> {
  ctx.deps.restartPermits.release(requireAlloc(ctx).ID);
  return { body: {} };
}

/** Routes of this file. */
export const restartPermitRoutes: readonly SchedRoute[] = [
  {
    pattern: 'allocation/:id/restart-permit',
    synopsis: "Take or release a job-wide template restart permit for an allocation's node (Cairn extension)",
    methods: {
      PUT: { access, forward: 'leader', handle: acquire },
      DELETE: { access, forward: 'leader', handle: release },
    },
  },
];
