/**
 * `cairn mesh catalog services|nodes`: the discovery catalog through the SDK's
 * `MeshClient.catalog` (reference: `consul catalog services|nodes`, with its output):
 *
 * - `services [-tags] [-node=NAME] [-node-meta=k=v]…` prints the service names, with `-tags`
 *   each followed by its tags comma-separated;
 * - `nodes [-service=NAME] [-detailed] [-node-meta=k=v]… [-filter=EXPR]` prints the table
 *   `Node ID Address DC` (the ID cut at its first `-`), with `-detailed` the whole ID,
 *   `TaggedAddresses` and `Meta`.
 *
 * An empty answer prints `No … match the given query - try expanding your search.` on
 * standard error and exits 0, as the reference. `-format=json` prints what the API returned.
 *
 * @module
 */
import { type Command, Option } from 'commander';
import type { MeshNode } from '../../sdk/index.js';
import { collectPair, flagBool, UsageError } from '../args.js';
import { commandGroup, type App } from '../context.js';
import { meshLeaf, type MeshCtx, optString, show } from './acl-common.js';

/** @throws UsageError when positional arguments were given (both commands take none). */
function noArgs(ctx: MeshCtx): void {
  if (ctx.args.length > 0) throw new UsageError(`too many arguments (expected 0, got ${ctx.args.length})`);
}

/** `k=v, k2=v2` sorted by key (the reference's `mapToKV`). */
const pairs = (m: Readonly<Record<string, string>> | null) =>
  Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${m![k]}`)
    .join(', ');

/** Rows aligned in columns two spaces apart, the last column unpadded (the reference's `columnize`). */
function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}

/** The `nodes` table (the reference's `NodesHeader` / `NodeRow`). */
function nodeTable(nodes: readonly MeshNode[], detailed: boolean): string {
  const header = detailed ? ['Node', 'ID', 'Address', 'DC', 'TaggedAddresses', 'Meta'] : ['Node', 'ID', 'Address', 'DC'];
  const rows = nodes.map((n) => {
    if (detailed) return [n.Node, n.ID, n.Address, n.Datacenter, pairs(n.TaggedAddresses), pairs(n.Meta)];
    const dash = n.ID.indexOf('-');
    return [n.Node, dash > 0 ? n.ID.slice(0, dash) : n.ID, n.Address, n.Datacenter];
  });
  return columns([header, ...rows]);
}

async function services(ctx: MeshCtx): Promise<number> {
  noArgs(ctx);
  const nodeMeta = ctx.opts.nodeMeta as Record<string, string> | undefined;
  const node = optString(ctx.opts, 'node');
  let byName: Record<string, string[]>;
  if (node !== undefined) {
    const found = (await ctx.client.catalog.node(node, { nodeMeta })).value;
    byName = {};
    for (const s of Object.values(found?.Services ?? {})) byName[s.Service] = [...(byName[s.Service] ?? []), ...s.Tags];
  } else {
    byName = (await ctx.client.catalog.services({ nodeMeta })).value;
  }
  const names = Object.keys(byName).sort();
  if (names.length === 0 && ctx.format !== 'json') {
    ctx.io.stderr('No services match the given query - try expanding your search.\n');
    return 0;
  }
  show(ctx, byName, () => {
    if (!flagBool(ctx.opts.tags, 'tags')) return names.join('\n');
    // The reference's tabwriter: the name column padded by 6, the whole output trimmed.
    const width = Math.max(...names.map((n) => n.length)) + 6;
    return names
      .map((n) => `${n.padEnd(width)}${[...byName[n]].sort().join(',')}`)
      .join('\n')
      .trim();
  });
  return 0;
}

async function nodes(ctx: MeshCtx): Promise<number> {
  noArgs(ctx);
  const query = { nodeMeta: ctx.opts.nodeMeta as Record<string, string> | undefined, filter: optString(ctx.opts, 'filter') };
  const service = optString(ctx.opts, 'service');
  const list: MeshNode[] =
    service !== undefined
      ? (await ctx.client.catalog.service(service, query)).items.map((s) => ({
          ID: s.ID,
          Node: s.Node,
          Address: s.Address,
          Datacenter: s.Datacenter,
          TaggedAddresses: s.TaggedAddresses,
          Meta: s.NodeMeta,
          CreateIndex: s.CreateIndex,
          ModifyIndex: s.ModifyIndex,
        }))
      : (await ctx.client.catalog.nodes(query)).items;
  if (list.length === 0 && ctx.format !== 'json') {
    ctx.io.stderr('No nodes match the given query - try expanding your search.\n');
    return 0;
  }
  show(ctx, list, () => nodeTable(list, flagBool(ctx.opts.detailed, 'detailed')));
  return 0;
}

/** Adds `mesh catalog services|nodes` to `program` (reusing the `mesh` group). */
export function addMeshCatalogCommands(app: App, program: Command): void {
  const catalog = commandGroup(program, 'mesh', 'discovery service commands').command('catalog').description('the discovery catalog');
  const bool = (flag: string, help: string) => new Option(`--${flag} [bool]`, help);
  const nodeMeta = (cmd: Command) => cmd.option('--node-meta <key=value>', 'only nodes with this metadata pair; repeat for more', collectPair);
  meshLeaf(
    app,
    nodeMeta(
      catalog
        .command('services')
        .description('list the services of the datacenter')
        .addOption(bool('tags', "print each service's tags beside it, comma-separated"))
        .option('--node <name>', 'only the services of this node'),
    ),
    services,
  );
  meshLeaf(
    app,
    nodeMeta(
      catalog
        .command('nodes')
        .description('list the nodes of the datacenter')
        .addOption(bool('detailed', 'whole node IDs, tagged addresses and metadata'))
        .option('--service <name>', 'only the nodes providing this service')
        .option('--filter <expr>', 'a filter expression over the listed objects'),
    ),
    nodes,
  );
}
