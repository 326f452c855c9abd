/**
 * The scheduler service's client commands, through the SDK's `SchedClient` (reference: the
 * `nomad …` CLI), grouped under `cairn sched`:
 *
 * - `cairn sched acl …` (sched-acl.ts) and `cairn sched login` (sched-login.ts)
 * - `cairn sched volume …` (sched-volume.ts: register, create, status, deregister, delete,
 *   detach, snapshot create|list|delete) and `cairn sched plugin status` (sched-plugin.ts)
 * - `cairn sched event stream [-topic=TOPIC[:KEY] …] [-index=N]`: prints each frame as one
 *   JSON line (heartbeats skipped) until SIGINT/SIGTERM (exit 0) or the server ends the
 *   stream (its reason on stderr, exit 1). `-namespace` filters namespaced events (`*` all).
 * - `cairn sched node status [-verbose] [ID]`: the node table, or one node (a unique ID
 *   prefix is enough).
 * - `cairn sched job run|status|stop|inspect|history`, `cairn sched eval list|status`
 *   (sched-job.ts).
 * - `cairn sched deployment list|status|promote|fail|pause` (sched-deployment.ts).
 *
 * Every command takes `-address`, `-token`, `-namespace`, `-region` (else `SCHED_ADDR`,
 * `SCHED_TOKEN`, `SCHED_NAMESPACE`, `SCHED_REGION`) and `-json` / `-format=table|json`.
 * Exit codes: 0 ok, 1 the service refused (its text on one line) or could not be reached,
 * 2 usage error. `cairn sched agent` (sched-agent.ts) runs the service itself.
 *
 * @module
 */
import type { Command } from 'commander';
import type { SchedNode } from '../../sdk/index.js';
import { UsageError, flagBool, parseNonNegativeInt } from '../args.js';
import type { App } from '../context.js';
import { addSchedAclCommands } from './sched-acl.js';
import { addSchedAllocCommands } from './sched-alloc.js';
import { addSchedDeploymentCommands } from './sched-deployment.js';
import { collect, interruption, optString, schedGroup, schedLeaf, show, subGroup, type SchedCtx } from './sched-common.js';
import { list, nodeBlock, nodeList, shortId } from './sched-format.js';
import { addSchedJobCommands } from './sched-job.js';
import { addSchedLoginCommand } from './sched-login.js';
import { addSchedPluginCommands } from './sched-plugin.js';
import { addSchedVolumeCommands } from './sched-volume.js';

/** `-topic` values as the SDK's topic map: `Node` and `Node:*` both mean every Node key. @throws UsageError for an empty topic name. */
function topicsOf(values: readonly string[]): Record<string, string[]> {
  const topics: Record<string, string[]> = {};
  for (const v of values) {
    const colon = v.indexOf(':');
    const topic = colon < 0 ? v : v.slice(0, colon);
    if (topic === '') throw new UsageError(`invalid -topic "${v}": use TOPIC or TOPIC:KEY, e.g. Node or Job:web`);
    (topics[topic] ??= []).push(colon < 0 ? '*' : v.slice(colon + 1));
  }
  return topics;
}

async function eventStream(ctx: SchedCtx): Promise<number> {
  const topicFlags = (ctx.opts.topic as string[] | undefined) ?? [];
  const index = optString(ctx.opts, 'index');
  const stop = interruption(ctx.io);
  try {
    const frames = ctx.client.eventStream({
      index: index === undefined ? undefined : parseNonNegativeInt(index, 'index'),
      topics: topicFlags.length > 0 ? topicsOf(topicFlags) : undefined,
      signal: stop.signal,
    });
    for await (const frame of frames) ctx.io.stdout(`${JSON.stringify(frame)}\n`);
    return 0;
  } finally {
    stop.dispose();
  }
}

async function nodeStatus(ctx: SchedCtx): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  if (ctx.args.length > 1) throw new UsageError('this command takes at most one argument: a node ID or ID prefix');
  const { data: nodes } = await ctx.client.listNodes();
  if (ctx.args.length === 0) {
    show(ctx, nodes, () => nodeList(nodes, verbose));
    return 0;
  }
  const prefix = ctx.args[0];
  const matches = nodes.filter((n) => n.ID === prefix || n.ID.startsWith(prefix));
  if (matches.length === 0) throw new Error(`No node(s) with prefix "${prefix}" found`);
  if (matches.length > 1 && !matches.some((n) => n.ID === prefix)) {
    ctx.io.stderr(
      `Prefix matched multiple nodes\n\n${list(
        ['ID', 'Name', 'Status'],
        matches.map((n) => [shortId(n.ID, verbose), n.Name, n.Status]),
      )}\n`,
    );
    return 1;
  }
  const id = matches.find((n) => n.ID === prefix)?.ID ?? matches[0].ID;
  const { data: node } = await ctx.client.readNode(id);
  show(ctx, node, () => nodeBlock(node as SchedNode, verbose));
  return 0;
}

/** Adds the `sched` client commands (acl, login, event stream, node status, volume, plugin status) to `program`. */
export function addSchedCommands(app: App, program: Command): void {
  const sched = schedGroup(program);
  addSchedAclCommands(app, sched);
  addSchedLoginCommand(app, sched);
  const event = subGroup(sched, 'event', 'the event stream');
  schedLeaf(
    app,
    event
      .command('stream')
      .description('print the events of the topics asked for, one JSON frame per line, until interrupted')
      .option(
        '--topic <topic[:key]>',
        'topic and optional filter key, e.g. Node, Job:web, ACLToken:* (repeatable; default every topic, management only)',
        collect,
      )
      .option('--index <n>', 'start at this index (default 0: what the server still holds)'),
    eventStream,
  );
  const node = subGroup(sched, 'node', 'client nodes');
  schedLeaf(
    app,
    node
      .command('status')
      .argument('[id]', 'node ID or unique ID prefix')
      .description('list nodes, or show one node')
      .option('--verbose [bool]', 'full IDs and node attributes'),
    nodeStatus,
  );
  addSchedVolumeCommands(app, sched);
  addSchedPluginCommands(app, sched);
  addSchedJobCommands(app, sched);
  addSchedAllocCommands(app, sched);
  addSchedDeploymentCommands(app, sched);
}
