/**
 * `cairn sched job …` and `cairn sched eval …` (reference: `nomad job run|status|stop|inspect|
 * history`, `nomad eval list|status`), through the SDK's job and evaluation methods:
 *
 * - `job run [-detach] [-check-index=N] [-preserve-counts] [-monitor-timeout=30s] FILE`: an
 *   HCL job file (parsed by the server, `POST /v1/jobs/parse`) or a JSON one (`{"Job": …}` or
 *   the job), `-` for standard input; registered, then the evaluation is followed until it
 *   is no longer pending (up to `-monitor-timeout`). Exit 2 when it could not place
 *   everything (the reference's exit code for placement failures).
 * - `job plan [-diff] [-verbose] FILE`: the dry run (sched-job-plan.ts).
 * - `job status [-verbose] [ID]`: the job list, or one job (an ID prefix that matches one
 *   job is enough) with its summary, allocations and Cairn's "Services" section (sched-services.ts).
 * - `job stop [-purge] [-detach] ID`, `job inspect ID` (`{"Job": …}`), `job history ID`.
 * - `eval list [-job=ID] [-status=S] [-filter=EXPR] [-per-page=N] [-page-token=T] [-verbose]`,
 *   `eval status [-verbose] ID` (an ID prefix that matches one evaluation is enough).
 *
 * Short IDs are 8 characters unless `-verbose`; `-json` prints the API's objects.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { SchedApiError, type SchedEvaluation, type SchedJob, type SchedJobDiff, type SchedJobWriteReply, type SchedClient } from '../../sdk/index.js';
import { goDurationMs } from '../../kernel/util/go-duration.js';
import { UsageError, collectPair, flagBool, parseNonNegativeInt } from '../args.js';
import { readFlagFile } from '../client-command.js';
import { readStdin, type App } from '../context.js';
import { oneArg, optString, schedLeaf, show, subGroup, type SchedCtx } from './sched-common.js';
import { evalBlock, evalList, jobBlock, jobHistory, jobList } from './sched-job-format.js';
import { kv } from './sched-format.js';
import { jobPlan } from './sched-job-plan.js';
import { hasServices, servicesSection } from './sched-services.js';

/** The job a FILE holds: JSON (`{"Job": …}` or the job itself) as it is, HCL parsed by the server. @throws UsageError for an unreadable file or bad JSON. */
async function jobOfFile(ctx: SchedCtx, file: string): Promise<SchedJob> {
  const text = file === '-' ? await readStdin(ctx.io) : readFlagFile('file', file);
  if (/^\s*\{/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`${file}: not valid JSON: ${(err as Error).message}`);
    }
    const o = parsed as { Job?: SchedJob };
    return (o.Job ?? parsed) as SchedJob;
  }
  return ctx.client.jobs.parseJob(text);
}

/**
 * Follows evaluation `evalId` until it is no longer pending or `timeoutMs` passes, printing
 * the reference's monitor lines; returns the exit code: 0 done, 2 placement failures, 1 still
 * pending at the timeout or failed.
 */
async function monitor(ctx: SchedCtx, client: SchedClient, evalId: string, { timeoutMs, verbose }: { timeoutMs: number; verbose: boolean }): Promise<number> {
  const short = verbose ? evalId : evalId.slice(0, 8);
  ctx.io.stdout(`==> Monitoring evaluation "${short}"\n`);
  const deadline = Date.now() + timeoutMs;
  let { data: ev, index } = await client.jobs.readEvaluation(evalId);
  ctx.io.stdout(`    Evaluation triggered by job "${ev.JobID}"\n`);
  while (ev.Status === 'pending') {
    const left = deadline - Date.now();
    if (left <= 0) {
      ctx.io.stdout(`==> Evaluation "${short}" is still pending after ${Math.round(timeoutMs / 1000)}s: is a scheduler running on the leader?\n`);
      return 1;
    }
    ({ data: ev, index } = await client.jobs.readEvaluation(evalId, { index, wait: `${Math.max(1, Math.ceil(left / 1000))}s` }));
  }
  ctx.io.stdout(`    Evaluation status changed: "pending" -> "${ev.Status}"\n`);
  const failures = Object.keys(ev.FailedTGAllocs ?? {});
  if (failures.length > 0) {
    ctx.io.stdout(`==> Evaluation "${short}" finished with status "${ev.Status}" but failed to place all allocations:\n`);
    for (const g of failures) ctx.io.stdout(`    Task Group "${g}" could not be placed\n`);
    if (ev.BlockedEval)
      ctx.io.stdout(`    Evaluation "${verbose ? ev.BlockedEval : ev.BlockedEval.slice(0, 8)}" waiting for additional capacity to place remainder\n`);
    return 2;
  }
  ctx.io.stdout(`==> Evaluation "${short}" finished with status "${ev.Status}"\n`);
  return ev.Status === 'complete' ? 0 : 1;
}

/** `-monitor-timeout` in ms (a Go duration, default 30 s). @throws UsageError. */
function monitorTimeout(ctx: SchedCtx): number {
  const raw = optString(ctx.opts, 'monitorTimeout') ?? '30s';
  const ms = goDurationMs(raw);
  if (ms === undefined || ms < 0) throw new UsageError(`invalid value "${raw}" for -monitor-timeout: expected a duration such as 30s or 2m`);
  return ms;
}

/** Follows evaluation `evalId` as `job run` does, with the command's `-monitor-timeout` and `-verbose` (the deployment commands use it): the exit code. */
export function followEvaluation(ctx: SchedCtx, evalId: string): Promise<number> {
  return monitor(ctx, ctx.client, evalId, { timeoutMs: monitorTimeout(ctx), verbose: flagBool(ctx.opts.verbose, 'verbose') });
}

/** After a write: the evaluation ID with `-detach` or `-json`, else the monitor. */
async function followUp(ctx: SchedCtx, r: SchedJobWriteReply, detachMessage: string): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  if (ctx.format === 'json') {
    show(ctx, r, () => '');
    return 0;
  }
  if (r.Warnings) ctx.io.stderr(`Job Warnings:\n${r.Warnings}\n`);
  if (flagBool(ctx.opts.detach, 'detach') || r.EvalID === '') {
    ctx.io.stdout(`${detachMessage}\n${r.EvalID ? `Evaluation ID: ${r.EvalID}\n` : ''}`);
    return 0;
  }
  return monitor(ctx, ctx.client, r.EvalID, { timeoutMs: monitorTimeout(ctx), verbose });
}

async function jobRun(ctx: SchedCtx): Promise<number> {
  const file = oneArg(ctx, 'the job FILE (HCL or JSON; - reads standard input)');
  const checkIndex = optString(ctx.opts, 'checkIndex');
  const job = await jobOfFile(ctx, file);
  const r = await ctx.client.jobs.registerJob(job, {
    enforceIndex: checkIndex !== undefined,
    jobModifyIndex: checkIndex === undefined ? 0 : parseNonNegativeInt(checkIndex, 'check-index'),
    preserveCounts: flagBool(ctx.opts.preserveCounts, 'preserve-counts'),
  });
  return followUp(ctx, r, 'Job registration successful');
}

/** The one job `prefix` names: the job with that ID, else the only job whose ID starts with it. @throws Error `No job(s) with prefix or id "<p>" found`; prints the matches and returns undefined when several match. */
async function resolveJob(ctx: SchedCtx, prefix: string): Promise<SchedJob | undefined> {
  try {
    return (await ctx.client.jobs.readJob(prefix)).data;
  } catch (err) {
    if (!(err instanceof SchedApiError && err.status === 404)) throw err;
  }
  const { data: matches } = await ctx.client.jobs.listJobs({ prefix });
  if (matches.length === 0) throw new Error(`No job(s) with prefix or id "${prefix}" found`);
  if (matches.length > 1) {
    ctx.io.stderr(`Prefix matched multiple jobs\n\n${jobList(matches, false)}\n`);
    return undefined;
  }
  return (await ctx.client.jobs.readJob(matches[0].ID)).data;
}

async function jobStatus(ctx: SchedCtx): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  if (ctx.args.length > 1) throw new UsageError('this command takes at most one argument: a job ID or ID prefix');
  if (ctx.args.length === 0) {
    const { data: jobs } = await ctx.client.jobs.listJobs();
    show(ctx, jobs, () => jobList(jobs, ctx.client.namespace === '*'));
    return 0;
  }
  const job = await resolveJob(ctx, ctx.args[0]);
  if (!job) return 1;
  const ns = { namespace: job.Namespace };
  const [{ data: summary }, { data: allocs }] = await Promise.all([ctx.client.jobs.jobSummary(job.ID, ns), ctx.client.jobs.jobAllocations(job.ID, ns)]);
  // Cairn's "Services" section: the instances of the allocations still running or pending (stopped ones are deregistered).
  const live = allocs.filter((a) => a.ClientStatus !== 'complete' && a.ClientStatus !== 'failed').map((a) => a.ID);
  const services = ctx.format === 'table' && hasServices(job) ? await servicesSection(ctx.env, live, { style: 'instances', verbose }) : undefined;
  show(ctx, job, () => jobBlock(job, summary, allocs, { verbose, nowMs: Date.now(), services }));
  return 0;
}

async function jobStop(ctx: SchedCtx): Promise<number> {
  const job = await resolveJob(ctx, oneArg(ctx, 'a job ID or ID prefix'));
  if (!job) return 1;
  const r = await ctx.client.jobs.deregisterJob(job.ID, { namespace: job.Namespace, purge: flagBool(ctx.opts.purge, 'purge') });
  return followUp(ctx, r, `Job "${job.ID}" ${flagBool(ctx.opts.purge, 'purge') ? 'purged' : 'stopped'}`);
}

async function jobInspect(ctx: SchedCtx): Promise<number> {
  const id = oneArg(ctx, 'a job ID');
  const { data: job } = await ctx.client.jobs.readJob(id);
  // The reference prints the job wrapped as a register body, indented by four spaces, whatever the format.
  ctx.io.stdout(`${JSON.stringify({ Job: job }, null, 4)}\n`);
  return 0;
}

/** `job history [-p] [-version N] <job>` (reference `nomad job history`): the kept versions, or one; `-p` adds each version's diff from the one before it. */
async function jobHistoryCmd(ctx: SchedCtx): Promise<number> {
  const id = oneArg(ctx, 'a job ID');
  const withDiffs = flagBool(ctx.opts.p, 'p');
  const { versions, diffs } = withDiffs
    ? (await ctx.client.jobs.jobVersionDiffs(id)).data
    : { versions: (await ctx.client.jobs.jobVersions(id)).data, diffs: [] as SchedJobDiff[] };
  const wanted = ctx.opts.version === undefined ? undefined : parseNonNegativeInt(String(ctx.opts.version), 'version');
  const picked = versions.map((v, i) => ({ v, diff: diffs[i] })).filter(({ v }) => wanted === undefined || v.Version === wanted);
  if (picked.length === 0) {
    ctx.io.stderr(`Error: version ${String(ctx.opts.version)} of job "${id}" not found\n`);
    return 1;
  }
  show(
    ctx,
    picked.map(({ v }) => v),
    () =>
      jobHistory(
        picked.map(({ v }) => v),
        withDiffs ? picked.map(({ diff }) => diff) : undefined,
      ),
  );
  return 0;
}

/**
 * `job dispatch [-meta k=v]… [-detach] <job> [input]` (reference `nomad job dispatch`): a
 * child of the parameterized job with the payload read from `input` (a file, `-` standard
 * input), then the evaluation followed as `job run` does.
 */
async function jobDispatchCmd(ctx: SchedCtx): Promise<number> {
  const [id, input] = ctx.args as [string, string | undefined];
  const payload = input === undefined ? undefined : input === '-' ? Buffer.from(await readStdin(ctx.io), 'utf8') : readFileSync(input);
  const meta = (ctx.opts.meta as Record<string, string> | undefined) ?? {};
  const r = await ctx.client.jobs.dispatchJob(id, { payload, meta });
  if (ctx.format === 'json') {
    show(ctx, r, () => '');
    return 0;
  }
  ctx.io.stdout(`${kv([['Dispatched Job ID', r.DispatchedJobID], ...(r.EvalID ? [['Evaluation ID', r.EvalID] as [string, string]] : [])])}
`);
  if (flagBool(ctx.opts.detach, 'detach') || r.EvalID === '') return 0;
  ctx.io.stdout('\n');
  return monitor(ctx, ctx.client, r.EvalID, { timeoutMs: monitorTimeout(ctx), verbose: flagBool(ctx.opts.verbose, 'verbose') });
}

/** `job periodic force [-detach] <job>` (reference `nomad job periodic force`): launches a child now and follows its evaluation. */
async function jobPeriodicForceCmd(ctx: SchedCtx): Promise<number> {
  const job = await resolveJob(ctx, oneArg(ctx, 'a periodic job ID'));
  if (!job) return 1;
  const r = await ctx.client.jobs.forcePeriodic(job.ID, { namespace: job.Namespace });
  return followUp(ctx, { ...r, JobModifyIndex: 0, Warnings: '' }, `Force periodic successful`);
}

/** `job revert [-detach] <job> <version>` (reference `nomad job revert`): registers a kept version again and follows the evaluation. */
async function jobRevertCmd(ctx: SchedCtx): Promise<number> {
  const [id, raw] = ctx.args as [string, string];
  const version = parseNonNegativeInt(raw, 'version');
  const job = await resolveJob(ctx, id);
  if (!job) return 1;
  const r = await ctx.client.jobs.revertJob(job.ID, version, { namespace: job.Namespace });
  return followUp(ctx, r, `Job "${job.ID}" reverted to version ${version}`);
}

async function evalListCmd(ctx: SchedCtx): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  const perPage = optString(ctx.opts, 'perPage');
  const page = await ctx.client.jobs.listEvaluations({
    job: optString(ctx.opts, 'job'),
    status: optString(ctx.opts, 'status'),
    filter: optString(ctx.opts, 'filter'),
    perPage: perPage === undefined ? undefined : parseNonNegativeInt(perPage, 'per-page'),
    nextToken: optString(ctx.opts, 'pageToken'),
  });
  show(
    ctx,
    page.data,
    () =>
      evalList(page.data, verbose) +
      (page.nextToken ? `\n\nResults have been paginated. To get the next page run:\n\ncairn sched eval list -page-token ${page.nextToken}` : ''),
  );
  return 0;
}

async function evalStatus(ctx: SchedCtx): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  const prefix = oneArg(ctx, 'an evaluation ID or ID prefix');
  let ev: SchedEvaluation;
  try {
    ev = (await ctx.client.jobs.readEvaluation(prefix)).data;
  } catch (err) {
    if (!(err instanceof SchedApiError && (err.status === 404 || err.status === 400))) throw err;
    const even = prefix.length % 2 === 0 ? prefix : prefix.slice(0, -1);
    const { data: matches } = even === '' ? { data: [] } : await ctx.client.jobs.listEvaluations({ prefix: even });
    const found = matches.filter((e) => e.ID.startsWith(prefix));
    if (found.length === 0) throw new Error(`No evaluation(s) with prefix or id "${prefix}" found`);
    if (found.length > 1) {
      ctx.io.stderr(`Prefix matched multiple evaluations\n\n${evalList(found, verbose)}\n`);
      return 1;
    }
    ev = found[0];
  }
  show(ctx, ev, () => evalBlock(ev, verbose));
  return 0;
}

/** Adds `sched job …` and `sched eval …` to the `sched` group. */
export function addSchedJobCommands(app: App, sched: Command): void {
  const job = subGroup(sched, 'job', 'jobs: run, plan, status, stop, inspect, history, revert, dispatch, periodic force');
  const monitorFlags = (c: Command) =>
    c
      .option('--detach [bool]', 'print the evaluation ID and return at once')
      .option('--monitor-timeout <duration>', 'how long to follow the evaluation (default 30s)')
      .option('--verbose [bool]', 'full IDs');
  schedLeaf(
    app,
    monitorFlags(
      job
        .command('run')
        .argument('<file>', 'job file, HCL or JSON (- reads standard input)')
        .description('register a job from a file and follow its evaluation'),
    )
      .option('--check-index <n>', "register only if the job's modify index is N (0: only if it does not exist)")
      .option('--preserve-counts [bool]', 'keep the current counts of existing task groups'),
    jobRun,
  );
  schedLeaf(
    app,
    job
      .command('plan')
      // Optional here so a missing FILE exits 255 like the reference's plan, not with the parser's usage code.
      .argument('[file]', 'job file, HCL or JSON (- reads standard input)')
      .description('dry-run a job file: what registering it would change (exit 0: nothing created or destroyed, 1: changes, 255: error)')
      .option('--diff [bool]', 'show the diff against the stored job (default true)')
      .option('--verbose [bool]', 'show the fields of unchanged objects too'),
    (ctx) => jobPlan(ctx, jobOfFile),
  );
  schedLeaf(
    app,
    job
      .command('status')
      .argument('[id]', 'job ID or unique prefix')
      .description('list jobs, or show one job with its allocations')
      .option('--verbose [bool]', 'full IDs'),
    jobStatus,
  );
  schedLeaf(
    app,
    monitorFlags(job.command('stop').argument('<id>', 'job ID or unique prefix').description('stop a job (its allocations are stopped)')).option(
      '--purge [bool]',
      'delete the job instead of keeping it stopped',
    ),
    jobStop,
  );
  schedLeaf(app, job.command('inspect').argument('<id>', 'job ID').description('print a job as JSON'), jobInspect);
  schedLeaf(
    app,
    job
      .command('history')
      .argument('<id>', 'job ID')
      .description('list the kept versions of a job')
      .option('--p [bool]', "show each version's diff from the one before it")
      .option('--version <n>', 'only this version'),
    jobHistoryCmd,
  );
  schedLeaf(
    app,
    monitorFlags(
      job
        .command('dispatch')
        .argument('<id>', 'the parameterized job')
        .argument('[input]', 'the payload: a file, or - for standard input')
        .description('dispatch a parameterized job: a child job with a payload and meta')
        .option('--meta <key=value>', "a meta key of the job's parameterized block (repeatable)", collectPair),
    ),
    jobDispatchCmd,
  );
  const periodic = subGroup(job, 'periodic', 'periodic jobs: force');
  schedLeaf(
    app,
    monitorFlags(periodic.command('force').argument('<id>', 'periodic job ID or unique prefix').description("launch a periodic job's child now")),
    jobPeriodicForceCmd,
  );
  schedLeaf(
    app,
    monitorFlags(
      job
        .command('revert')
        .argument('<id>', 'job ID or unique prefix')
        .argument('<version>', 'the kept version to register again')
        .description('register a kept version of a job again as its next version'),
    ),
    jobRevertCmd,
  );
  const ev = subGroup(sched, 'eval', 'evaluations: list, status');
  schedLeaf(
    app,
    ev
      .command('list')
      .description('list evaluations')
      .option('--job <id>', 'only those of this job')
      .option('--status <status>', 'only those with this status (pending, complete, failed, blocked, canceled)')
      .option('--filter <expr>', 'filter expression over the evaluation')
      .option('--per-page <n>', 'page size')
      .option('--page-token <token>', 'the token a previous page printed')
      .option('--verbose [bool]', 'full IDs'),
    evalListCmd,
  );
  schedLeaf(
    app,
    ev.command('status').argument('<id>', 'evaluation ID or unique prefix').description('show an evaluation').option('--verbose [bool]', 'full IDs'),
    evalStatus,
  );
}
