/**
 * Forcing a periodic job's launch (issue 29 item 3; the reference's `Periodic.Force`,
 * jobs/periodic-launch.ts):
 *
 * ```text
 * POST|PUT /v1/job/:id/periodic/force   submit-job   JobRegistered   {EvalID, EvalCreateIndex, Index}
 * ```
 *
 * @module
 */
import type { SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { launchPeriodic } from '../jobs/periodic-launch.js';
import { inNamespace, namespaceOf } from './job-common.js';

/** Launches a child now, whatever its schedule and overlap. @throws 404 `job not found`; 400 `can't force launch non-periodic job`, or a launch this second already. */
async function force(ctx: Ctx): Promise<SchedReply> {
  const r = await launchPeriodic(ctx.deps, { namespace: namespaceOf(ctx), id: ctx.params.id! }, { launchMs: ctx.deps.now(), force: true });
  if (r.kind !== 'launched') throw schedBadRequest(`job "${ctx.params.id!}" was launched at this second already: try again in a second`);
  const { EvalID, EvalCreateIndex, Index } = r.write;
  return { body: { EvalID, EvalCreateIndex, Index, KnownLeader: true, LastContact: 0 }, index: Index };
}

/** Routes of this file (see the module doc). */
export const jobPeriodicRoutes: readonly SchedRoute[] = [
  {
    pattern: 'job/:id+/periodic/force',
    synopsis: "Launch a periodic job's child now",
    methods: {
      POST: { access: inNamespace('submit-job'), handle: force },
      PUT: { access: inNamespace('submit-job'), handle: force },
    },
  },
];
