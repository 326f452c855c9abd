/**
 * The client's allocation lifecycle endpoints (reference/sched-workloads.md "Allocations"),
 * answered by the agent whose client runs the allocation (others forward, client-locate.ts):
 *
 * ```text
 * POST|PUT /v1/client/allocation/:id/restart   {"TaskName"?, "AllTasks"?}   namespace:alloc-lifecycle
 * POST|PUT /v1/client/allocation/:id/signal    {"Signal"?, "Task"?}         namespace:alloc-lifecycle
 * ```
 *
 * Restart: the named task, or every task (`AllTasks`, or no name), is killed and started
 * again without counting against the restart policy (events `Restart Signaled`, `Terminated`,
 * `Restarting`, `Started`). Signal: `Signal` (default `SIGKILL`, as the reference) to the
 * named task, or every running task, with a `Signaling` event. Both reply `{}`.
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import type { SchedRoute } from '../access.js';
import { nullAsEmpty } from '../body.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { allocAccess, locateAlloc, type LocalAlloc } from './client-locate.js';
import type { TaskRunner } from '../client/task-runner.js';

/**
 * The running allocation's task runners named by `task` (all when empty). @throws 400
 * `Allocation "<id>" is not running`, `Task not running` / `unknown task name "<t>"`.
 */
function runnersOf(local: LocalAlloc, task: string): TaskRunner[] {
  const runner = local.runner;
  if (!runner || runner.finished) throw schedBadRequest(`Allocation "${local.alloc.ID}" is not running`);
  if (task === '') return [...runner.tasks.values()].filter((t) => !t.dead);
  const t = runner.tasks.get(task);
  if (!t) throw schedBadRequest(`unknown task name "${task}"`);
  if (t.dead) throw schedBadRequest('Task not running');
  return [t];
}

/** The body of a restart (the reference's `structs.AllocRestartRequest`); empty or `null`: every field its zero value. */
const RestartBody = nullAsEmpty(Go.struct('structs.AllocRestartRequest', { TaskName: Go.string('the task to restart'), AllTasks: Go.bool() }));
/** The body of a signal (the reference's `structs.AllocSignalRequest`); empty or `null`: every field its zero value. */
const SignalBody = nullAsEmpty(Go.struct('structs.AllocSignalRequest', { Signal: Go.string('default SIGKILL'), Task: Go.string('the task; all when empty') }));

/** `alloc-lifecycle` on the allocation (client-locate.ts `allocAccess`); the body's 400s come first, as in the reference. */
const LIFECYCLE = allocAccess('alloc-lifecycle');

/** `…/restart`. @throws 400 for a bad body and as {@link runnersOf}; as {@link locateAlloc}. */
async function restart(ctx: Ctx, body: Static<typeof RestartBody> | undefined): Promise<SchedReply> {
  const where = await locateAlloc(ctx);
  if ('forwarded' in where) return where.forwarded;
  const name = body === undefined || body.AllTasks ? '' : body.TaskName;
  for (const t of runnersOf(where.local, name)) t.restart();
  return { body: {} };
}

/** `…/signal`. @throws 400 `unknown signal "<s>"` and as {@link runnersOf}; as {@link locateAlloc}. */
async function signal(ctx: Ctx, body: Static<typeof SignalBody> | undefined): Promise<SchedReply> {
  const where = await locateAlloc(ctx);
  if ('forwarded' in where) return where.forwarded;
  const sig = body?.Signal || 'SIGKILL';
  for (const t of runnersOf(where.local, body?.Task ?? '')) {
    try {
      t.signal(sig);
    } catch (err) {
      throw schedBadRequest((err as Error).message);
    }
  }
  return { body: {} };
}

/** Routes of this file (see the module doc). */
export const clientAllocationRoutes: readonly SchedRoute[] = [
  {
    pattern: 'client/allocation/:id/restart',
    synopsis: 'Restart a task (or all tasks) of an allocation',
    // Answered by the agent running the allocation (or forwarded to it), never by the leader.
    methods: {
      POST: withBody(RestartBody, { access: LIFECYCLE, forward: 'local', handle: restart }),
      PUT: withBody(RestartBody, { access: LIFECYCLE, forward: 'local', handle: restart }),
    },
  },
  {
    pattern: 'client/allocation/:id/signal',
    synopsis: 'Send a signal to a task (or all tasks) of an allocation',
    methods: {
      POST: withBody(SignalBody, { access: LIFECYCLE, forward: 'local', handle: signal }),
      PUT: withBody(SignalBody, { access: LIFECYCLE, forward: 'local', handle: signal }),
    },
  },
];
