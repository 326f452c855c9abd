/**
 * The scheduler's CSI volume commands, through the SDK's `SchedClient` (reference: the
 * `nomad volume …` CLI):
 *
 * - `cairn sched volume register FILE` / `create FILE`: a volume specification in HCL or JSON
 *   (sched-volume-spec.ts; `-` reads standard input). Register needs the volume in its plugin
 *   (`external_id`); create makes it there. A bad file exits 2 naming the file, line and key.
 * - `cairn sched volume status [-verbose] [-plugin-id=ID] [-node-id=ID] [-filter=EXPR] [ID]`:
 *   the volume table, or one volume (an ID or a unique ID prefix).
 * - `cairn sched volume deregister [-force] ID`, `delete [-secret k=v …] ID`, `detach ID NODE`
 *   (NODE: a node ID or unique prefix).
 * - `cairn sched volume snapshot create [-parameter k=v …] [-secret k=v …] VOLUME_ID [NAME]`
 *   (NAME defaults to `<VOLUME_ID>-<unix seconds>`), `snapshot list -plugin=ID [-per-page=N]
 *   [-page-token=T] [-secret k=v …]` (every page unless `-per-page`), `snapshot delete
 *   [-secret k=v …] PLUGIN_ID SNAPSHOT_ID`.
 *
 * `-namespace` (or the file's `namespace`) picks the volume's namespace. Exit codes: 0 ok, 1
 * the service refused (its text on one line) or could not be reached, 2 usage error.
 *
 * @module
 */
import type { Command } from 'commander';
import { encodeCsiSecrets, SchedApiError, type SchedSnapshot, type SchedVolumeSpec, type SchedVolumeStub } from '../../sdk/index.js';
import { UsageError, collectPair, flagBool, parseNonNegativeInt } from '../args.js';
import { readFlagFile } from '../client-command.js';
import { readStdin, type App } from '../context.js';
import { volumeBlock, volumeList, snapshotList } from './sched-csi-format.js';
import { oneArg, optString, schedLeaf, show, subGroup, type SchedCtx } from './sched-common.js';
import { list } from './sched-format.js';
import { parseVolumeSpec } from './sched-volume-spec.js';

/** Page size `snapshot list` uses to fetch every page when `-per-page` is not given. */
const SNAPSHOT_PAGE = 100;

/** The `-secret k=v` flags, checked for what `X-Sched-CSI-Secrets` can carry. @throws UsageError naming the bad secret. */
function secretsFlag(ctx: SchedCtx): Record<string, string> | undefined {
  const secrets = ctx.opts.secret as Record<string, string> | undefined;
  try {
    encodeCsiSecrets(secrets);
  } catch (err) {
    throw new UsageError(`-secret: ${(err as Error).message}`);
  }
  return secrets;
}

/** The volume specification named by the one argument (`-` reads standard input). @throws UsageError for a missing, unreadable or bad file. */
async function specArg(ctx: SchedCtx): Promise<SchedVolumeSpec> {
  const file = oneArg(ctx, 'the volume specification FILE (- reads standard input)');
  const text = file === '-' ? await readStdin(ctx.io) : readFlagFile('file', file);
  return (await parseVolumeSpec(text, file === '-' ? '<stdin>' : file)).spec;
}

function warn(ctx: SchedCtx, warnings: string): void {
  if (warnings) ctx.io.stderr(`Warning: ${warnings}\n`);
}

async function register(ctx: SchedCtx): Promise<number> {
  const spec = await specArg(ctx);
  const r = await ctx.client.csi.registerVolume(spec, { namespace: spec.Namespace });
  warn(ctx, r.Warnings);
  show(ctx, r.Volumes[0], () => `Volume "${spec.ID}" registered`);
  return 0;
}

async function create(ctx: SchedCtx): Promise<number> {
  const spec = await specArg(ctx);
  const r = await ctx.client.csi.createVolume(spec, { namespace: spec.Namespace });
  warn(ctx, r.Warnings);
  const v = r.Volumes[0];
  show(ctx, v, () => `Created external volume ${v.ExternalID} with ID ${v.ID}`);
  return 0;
}

/** The one volume `id` names: itself, else the only volume whose ID starts with it. Prints the candidates and returns undefined when several match. */
async function resolveVolume(ctx: SchedCtx, id: string): Promise<SchedVolumeStub | undefined> {
  const { data: matches } = await ctx.client.csi.listVolumes({ prefix: id });
  const exact = matches.find((v) => v.ID === id);
  if (exact) return exact;
  if (matches.length === 0) throw new Error(`No volumes with prefix or ID "${id}" found`);
  if (matches.length > 1) {
    ctx.io.stderr(
      `Prefix matched multiple volumes\n\n${list(
        ['ID', 'Name', 'Namespace', 'Plugin ID'],
        matches.map((v) => [v.ID, v.Name, v.Namespace, v.PluginID]),
      )}\n`,
    );
    return undefined;
  }
  return matches[0];
}

async function status(ctx: SchedCtx): Promise<number> {
  const verbose = flagBool(ctx.opts.verbose, 'verbose');
  if (ctx.args.length > 1) throw new UsageError('this command takes at most one argument: a volume ID or ID prefix');
  if (ctx.args.length === 0) {
    const { data } = await ctx.client.csi.listVolumes({
      pluginId: optString(ctx.opts, 'pluginId'),
      nodeId: optString(ctx.opts, 'nodeId'),
      filter: optString(ctx.opts, 'filter'),
    });
    show(ctx, data, () => volumeList(data, verbose));
    return 0;
  }
  const stub = await resolveVolume(ctx, ctx.args[0]);
  if (!stub) return 1;
  const { data: v } = await ctx.client.csi.readVolume(stub.ID, { namespace: stub.Namespace });
  show(ctx, v, () => volumeBlock(v, verbose));
  return 0;
}

async function deregister(ctx: SchedCtx): Promise<number> {
  const id = oneArg(ctx, 'the volume ID');
  await ctx.client.csi.deregisterVolume(id, { force: flagBool(ctx.opts.force, 'force') });
  show(ctx, { ID: id, Deregistered: true }, () => `Volume "${id}" deregistered`);
  return 0;
}

async function remove(ctx: SchedCtx): Promise<number> {
  const id = oneArg(ctx, 'the volume ID');
  await ctx.client.csi.deleteVolume(id, { secrets: secretsFlag(ctx) });
  show(ctx, { ID: id, Deleted: true }, () => `Successfully deleted volume "${id}"!`);
  return 0;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The node ID `node` names: a full ID as given, else the one node whose ID starts with it. @throws Error when none or several match. */
async function resolveNode(ctx: SchedCtx, node: string): Promise<string> {
  if (UUID.test(node)) return node;
  let nodes: { ID: string }[];
  try {
    nodes = (await ctx.client.listNodes()).data;
  } catch (err) {
    // Without node:read the argument goes as given: the server names what it does not know.
    if (err instanceof SchedApiError && err.status === 403) return node;
    throw err;
  }
  const matches = nodes.filter((n) => n.ID === node || n.ID.startsWith(node));
  if (matches.length === 0) return node;
  if (matches.length > 1 && !matches.some((n) => n.ID === node))
    throw new Error(`Prefix "${node}" matched multiple nodes: ${matches.map((n) => n.ID).join(', ')}`);
  return matches.find((n) => n.ID === node)?.ID ?? matches[0].ID;
}

async function detach(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length !== 2) throw new UsageError('this command takes two arguments: the volume ID and the NODE (ID or unique prefix)');
  const [id, nodeArg] = ctx.args;
  const node = await resolveNode(ctx, nodeArg);
  await ctx.client.csi.detachVolume(id, node);
  show(ctx, { ID: id, Node: node, Detached: true }, () => `Successfully detached volume "${id}" from node "${node}"`);
  return 0;
}

async function snapshotCreate(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length < 1 || ctx.args.length > 2) throw new UsageError('this command takes one or two arguments: the VOLUME_ID and an optional snapshot NAME');
  const [volume, given] = ctx.args;
  const name = given || `${volume}-${Math.floor(Date.now() / 1000)}`;
  const made = await ctx.client.csi.createSnapshot({
    SourceVolumeID: volume,
    Name: name,
    Secrets: secretsFlag(ctx),
    Parameters: ctx.opts.parameter as Record<string, string> | undefined,
  });
  show(ctx, made, () => snapshotList(made));
  return 0;
}

async function snapshotListCmd(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError('this command takes no arguments (the plugin is -plugin=ID)');
  const pluginId = optString(ctx.opts, 'plugin');
  if (!pluginId) throw new UsageError('missing required flag -plugin: the ID of the CSI plugin whose snapshots to list');
  const perPageFlag = optString(ctx.opts, 'perPage');
  const perPage = perPageFlag === undefined ? undefined : parseNonNegativeInt(perPageFlag, 'per-page');
  if (perPage === 0) throw new UsageError('invalid value "0" for -per-page: expected at least 1');
  const secrets = secretsFlag(ctx);
  let token = optString(ctx.opts, 'pageToken');
  const snapshots: SchedSnapshot[] = [];
  do {
    const page = await ctx.client.csi.listSnapshots({ pluginId, perPage: perPage ?? SNAPSHOT_PAGE, nextToken: token, secrets });
    snapshots.push(...page.data);
    token = page.nextToken;
  } while (perPage === undefined && token !== undefined);
  show(ctx, { Snapshots: snapshots, NextToken: token ?? '' }, () => {
    const table = snapshotList(snapshots);
    if (token === undefined) return table;
    return `${table}\n\nResults have been paginated. To get the next page run:\n\ncairn sched volume snapshot list -plugin=${pluginId} -per-page=${perPage} -page-token=${token}`;
  });
  return 0;
}

async function snapshotDelete(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length !== 2) throw new UsageError('this command takes two arguments: the PLUGIN_ID and the SNAPSHOT_ID');
  const [pluginId, snapshotId] = ctx.args;
  await ctx.client.csi.deleteSnapshot({ pluginId, snapshotId, secrets: secretsFlag(ctx) });
  show(ctx, { PluginID: pluginId, ID: snapshotId, Deleted: true }, () => `Deleted snapshot ${snapshotId}.`);
  return 0;
}

/** A repeatable `-secret k=v` flag on `cmd`. */
const secretOption = (cmd: Command) => cmd.option('--secret <key=value>', 'a CSI secret for the plugin (repeatable); values cannot hold ","', collectPair);

/** Adds `sched volume …` to the `sched` group. */
export function addSchedVolumeCommands(app: App, sched: Command): void {
  const volume = subGroup(sched, 'volume', 'CSI volumes and snapshots');
  schedLeaf(
    app,
    volume
      .command('register')
      .argument('<file>', 'volume specification, HCL or JSON; - reads standard input')
      .description('register a volume that exists in its CSI plugin'),
    register,
  );
  schedLeaf(
    app,
    volume
      .command('create')
      .argument('<file>', 'volume specification, HCL or JSON; - reads standard input')
      .description('create a volume in its CSI plugin and register it'),
    create,
  );
  schedLeaf(
    app,
    volume
      .command('status')
      .argument('[id]', 'volume ID or unique ID prefix')
      .description('list volumes, or show one volume')
      .option('--verbose [bool]', 'more columns and fields, full IDs')
      .option('--plugin-id <id>', 'only volumes of this plugin')
      .option('--node-id <id>', 'only volumes claimed on nodes with this ID prefix')
      .option('--filter <expr>', 'filter expression over the full volume, e.g. Parameters.tier == "gold"'),
    status,
  );
  schedLeaf(
    app,
    volume
      .command('deregister')
      .argument('<id>', 'volume ID')
      .description('forget a volume, leaving it in its plugin')
      .option('--force [bool]', 'first drop the claims of allocations that are done'),
    deregister,
  );
  schedLeaf(app, secretOption(volume.command('delete').argument('<id>', 'volume ID').description('delete a volume in its plugin and deregister it')), remove);
  schedLeaf(
    app,
    volume.command('detach').argument('<id>', 'volume ID').argument('<node>', 'node ID or unique prefix').description('detach a volume from a node'),
    detach,
  );

  const snapshot = volume.command('snapshot').description('CSI snapshots');
  schedLeaf(
    app,
    secretOption(
      snapshot
        .command('create')
        .argument('<volume-id>', 'registered volume to snapshot')
        .argument('[name]', 'snapshot name (default <volume-id>-<unix seconds>)')
        .description('snapshot a volume')
        .option('--parameter <key=value>', 'a parameter for the plugin (repeatable)', collectPair),
    ),
    snapshotCreate,
  );
  schedLeaf(
    app,
    secretOption(
      snapshot
        .command('list')
        .description('list the snapshots of a plugin')
        .option('--plugin <id>', 'the CSI plugin (required)')
        .option('--per-page <n>', 'one page of this many (default: every page)')
        .option('--page-token <token>', 'where the page starts (from a previous page)'),
    ),
    snapshotListCmd,
  );
  schedLeaf(app, secretOption(snapshot.command('delete').argument('<plugin-id>').argument('<snapshot-id>').description('delete a snapshot')), snapshotDelete);
}
