/**
 * `cairn kv metadata get|put|delete`: key-level settings of KV v2 secrets.
 *
 * @module
 */
import type { Command } from 'commander';
import type { KvMetadataFields } from '../../sdk/index.js';
import { UsageError, collectPair, parseBool, parseNonNegativeInt, splitMountPath } from '../args.js';
import { type App, type CommandContext, leaf, printPath } from '../context.js';
import { keyValueTable, sectionHeader } from '../format.js';

function target(ctx: CommandContext) {
  const arg = ctx.args[0];
  if (arg === undefined) throw new UsageError('missing PATH');
  const { mount, path } = splitMountPath(arg, ctx.opts.mount as string | undefined);
  const kv = ctx.client().kv(mount);
  return { kv, path, fullPath: kv.pathOf('metadata', path) };
}

async function get(ctx: CommandContext): Promise<number> {
  const { kv, path, fullPath } = target(ctx);
  const res = await kv.readMetadataEnvelope(path);
  if (!res?.data) {
    ctx.err(`No value found at ${fullPath}`);
    return 2;
  }
  if (ctx.format === 'json') {
    ctx.json(res);
    return 0;
  }
  ctx.warn(res.warnings);
  const { versions, ...rest } = res.data;
  printPath(ctx, 'Metadata Path', fullPath);
  ctx.out(sectionHeader('Metadata', Object.keys(rest)));
  ctx.out(keyValueTable(rest));
  const numbers = Object.keys(versions ?? {}).sort((a, b) => Number(a) - Number(b));
  for (const n of numbers) {
    const v = versions[n] as unknown as Record<string, unknown>;
    ctx.out('');
    ctx.out(sectionHeader(`Version ${n}`, Object.keys(v)));
    ctx.out(keyValueTable(v));
  }
  return 0;
}

async function put(ctx: CommandContext): Promise<number> {
  const { kv, path, fullPath } = target(ctx);
  const o = ctx.opts;
  const fields: KvMetadataFields = {};
  if (o.maxVersions !== undefined) fields.maxVersions = parseNonNegativeInt(String(o.maxVersions), 'max-versions');
  if (o.casRequired !== undefined) fields.casRequired = o.casRequired === true || parseBool(String(o.casRequired), 'cas-required');
  if (o.deleteVersionAfter !== undefined) fields.deleteVersionAfter = String(o.deleteVersionAfter);
  if (o.customMetadata !== undefined) fields.customMetadata = o.customMetadata as Record<string, string>;
  const res = await kv.writeMetadata(path, fields);
  if (ctx.format === 'json') {
    if (res) ctx.json(res);
    return 0;
  }
  ctx.warn(res?.warnings);
  ctx.out(`Success! Data written to: ${fullPath}`);
  return 0;
}

async function del(ctx: CommandContext): Promise<number> {
  const { kv, path, fullPath } = target(ctx);
  await kv.deleteMetadata(path);
  ctx.out(`Success! Data deleted (if it existed) at: ${fullPath}`);
  return 0;
}

/** Adds `metadata get|put|delete` under the `kv` command. */
export function addKvMetadataCommands(app: App, kv: Command, mountOpt: readonly [string, string]): void {
  const metadata = kv.command('metadata').description('read and change key-level settings of secrets');

  leaf(app, metadata.command('get').argument('<path>'), get)
    .description('show the settings and versions of a key')
    .option(...mountOpt);

  leaf(app, metadata.command('put').argument('<path>'), put)
    .description('change the settings of a key (creating it if needed)')
    .option(...mountOpt)
    .option('--max-versions <n>', 'versions to keep (0: the mount setting)')
    .option('--cas-required [bool]', 'require check-and-set on every write')
    .option('--delete-version-after <duration>', 'soft-delete versions this long after they are written (e.g. 3h25m19s; 0s: never)')
    .option('--custom-metadata <key=value>', 'a custom metadata pair; repeat for more', collectPair);

  leaf(app, metadata.command('delete').argument('<path>'), del)
    .description('delete a key with all its versions permanently')
    .option(...mountOpt);
}
