/**
 * `cairn sched deployment …` (reference: `nomad deployment list|status|promote|fail|pause|
 * resume`, its output texts), through the SDK's `SchedClient.deployments` (contract 29):
 *
 * - `deployment list [-verbose]`: `ID  Job ID  Job Version  Status  Description`, newest
 *   first, or `No deployments found`.
 * - `deployment status [-verbose] [ID]`: the list without an ID; else one deployment (a
 *   unique ID prefix is enough) with its `Deployed` table per task group.
 * - `deployment promote [-group G]… [-detach] <ID>`: promotes the canaries of those groups
 *   (all without `-group`), then follows the evaluation (`-detach`: prints its ID).
 * - `deployment fail [-detach] <ID>`: `Deployment "<id>" failed` (`. Auto-reverted to job
 *   version N.` when it rolled back), then the evaluation.
 * - `deployment pause [-resume] [-detach] <ID>`: `Deployment "<id>" paused`, or with `-resume`
 *   (the reference's `deployment resume`) `… resumed` and the evaluation.
 *
 * A prefix matching several deployments prints `Prefix matched multiple deployments` and the
 * list on stderr, exit 1; `-json` prints the API's objects (a write's `DeploymentUpdateResponse`).
 *
 * @module
 */
import type { Command } from 'commander';
import type { SchedDeployment, SchedDeploymentUpdateReply } from '../../sdk/index.js';
import { UsageError, flagBool } from '../args.js';
import type { App } from '../context.js';
import { collect, oneArg, schedLeaf, show, subGroup, type SchedCtx } from './sched-common.js';
import { deploymentBlock, deploymentList } from './sched-deployment-format.js';
import { followEvaluation } from './sched-job.js';

/** The full length of a deployment ID (a UUID): read at once, no prefix search. */
const UUID_LENGTH = 36;

/**
 * The deployment `id` names: itself when it is a whole ID, else the one deployment whose ID
 * starts with it — as the reference's `getDeployment`, a prefix of an odd number of hex digits
 * loses its last one (the server takes whole bytes); undefined (after printing the matches on
 * stderr) when several match.
 * @throws Error `Identifier must contain at least two characters.`, `Deployment ID "<p>" matched
 * no deployments`; SchedApiError 404 for a whole ID not found, 400 for a prefix that is not hex.
 */
async function resolveDeployment(ctx: SchedCtx, id: string): Promise<SchedDeployment | undefined> {
  if (id.length === UUID_LENGTH) return (await ctx.client.deployments.read(id)).data;
  const digits = id.replaceAll('-', '').length;
  if (digits === 1) throw new Error('Identifier must contain at least two characters.');
  const prefix = digits % 2 === 1 ? id.slice(0, -1) : id;
  const { data: all } = await ctx.client.deployments.list({ prefix });
  const matches = all.filter((d) => d.ID.startsWith(prefix));
  if (matches.length === 0) throw new Error(`Deployment ID "${prefix}" matched no deployments`);
  if (matches.length > 1) {
    ctx.io.stderr(`Prefix matched multiple deployments\n\n${deploymentList(matches, flagBool(ctx.opts.verbose, 'verbose'))}\n`);
    return undefined;
  }
  return matches[0];
}

async function listCmd(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError('this command takes no arguments');
  const { data } = await ctx.client.deployments.list();
  show(ctx, data, () => deploymentList(data, flagBool(ctx.opts.verbose, 'verbose')));
  return 0;
}

async function statusCmd(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError('this command takes at most one argument: a deployment ID or ID prefix');
  if (ctx.args.length === 0) return listCmd(ctx);
  const d = await resolveDeployment(ctx, ctx.args[0]);
  if (!d) return 1;
  show(ctx, d, () => deploymentBlock(d, flagBool(ctx.opts.verbose, 'verbose')));
  return 0;
}

/**
 * After a deployment write: the reply with `-json`; else `said` (if any), then (when `follow`)
 * the evaluation followed unless `-detach` or none was made.
 */
async function afterWrite(ctx: SchedCtx, r: SchedDeploymentUpdateReply, { said, follow = true }: { said?: string; follow?: boolean }): Promise<number> {
  if (ctx.format === 'json') {
    show(ctx, r, () => '');
    return 0;
  }
  if (said !== undefined) ctx.io.stdout(`${said}\n`);
  if (!follow || r.EvalID === '') return 0;
  if (flagBool(ctx.opts.detach, 'detach')) {
    // The reference prints the evaluation ID after a promote, and nothing more after a fail or resume.
    if (said === undefined) ctx.io.stdout(`Evaluation ID: ${r.EvalID}\n`);
    return 0;
  }
  if (said !== undefined) ctx.io.stdout('\n');
  return followEvaluation(ctx, r.EvalID);
}

async function promoteCmd(ctx: SchedCtx): Promise<number> {
  const d = await resolveDeployment(ctx, oneArg(ctx, 'a deployment ID or ID prefix'));
  if (!d) return 1;
  const groups = (ctx.opts.group as string[] | undefined) ?? [];
  const r = await ctx.client.deployments.promote(d.ID, { groups, namespace: d.Namespace });
  return afterWrite(ctx, r, {});
}

async function failCmd(ctx: SchedCtx): Promise<number> {
  const d = await resolveDeployment(ctx, oneArg(ctx, 'a deployment ID or ID prefix'));
  if (!d) return 1;
  const r = await ctx.client.deployments.fail(d.ID, { namespace: d.Namespace });
  const reverted = typeof r.RevertedJobVersion === 'number' ? `. Auto-reverted to job version ${r.RevertedJobVersion}.` : '';
  return afterWrite(ctx, r, { said: `Deployment "${d.ID}" failed${reverted}` });
}

async function pauseCmd(ctx: SchedCtx): Promise<number> {
  const d = await resolveDeployment(ctx, oneArg(ctx, 'a deployment ID or ID prefix'));
  if (!d) return 1;
  const resume = flagBool(ctx.opts.resume, 'resume');
  const r = await ctx.client.deployments.pause(d.ID, !resume, { namespace: d.Namespace });
  // A pause makes no evaluation worth following (the reference prints only its line).
  return afterWrite(ctx, r, { said: `Deployment "${d.ID}" ${resume ? 'resumed' : 'paused'}`, follow: resume });
}

/** Adds `sched deployment list|status|promote|fail|pause` to the `sched` group. */
export function addSchedDeploymentCommands(app: App, sched: Command): void {
  const dep = subGroup(sched, 'deployment', 'deployments: list, status, promote, fail, pause (and resume)');
  const follow = (c: Command) =>
    c
      .option('--detach [bool]', 'return at once instead of following the evaluation')
      .option('--monitor-timeout <duration>', 'how long to follow the evaluation (default 30s)')
      .option('--verbose [bool]', 'full IDs');
  schedLeaf(app, dep.command('list').description('list deployments, newest first').option('--verbose [bool]', 'full IDs'), listCmd);
  schedLeaf(
    app,
    dep
      .command('status')
      .argument('[id]', 'deployment ID or unique prefix')
      .description('list deployments, or show one with its task groups')
      .option('--verbose [bool]', 'full IDs'),
    statusCmd,
  );
  schedLeaf(
    app,
    follow(
      dep
        .command('promote')
        .argument('<id>', 'deployment ID or unique prefix')
        .description("promote a deployment's canaries: the rolling update of the other allocations goes on")
        .option('--group <name>', 'promote only this task group (repeatable; default all)', collect),
    ),
    promoteCmd,
  );
  schedLeaf(
    app,
    follow(dep.command('fail').argument('<id>', 'deployment ID or unique prefix').description('mark a deployment failed (groups with auto_revert roll back)')),
    failCmd,
  );
  schedLeaf(
    app,
    follow(
      dep
        .command('pause')
        .argument('<id>', 'deployment ID or unique prefix')
        .description('pause a deployment (no more placements), or resume it')
        .option('--resume [bool]', 'resume the paused deployment instead'),
    ),
    pauseCmd,
  );
}
