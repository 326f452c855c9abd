/**
 * `cairn sched alloc status|logs|stop|restart|signal` and `cairn sched node drain|eligibility`
 * (reference/sched-workloads.md "CLI people use"; the reference's `nomad alloc …` and
 * `nomad node drain|eligibility`), with the reference CLI's flags and output style:
 *
 * ```text
 * alloc status [-verbose] <alloc>            fields, addresses (ports), services (Cairn's: the discovery
 *                                            service's checks of its instances), then each task's state and recent events
 * alloc logs [-f] [-stderr] [-tail] [-n N] <alloc> [task]
 * alloc stop <alloc>                         prints the evaluation ID (as the reference's -detach)
 * alloc restart <alloc> [task]
 * alloc signal [-s SIGNAL] <alloc> [task]
 * node drain -enable|-disable [-deadline 1h] [-force] [-ignore-system] [-keep-ineligible] <node>
 * node eligibility -enable|-disable <node>
 * ```
 *
 * An allocation or node may be given by a unique ID prefix. Exit codes: 0 ok, 1 refused,
 * unreachable or no match, 2 usage error.
 *
 * @module
 */
import type { Command } from 'commander';
import type { SchedAllocation, SchedTaskState } from '../../sdk/index.js';
import { UsageError, flagBool, parseNonNegativeInt } from '../args.js';
import type { App } from '../context.js';
import { goDurationMs } from '../../kernel/util/go-duration.js';
import { interruption, optString, schedLeaf, show, subGroup, type SchedCtx } from './sched-common.js';
import { kv, list, shortId } from './sched-format.js';
import { hasServices, servicesSection } from './sched-services.js';

/** The full ID of the one allocation `prefix` names. @throws Error `No allocation(s) with prefix or id "<p>" found`, `Prefix matched multiple allocations`. */
async function allocId(ctx: SchedCtx, prefix: string): Promise<string> {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(prefix)) return prefix;
  if (prefix.length < 2 || prefix.length % 2 === 1) throw new UsageError('Alloc ID must contain at least two characters and an even number of them');
  const matches = await ctx.client.allocations.listAllocations({ prefix });
  if (matches.length === 0) throw new Error(`No allocation(s) with prefix or id "${prefix}" found`);
  if (matches.length > 1) {
    const rows = matches.map((a) => [shortId(a.ID, false), a.Name, a.ClientStatus]);
    throw new Error(`Prefix matched multiple allocations\n\n${list(['ID', 'Name', 'Status'], rows)}`);
  }
  return matches[0]!.ID;
}

/** The full ID of the one node `prefix` names. @throws Error `No node(s) with prefix or id "<p>" found`, `Prefix matched multiple nodes`. */
async function nodeId(ctx: SchedCtx, prefix: string): Promise<string> {
  const { data: nodes } = await ctx.client.listNodes();
  const exact = nodes.find((n) => n.ID === prefix);
  if (exact) return exact.ID;
  const matches = nodes.filter((n) => n.ID.startsWith(prefix));
  if (matches.length === 0) throw new Error(`No node(s) with prefix or id "${prefix}" found`);
  if (matches.length > 1)
    throw new Error(
      `Prefix matched multiple nodes\n\n${list(
        ['ID', 'Name', 'Status'],
        matches.map((n) => [shortId(n.ID, false), n.Name, n.Status]),
      )}`,
    );
  return matches[0]!.ID;
}

/** The task named, or the group's only task. @throws UsageError when the group has several and none is named. */
function taskOf(alloc: SchedAllocation, given: string | undefined): string {
  if (given) return given;
  const tasks = alloc.Job?.TaskGroups.find((g) => g.Name === alloc.TaskGroup)?.Tasks.map((t) => t.Name) ?? Object.keys(alloc.TaskStates ?? {});
  if (tasks.length === 1) return tasks[0]!;
  throw new UsageError(`Allocation "${shortId(alloc.ID, false)}" is running the following tasks:\n  * ${tasks.join('\n  * ')}\n\nPlease specify the task.`);
}

const nsTime = (ns: number) => (ns ? new Date(ns / 1e6).toISOString() : 'N/A');

/** One task's section (reference `alloc status`): its state line, counters and recent events, newest first. */
function taskBlock(name: string, t: SchedTaskState): string {
  const head = `Task "${name}" is "${t.State}"`;
  const counters = kv([
    ['Started At', t.StartedAt ?? 'N/A'],
    ['Finished At', t.FinishedAt ?? 'N/A'],
    ['Total Restarts', t.Restarts],
    ['Last Restart', t.LastRestart ?? 'N/A'],
  ]);
  const events = [...t.Events].reverse().map((e) => [nsTime(e.Time), e.Type, e.DisplayMessage || e.Message]);
  return [`${head}\nTask Events:\n${counters}`, ...templatesAndIdentities(t), `Recent Events:\n${list(['Time', 'Type', 'Description'], events)}`].join('\n\n');
}

/**
 * Cairn's "Templates:" and "Workload Identities:" tables of a task (issue 27 scope 8): each
 * template's destination, state, what it waits for (or its source's error) and last change;
 * each identity's expiry. Never their content. Empty for a task with neither.
 */
function templatesAndIdentities(t: SchedTaskState): string[] {
  const out: string[] = [];
  const templates = t.Templates ?? [];
  if (templates.length > 0) {
    const rows = templates.map((x) => [x.DestPath, x.State, x.Error ?? (x.Missing.join(', ') || '-'), x.LastRendered ?? 'never']);
    out.push(`Templates:\n${list(['Destination', 'State', 'Waiting On', 'Last Rendered'], rows)}`);
  }
  const identities = t.Identities ?? [];
  if (identities.length > 0) {
    out.push(
      `Workload Identities:\n${list(
        ['Name', 'Expires', 'Fetched'],
        identities.map((i) => [i.Name, i.Expiration ?? 'never', i.FetchedAt]),
      )}`,
    );
  }
  return out;
}

/**
 * The reference's "Allocation Addresses" table of an allocation with ports: label, whether the
 * port is dynamic, `<ip>:<host port>`, and ` -> <to>` when mapped. Undefined without ports.
 */
function addressesBlock(a: SchedAllocation): string | undefined {
  const ports = a.AllocatedResources?.Shared.Ports ?? [];
  if (ports.length === 0) return undefined;
  const group = a.Job?.TaskGroups.find((g) => g.Name === a.TaskGroup);
  const dynamic = new Set((group?.Networks ?? []).flatMap((n) => (n.DynamicPorts ?? []).map((p) => p.Label)));
  const host = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
  const rows = ports.map((p) => [
    p.Label,
    dynamic.has(p.Label) ? 'yes' : 'no',
    `${host(p.HostIP, p.Value)}${p.To > 0 && p.To !== p.Value ? ` -> ${p.To}` : ''}`,
  ]);
  return `Allocation Addresses:\n${list(['Label', 'Dynamic', 'Address'], rows)}`;
}

/**
 * The allocation (reference `alloc status`): fields, its addresses, `services` (Cairn's
 * "Services:" section, see sched-services.ts; undefined when its group has no service
 * block), then each task.
 */
function allocBlock(a: SchedAllocation, verbose: boolean, services: string | undefined): string {
  const parts = [
    kv([
      ['ID', shortId(a.ID, verbose)],
      ['Eval ID', shortId(a.EvalID, verbose)],
      ['Name', a.Name],
      ['Node ID', shortId(a.NodeID, verbose)],
      ['Node Name', a.NodeName || '<none>'],
      ['Job ID', a.JobID],
      ['Job Version', a.Job?.Version ?? 0],
      ['Client Status', a.ClientStatus],
      ['Client Description', a.ClientDescription || '<none>'],
      ['Desired Status', a.DesiredStatus],
      ['Desired Description', a.DesiredDescription || '<none>'],
      ['Created', nsTime(a.CreateTime)],
      ['Modified', nsTime(a.ModifyTime)],
    ]),
  ];
  const addresses = addressesBlock(a);
  if (addresses) parts.push(addresses);
  if (services !== undefined) parts.push(`Services:\n${services}`);
  for (const [name, t] of Object.entries(a.TaskStates ?? {}).sort(([x], [y]) => (x < y ? -1 : 1))) parts.push(taskBlock(name, t));
  return parts.join('\n\n');
}

async function allocStatus(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length !== 1) throw new UsageError('This command takes one argument: <allocation>');
  const { data } = await ctx.client.allocations.readAllocation(await allocId(ctx, ctx.args[0]!));
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  const services =
    ctx.format === 'table' && hasServices(data.Job, data.TaskGroup) ? await servicesSection(ctx.env, [data.ID], { style: 'checks', verbose }) : undefined;
  show(ctx, data, () => allocBlock(data, verbose, services));
  return 0;
}

async function allocLogs(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length < 1 || ctx.args.length > 2) throw new UsageError('This command takes one or two arguments: <allocation> [<task>]');
  const follow = flagBool(ctx.opts.f, 'f');
  const stderr = flagBool(ctx.opts.stderr, 'stderr');
  const tail = flagBool(ctx.opts.tail, 'tail');
  const n = optString(ctx.opts, 'n');
  const { data: alloc } = await ctx.client.allocations.readAllocation(await allocId(ctx, ctx.args[0]!));
  const task = taskOf(alloc, ctx.args[1]);
  const lines = n === undefined ? undefined : parseNonNegativeInt(n, 'n');
  const stop = interruption(ctx.io);
  const out = stderr ? ctx.io.stderr : ctx.io.stdout;
  try {
    // -tail: the last 10 lines (or -n), read from the end; the reference reads a generous byte window the same way.
    const fromEnd = tail || lines !== undefined;
    const frames = ctx.client.allocations.allocationLogs(alloc.ID, {
      task,
      type: stderr ? 'stderr' : 'stdout',
      follow,
      origin: fromEnd ? 'end' : 'start',
      offset: fromEnd ? 64 * 1024 : 0,
      signal: stop.signal,
    });
    if (fromEnd) {
      let head = '';
      let sent = false;
      for await (const f of frames) {
        if (sent) {
          out(f.Data.toString());
          continue;
        }
        head += f.Data.toString();
        if (follow) {
          out(lastLines(head, lines ?? 10));
          sent = true;
        }
      }
      if (!sent) out(lastLines(head, lines ?? 10));
    } else {
      for await (const f of frames) out(f.Data.toString());
    }
    return 0;
  } finally {
    stop.dispose();
  }
}

/** The last `n` lines of `text` (a final newline kept). */
function lastLines(text: string, n: number): string {
  const parts = text.split('\n');
  const trailing = parts.at(-1) === '' ? parts.pop() !== undefined : false;
  return parts.slice(-n).join('\n') + (trailing ? '\n' : '');
}

async function allocStop(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length !== 1) throw new UsageError('This command takes one argument: <allocation>');
  const r = await ctx.client.allocations.stopAllocation(await allocId(ctx, ctx.args[0]!));
  show(ctx, r, () => r.EvalID);
  return 0;
}

async function allocRestart(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length < 1 || ctx.args.length > 2) throw new UsageError('This command takes one or two arguments: <allocation> [<task>]');
  const id = await allocId(ctx, ctx.args[0]!);
  await ctx.client.allocations.restartAllocation(id, ctx.args[1] ? { taskName: ctx.args[1] } : { allTasks: true });
  ctx.io.stdout(`Successfully restarted ${ctx.args[1] ? `task "${ctx.args[1]}"` : 'all tasks'} of allocation "${shortId(id, false)}"\n`);
  return 0;
}

async function allocSignal(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length < 1 || ctx.args.length > 2) throw new UsageError('This command takes one or two arguments: <allocation> [<task>]');
  const id = await allocId(ctx, ctx.args[0]!);
  await ctx.client.allocations.signalAllocation(id, { signal: optString(ctx.opts, 's'), task: ctx.args[1] });
  return 0;
}

/** `-enable` / `-disable`, exactly one. @throws UsageError otherwise. */
function enableFlag(ctx: SchedCtx): boolean {
  const enable = flagBool(ctx.opts.enable, 'enable');
  const disable = flagBool(ctx.opts.disable, 'disable');
  if (enable === disable) throw new UsageError("Either the '-enable' or '-disable' flag must be set");
  return enable;
}

async function nodeDrain(ctx: SchedCtx): Promise<number> {
  const enable = enableFlag(ctx);
  if (ctx.args.length !== 1) throw new UsageError('This command takes one argument: <node>');
  const deadline = optString(ctx.opts, 'deadline');
  let deadlineNs = 60 * 60 * 1e9;
  if (flagBool(ctx.opts.force, 'force')) deadlineNs = -1;
  else if (deadline !== undefined) {
    const ms = goDurationMs(deadline);
    if (ms === undefined) throw new UsageError(`Failed to parse deadline "${deadline}"`);
    deadlineNs = ms * 1e6;
  }
  const id = await nodeId(ctx, ctx.args[0]!);
  await ctx.client.updateNodeDrain(id, {
    enable,
    deadlineNs,
    ignoreSystemJobs: flagBool(ctx.opts.ignoreSystem, 'ignore-system'),
    markEligible: !enable && !flagBool(ctx.opts.keepIneligible, 'keep-ineligible'),
  });
  ctx.io.stdout(enable ? `Node "${id}" drain strategy set\n` : `Node "${id}" drain strategy unset\n`);
  return 0;
}

async function nodeEligibility(ctx: SchedCtx): Promise<number> {
  const enable = enableFlag(ctx);
  if (ctx.args.length !== 1) throw new UsageError('This command takes one argument: <node>');
  const id = await nodeId(ctx, ctx.args[0]!);
  await ctx.client.updateNodeEligibility(id, enable);
  ctx.io.stdout(`Node "${id}" scheduling eligibility set: ${enable ? 'eligible' : 'ineligible'} for scheduling\n`);
  return 0;
}

/** Adds `sched alloc …` and `sched node drain|eligibility` to the `sched` group. */
export function addSchedAllocCommands(app: App, sched: Command): void {
  const alloc = subGroup(sched, 'alloc', 'allocations: status, logs, stop, restart, signal');
  schedLeaf(
    app,
    alloc
      .command('status')
      .argument('<alloc>', 'allocation ID or unique prefix')
      .description('show an allocation and its tasks')
      .option('--verbose [bool]', 'full IDs'),
    allocStatus,
  );
  schedLeaf(
    app,
    alloc
      .command('logs')
      .argument('<alloc>', 'allocation ID or unique prefix')
      .argument('[task]', 'task name (needed when the group has several)')
      .description("print a task's stdout (or -stderr) log")
      .option('--f [bool]', 'follow: keep printing what the task writes')
      .option('--stderr [bool]', 'the stderr log')
      .option('--tail [bool]', 'only the end of the log (10 lines, or -n)')
      .option('--n <lines>', 'lines from the end'),
    allocLogs,
  );
  schedLeaf(
    app,
    alloc
      .command('stop')
      .argument('<alloc>', 'allocation ID or unique prefix')
      .description('stop an allocation (the scheduler replaces it where still wanted)'),
    allocStop,
  );
  schedLeaf(
    app,
    alloc
      .command('restart')
      .argument('<alloc>', 'allocation ID or unique prefix')
      .argument('[task]', 'task name (default every task)')
      .description('restart a task, or every task'),
    allocRestart,
  );
  schedLeaf(
    app,
    alloc
      .command('signal')
      .argument('<alloc>', 'allocation ID or unique prefix')
      .argument('[task]', 'task name (default every task)')
      .description('send a signal to a task')
      .option('--s <signal>', 'signal name (default SIGKILL)'),
    allocSignal,
  );
  const node = subGroup(sched, 'node', 'client nodes');
  schedLeaf(
    app,
    node
      .command('drain')
      .argument('<node>', 'node ID or unique prefix')
      .description("set or clear a node's drain strategy")
      .option('--enable [bool]', 'drain the node')
      .option('--disable [bool]', 'stop draining')
      .option('--deadline <duration>', 'time allocations get to move before they are stopped (default 1h)')
      .option('--force [bool]', 'stop every allocation at once')
      .option('--ignore-system [bool]', "leave system jobs' allocations")
      .option('--keep-ineligible [bool]', 'with -disable: keep the node ineligible'),
    nodeDrain,
  );
  schedLeaf(
    app,
    node
      .command('eligibility')
      .argument('<node>', 'node ID or unique prefix')
      .description('mark a node eligible or ineligible for scheduling')
      .option('--enable [bool]', 'eligible')
      .option('--disable [bool]', 'ineligible'),
    nodeEligibility,
  );
}
