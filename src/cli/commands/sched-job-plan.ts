/**
 * `cairn sched job plan [-diff=false] [-verbose] FILE` (reference: `nomad job plan`): the
 * scheduler's dry run of registering the job in FILE (HCL or JSON, `-` reads standard input),
 * printed as the reference does without colour: the job's diff (`+ Job: "web"`, `+/- Task
 * Group: "g" (1 create, 2 ignore)`, edited fields `+/- Priority: "50" => "60"`), `Scheduler
 * dry-run:` with `- All tasks successfully allocated.` or the groups that would not be placed
 * and why, then the job modify index to pass to `job run -check-index`.
 *
 * Exit codes (the reference's): 0 when no allocation would be created or destroyed, 1 when
 * some would, 255 on any error (printed as `Error during plan: …`).
 *
 * @module
 */
import type { SchedJob, SchedJobPlanReply } from '../../sdk/index.js';
import { formatJobDiff } from './sched-job-diff.js';
import { flagBool } from '../args.js';
import { oneArg, show, type SchedCtx } from './sched-common.js';

/** The reference's exit code for an error. */
const PLAN_ERROR = 255;

/** The reference's help under `Job Modify Index`. */
function modifyIndexHelp(index: number, file: string): string {
  return `Job Modify Index: ${index}
To submit the job with version verification run:

cairn sched job run -check-index ${index} ${file}

When running the job with the check-index flag, the job will only be run if the
job modify index given matches the server-side version. If the index has
changed, another user has modified the job and the plan's results are
potentially invalid.`;
}

/** The reference's `formatAllocMetrics` of a group that would not be placed, each line prefixed with `prefix`. */
function metricLines(m: Readonly<Record<string, unknown>>, prefix: string): string[] {
  const out: string[] = [];
  const entries = (k: string) => Object.entries((m[k] ?? {}) as Record<string, number>);
  if (m.NodesEvaluated === 0) out.push('* No nodes were eligible for evaluation');
  for (const [dc, n] of entries('NodesAvailable')) if (n === 0) out.push(`* No nodes are available in datacenter ${JSON.stringify(dc)}`);
  for (const [cls, n] of entries('ClassFiltered')) out.push(`* Class ${JSON.stringify(cls)}: ${n} nodes excluded by filter`);
  for (const [c, n] of entries('ConstraintFiltered')) out.push(`* Constraint ${JSON.stringify(c)}: ${n} nodes excluded by filter`);
  if (typeof m.NodesExhausted === 'number' && m.NodesExhausted > 0) out.push(`* Resources exhausted on ${m.NodesExhausted} nodes`);
  for (const [cls, n] of entries('ClassExhausted')) out.push(`* Class ${JSON.stringify(cls)} exhausted on ${n} nodes`);
  for (const [dim, n] of entries('DimensionExhausted')) out.push(`* Dimension ${JSON.stringify(dim)} exhausted on ${n} nodes`);
  return out.map((l) => `${prefix}${l}`);
}

/** The reference's `formatDryRun`: all placed, or per failed group (in name order) how many and why. */
function formatDryRun(r: SchedJobPlanReply, jobType: string): string {
  const failed = Object.keys(r.FailedTGAllocs ?? {}).sort();
  if (failed.length === 0) return '- All tasks successfully allocated.';
  const lines = [jobType === 'system' ? '- WARNING: Failed to place allocations on all nodes.' : '- WARNING: Failed to place all allocations.'];
  for (const g of failed) {
    const m = r.FailedTGAllocs![g]!;
    const count = (typeof m.CoalescedFailures === 'number' ? m.CoalescedFailures : 0) + 1;
    lines.push(`  Task Group ${JSON.stringify(g)} (failed to place ${count} allocation${count > 1 ? 's' : ''}):`, ...metricLines(m, '    '), '');
  }
  return lines.join('\n').trimEnd();
}

/** The reference's `getExitCode`: 1 when a group would create, stop, migrate or destructively update allocations. */
function planExitCode(r: SchedJobPlanReply): number {
  if (r.Diff === null) return 0;
  const changes = Object.values(r.Annotations?.DesiredTGUpdates ?? {}).some(
    (u) => (u.Stop ?? 0) + (u.Place ?? 0) + (u.Migrate ?? 0) + (u.DestructiveUpdate ?? 0) + (u.Canary ?? 0) > 0,
  );
  return changes ? 1 : 0;
}

/**
 * The command's body (module doc): `jobOfFile` reads FILE as `job run` does. Every error is
 * printed and exits 255, as the reference's plan.
 */
export async function jobPlan(ctx: SchedCtx, jobOfFile: (ctx: SchedCtx, file: string) => Promise<SchedJob>): Promise<number> {
  try {
    const file = oneArg(ctx, 'the job FILE (HCL or JSON; - reads standard input)');
    const job = await jobOfFile(ctx, file);
    const diff = ctx.opts.diff === undefined ? true : flagBool(ctx.opts.diff, 'diff');
    const r = await ctx.client.jobs.planJob(job, { diff });
    show(ctx, r, () => {
      const parts: string[] = [];
      if (r.Diff) parts.push(`${formatJobDiff(r.Diff, flagBool(ctx.opts.verbose, 'verbose'))}\n`);
      parts.push('Scheduler dry-run:', `${formatDryRun(r, job.Type || 'service')}\n`);
      if (r.Warnings) parts.push(`Job Warnings:\n${r.Warnings}\n`);
      parts.push(modifyIndexHelp(r.JobModifyIndex, file));
      return parts.join('\n');
    });
    return planExitCode(r);
  } catch (err) {
    ctx.io.stderr(`Error during plan: ${(err as Error).message}\n`);
    return PLAN_ERROR;
  }
}
