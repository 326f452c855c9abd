/**
 * `cairn sched plugin status [-verbose] [ID]` (reference: `nomad plugin status`): the CSI
 * plugin table (healthy/expected controllers and nodes), or one plugin (an ID or a unique ID
 * prefix) with its controller and node endpoints; `-verbose` adds their capabilities and
 * full node IDs. Exit codes: 0 ok, 1 refused, unreachable or no such plugin, 2 usage error.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError, flagBool } from '../args.js';
import type { App } from '../context.js';
import { pluginBlock, pluginList } from './sched-csi-format.js';
import { schedLeaf, show, subGroup, type SchedCtx } from './sched-common.js';
import { list } from './sched-format.js';

async function pluginStatus(ctx: SchedCtx): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  if (ctx.args.length > 1) throw new UsageError('this command takes at most one argument: a plugin ID or ID prefix');
  if (ctx.args.length === 0) {
    const { data } = await ctx.client.csi.listPlugins();
    show(ctx, data, () => pluginList(data));
    return 0;
  }
  const prefix = ctx.args[0];
  const { data: matches } = await ctx.client.csi.listPlugins({ prefix });
  const exact = matches.find((p) => p.ID === prefix);
  if (!exact && matches.length === 0) throw new Error(`No plugins with prefix or ID "${prefix}" found`);
  if (!exact && matches.length > 1) {
    ctx.io.stderr(
      `Prefix matched multiple plugins\n\n${list(
        ['ID', 'Provider'],
        matches.map((p) => [p.ID, p.Provider]),
      )}\n`,
    );
    return 1;
  }
  const { data: plugin } = await ctx.client.csi.readPlugin((exact ?? matches[0]).ID);
  show(ctx, plugin, () => pluginBlock(plugin, verbose));
  return 0;
}

/** Adds `sched plugin status` to the `sched` group. */
export function addSchedPluginCommands(app: App, sched: Command): void {
  const plugin = subGroup(sched, 'plugin', 'CSI plugins');
  schedLeaf(
    app,
    plugin
      .command('status')
      .argument('[id]', 'plugin ID or unique ID prefix')
      .description('list CSI plugins, or show one plugin')
      .option('--verbose [bool]', 'endpoint capabilities and full node IDs'),
    pluginStatus,
  );
}
