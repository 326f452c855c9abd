/**
 * `POST|PUT /v1/allocation/:id/stop` (reference/sched-workloads.md "Allocations"; the
 * reference's `alloc stop`): the allocation's `DesiredStatus` becomes `stop` (its client
 * kills its tasks) and a pending `alloc-stop` evaluation of its job is written in the same
 * transaction, so the scheduler replaces it where the job still wants it. Replies `{EvalID,
 * Index}` with `X-Sched-Index`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { allocTerminal } from '../alloc.js';
import { writeAllocation } from '../csi/alloc-claims.js';
import { identityOf, requireAllowed, type Ctx, type SchedDeps } from '../deps.js';
import { schedNotFound, writeReply, type SchedReply, type SchedRoute } from '../http.js';
import { newEvaluation, type PlacedAllocFields } from '../jobs/types.js';
import { LABEL, T } from '../state.js';

/** The reference's `DesiredDescription` of a stopped allocation. */
export const ALLOC_STOPPED = 'alloc is being stopped by user';

/**
 * Stops allocation `:id`. @throws 404 `alloc not found`; 403 without
 * `namespace:alloc-lifecycle` in its namespace.
 */
async function stopAlloc(ctx: Ctx): Promise<SchedReply> {
  const who = identityOf(ctx);
  const nowNs = ctx.deps.now() * 1e6;
  let evalId = '';
  const { index } = await writeAllocation(ctx.deps, {
    id: ctx.params.id!,
    label: LABEL.allocDesired,
    build: (alloc) => {
      if (!alloc) throw schedNotFound('alloc not found');
      requireAllowed(who.authorizer.allowNamespaceOperation(alloc.Namespace, 'alloc-lifecycle'));
      if (allocTerminal(alloc)) return alloc;
      return { ...alloc, DesiredStatus: 'stop', DesiredDescription: ALLOC_STOPPED, ModifyTime: nowNs };
    },
    also: (tx, next, previous) => {
      const job = (next as Partial<PlacedAllocFields>).Job;
      const ev = newEvaluation(randomUUID(), job ?? { ID: next.JobID, Namespace: next.Namespace, Type: 'service', Priority: 50, JobModifyIndex: 0 }, 'alloc-stop', nowNs);
      if (previous && allocTerminal(previous)) return;
      evalId = ev.ID;
      tx.put(T.evals, ev.ID, ev);
    },
  });
  return writeReply(index, { EvalID: evalId, Index: index });
}

/** Routes of this file. */
export const allocStopRoutes: readonly SchedRoute<SchedDeps>[] = [
  {
    pattern: 'allocation/:id/stop',
    synopsis: 'Stop an allocation (its job\'s scheduler replaces it where still wanted)',
    methods: { POST: stopAlloc, PUT: stopAlloc },
  },
];
