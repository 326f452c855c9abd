/**
 * A scheduler worker's run of one evaluation (the reference's `nomad/worker.go` with its
 * scheduler and plan submission): plan from the current state (schedule.ts), apply
 * (apply.ts), and when the applier refused part of the plan, plan again from the state
 * the apply left (at most {@link MAX_PLAN_ATTEMPTS} times). Then, in one write labelled
 * `EvaluationUpdated`: the evaluation `complete` with `FailedTGAllocs` and
 * `QueuedAllocations`; when something could not be placed, a `blocked` evaluation
 * (`TriggeredBy: queued-allocs`, one per job: older blocked ones are canceled) that the leader
 * sets `pending` again when capacity appears (leader.ts), or, for a blocked evaluation run
 * again that still cannot place, that one blocked again. When an allocation became terminal
 * after the last plan was computed (this plan's own stops, or a client's report meanwhile),
 * the leader's unblock came before this write and missed it, so the new evaluation is written
 * `pending` at once instead (the reference's blocked-evaluation tracker unblocks such a
 * "missed unblock" the same way): an `alloc stop` of an allocation holding a single-writer CSI
 * volume places its replacement once the stop released the claim; the follow-up evaluations of
 * delayed reschedules; the job's status. A run that throws marks the evaluation `failed`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../kernel/log/logger.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { allocTerminal } from '../alloc.js';
import type { SchedDeps } from '../service-deps.js';
import { jobKey, newEvaluation, type AllocMetric, type Evaluation } from '../jobs/types.js';
import { LABEL, T } from '../state.js';
import { applyPlan } from './apply.js';
import { refreshJobStatus } from './job-status.js';
import type { ExistingAlloc, Plan } from './model.js';
import { computePlan } from './schedule.js';

/** Plans tried for one evaluation when the applier keeps refusing placements (the reference retries a refreshed plan too). */
const MAX_PLAN_ATTEMPTS = 5;

/** `TriggeredBy` of the blocked evaluation a failed placement leaves (the reference's `EvalTriggerQueuedAllocs`). */
const BLOCKED_TRIGGER = 'queued-allocs';

/** Runs evaluation `evalId` if it is still pending (see the module doc); a failure is logged on `log` and marks it `failed`. */
export async function runEvaluation(deps: SchedDeps, evalId: string, log: Logger): Promise<void> {
  const state = deps.state;
  const evaluation = state.get<Evaluation>(T.evals, evalId);
  if (!evaluation || evaluation.Status !== 'pending') return;
  const nowNs = () => deps.now() * 1e6;
  try {
    let plan: Plan;
    let refused = 0;
    let attempts = 0;
    let planned = 0;
    do {
      planned = state.index;
      plan = computePlan(deps, state, evaluation, { nowNs: nowNs() });
      refused = (await applyPlan(deps, plan, nowNs())).refused;
    } while (refused > 0 && ++attempts < MAX_PLAN_ATTEMPTS);
    await finish(deps, evaluation, { plan, refused, nowNs: nowNs(), planned });
  } catch (err) {
    log.warn({ err, eval: evalId }, 'scheduler: evaluation failed');
    await state
      .txn((tx) => {
        const cur = tx.get<Evaluation>(T.evals, evalId);
        if (cur?.Status === 'pending')
          tx.put<Evaluation>(T.evals, evalId, {
            ...cur,
            Status: 'failed',
            StatusDescription: `scheduler error: ${(err as Error).message}`,
            ModifyTime: nowNs(),
          });
      }, LABEL.evalUpdate)
      .catch(() => undefined);
  }
}

/** Did an allocation become terminal (resources or CSI claims freed) in a write after state index `since`? */
function freedSince(state: SchedDeps['state'], since: number): boolean {
  return state.list<ExistingAlloc & Indexed>(T.allocs).some((a) => a.ModifyIndex > since && allocTerminal(a));
}

/** The closing write of an evaluation (module doc); `planned`: the state index its last plan was computed at. */
async function finish(
  deps: SchedDeps,
  evaluation: Evaluation,
  { plan, refused, nowNs, planned }: { plan: Plan; refused: number; nowNs: number; planned: number },
): Promise<void> {
  const failed: Record<string, AllocMetric> = { ...plan.failed };
  const queued: Record<string, number> = Object.fromEntries((plan.job?.TaskGroups ?? []).map((g) => [g.Name, plan.queued[g.Name] ?? 0]));
  const blocking = Object.keys(failed).length > 0 || refused > 0;
  await deps.state.txn((tx) => {
    const cur = tx.get<Evaluation>(T.evals, evaluation.ID);
    if (!cur || cur.Status !== 'pending') return;
    const done = { FailedTGAllocs: Object.keys(failed).length > 0 ? failed : null, QueuedAllocations: queued, ModifyTime: nowNs };
    const missed = blocking && freedSince(deps.state, planned);
    if (blocking && cur.TriggeredBy === BLOCKED_TRIGGER && !missed) {
      tx.put<Evaluation>(T.evals, cur.ID, { ...cur, ...done, Status: 'blocked' });
    } else {
      let blockedId = '';
      if (blocking) {
        for (const e of tx.listBy<Evaluation>(T.evals, 'job', jobKey(cur.Namespace, cur.JobID))) {
          if (e.Status === 'blocked')
            tx.put<Evaluation>(T.evals, e.ID, { ...e, Status: 'canceled', StatusDescription: 'evaluation is outdated', ModifyTime: nowNs });
        }
        blockedId = randomUUID();
        tx.put<Evaluation>(
          T.evals,
          blockedId,
          newEvaluation(
            blockedId,
            { ID: cur.JobID, Namespace: cur.Namespace, Type: cur.Type, Priority: cur.Priority, JobModifyIndex: cur.JobModifyIndex },
            { triggeredBy: BLOCKED_TRIGGER, nowNs },
            {
              Status: missed ? 'pending' : 'blocked',
              StatusDescription: 'created to place remaining allocations',
              PreviousEval: cur.ID,
            },
          ),
        );
      }
      tx.put<Evaluation>(T.evals, cur.ID, { ...cur, ...done, Status: 'complete', BlockedEval: blockedId });
    }
    for (const f of plan.followups) tx.put<Evaluation>(T.evals, f.ID, f);
    refreshJobStatus(tx, cur.Namespace, cur.JobID);
  }, LABEL.evalUpdate);
}
