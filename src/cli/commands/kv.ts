/**
 * `cairn kv …`: the KV v2 commands, shaped like the reference CLI's `kv` group. PATH is
 * `MOUNT/PATH`, or `PATH` with `-mount=MOUNT`.
 *
 * @module
 */
import type { Command } from 'commander';
import type { KvSecretData, SecretResponse } from '../../sdk/index.js';
import { UsageError, parseNonNegativeInt, parseVersions, splitMountPath } from '../args.js';
import { type App, type CommandContext, leaf, printField, printPath, readDataArgs } from '../context.js';
import { fieldOf, keyValueTable, sectionHeader } from '../format.js';
import { addKvMetadataCommands } from './kv-metadata.js';
import { deleteV1, getV1, isKvV1, listV1, putV1, v2Only } from './kv-v1.js';
import { readWrapped } from './wrap.js';
import { WRAP_TTL_OPTION, wantsWrapping } from './wrap-ttl.js';

function mountPath(ctx: CommandContext, allowEmpty = false) {
  const arg = ctx.args[0];
  if (arg === undefined) throw new UsageError('missing PATH');
  return splitMountPath(arg, ctx.opts.mount as string | undefined, allowEmpty);
}

async function put(ctx: CommandContext): Promise<number> {
  const dataArgs = ctx.args.slice(1);
  if (dataArgs.length === 0) throw new UsageError('must supply data: key=value pairs, @file.json or - for JSON on stdin');
  const { mount, path } = mountPath(ctx);
  const data = await readDataArgs(ctx, dataArgs);
  const cas = ctx.opts.cas === undefined ? undefined : parseNonNegativeInt(String(ctx.opts.cas), 'cas');
  if (await isKvV1(ctx, mount, path)) return putV1(ctx, mount, path, data);
  const kv = ctx.client().kv(mount);
  const res = await kv.putEnvelope(path, data, { cas });
  const fullPath = kv.pathOf('data', path);
  if (ctx.format === 'json') {
    if (res) ctx.json(res);
    return 0;
  }
  if (!res?.data) {
    ctx.out(`Success! Data written to: ${fullPath}`);
    return 0;
  }
  ctx.warn(res.warnings);
  printPath(ctx, 'Secret Path', fullPath);
  ctx.out(sectionHeader('Metadata', Object.keys(res.data)));
  ctx.out(keyValueTable(res.data as unknown as Record<string, unknown>));
  return 0;
}

async function get(ctx: CommandContext): Promise<number> {
  const { mount, path } = mountPath(ctx);
  const version = ctx.opts.version === undefined ? undefined : parseNonNegativeInt(String(ctx.opts.version), 'version');
  const v1 = await isKvV1(ctx, mount, path);
  if (v1 && version !== undefined) return v2Only('get -version');
  const kv = ctx.client().kv(mount);
  const fullPath = kv.pathOf('data', path);
  if (wantsWrapping(ctx)) return readWrapped(ctx, v1 ? `${mount}/${path}` : fullPath, version === undefined ? undefined : { version });
  if (v1) return getV1(ctx, mount, path);
  const res: SecretResponse<KvSecretData> | undefined = await kv.get(path, { version });
  if (!res) {
    ctx.err(`No value found at ${fullPath}`);
    return 2;
  }
  const field = ctx.opts.field as string | undefined;
  if (field !== undefined) {
    const value = fieldOf(res, field, res.data?.data ?? null);
    if (value === undefined) {
      ctx.err(`Field "${field}" not present in secret`);
      return 1;
    }
    printField(ctx, value);
    return 0;
  }
  if (ctx.format === 'json') {
    ctx.json(res);
    return 0;
  }
  ctx.warn(res.warnings);
  printPath(ctx, 'Secret Path', fullPath);
  const metadata = res.data?.metadata as unknown as Record<string, unknown> | undefined;
  if (metadata) {
    ctx.out(sectionHeader('Metadata', Object.keys(metadata)));
    ctx.out(keyValueTable(metadata));
  }
  const data = res.data?.data;
  if (data) {
    ctx.out('');
    ctx.out(sectionHeader('Data', Object.keys(data)));
    ctx.out(keyValueTable(data));
  }
  return 0;
}

async function list(ctx: CommandContext): Promise<number> {
  const { mount, path } = mountPath(ctx, true);
  if (await isKvV1(ctx, mount, path)) return listV1(ctx, mount, path);
  const kv = ctx.client().kv(mount);
  const keys = await kv.list(path);
  if (keys.length === 0) {
    ctx.err(`No value found at ${kv.pathOf('metadata', path)}/`);
    return 2;
  }
  if (ctx.format === 'json') ctx.json(keys);
  else ctx.out([`Keys`, `----`, ...keys].join('\n'));
  return 0;
}

async function del(ctx: CommandContext): Promise<number> {
  const { mount, path } = mountPath(ctx);
  if (await isKvV1(ctx, mount, path)) return deleteV1(ctx, mount, path);
  const kv = ctx.client().kv(mount);
  if (ctx.opts.versions === undefined) {
    await kv.delete(path);
    ctx.out(`Success! Data deleted (if it existed) at: ${kv.pathOf('data', path)}`);
  } else {
    await kv.deleteVersions(path, parseVersions(String(ctx.opts.versions)));
    ctx.out(`Success! Data deleted (if it existed) at: ${kv.pathOf('delete', path)}`);
  }
  return 0;
}

function versionsCommand(op: 'undelete' | 'destroy') {
  return async (ctx: CommandContext): Promise<number> => {
    const { mount, path } = mountPath(ctx);
    if (ctx.opts.versions === undefined) throw new UsageError(`no versions given: use -versions=1,2 to choose the versions to ${op}`);
    const versions = parseVersions(String(ctx.opts.versions));
    if (await isKvV1(ctx, mount, path)) v2Only(op);
    const kv = ctx.client().kv(mount);
    await (op === 'undelete' ? kv.undelete(path, versions) : kv.destroy(path, versions));
    ctx.out(`Success! Data written to: ${kv.pathOf(op, path)}`);
    return 0;
  };
}

/** Adds `kv` and its subcommands to `program`. */
export function addKvCommands(app: App, program: Command): void {
  const kv = program.command('kv').description('read and write secrets in a KV engine (version 2, or version 1 where the server says so)');
  const mountOpt = ['--mount <mount>', 'mount of the KV engine; PATH is then relative to it'] as const;

  leaf(app, kv.command('put').argument('<path>').argument('[data...]', 'key=value, key=@file, @file.json or - (JSON on stdin)'), put)
    .description('write a new version of a secret')
    .option(...mountOpt)
    .option('--cas <version>', 'write only if the current version is this (0: only if the key does not exist)');

  leaf(app, kv.command('get').argument('<path>'), get)
    .description('read a version of a secret (the latest by default)')
    .option(...mountOpt)
    .option('--version <n>', 'version to read')
    .option('--field <key>', 'print only this key of the data')
    .option(...WRAP_TTL_OPTION);

  leaf(app, kv.command('list').argument('<path>'), list)
    .description('list the keys under a folder')
    .option(...mountOpt);

  leaf(app, kv.command('delete').argument('<path>'), del)
    .description('soft-delete the latest version, or the versions given')
    .option(...mountOpt)
    .option('--versions <list>', 'comma-separated versions to delete');

  for (const op of ['undelete', 'destroy'] as const) {
    leaf(app, kv.command(op).argument('<path>'), versionsCommand(op))
      .description(op === 'undelete' ? 'restore soft-deleted versions' : 'permanently remove versions')
      .option(...mountOpt)
      .option('--versions <list>', `comma-separated versions to ${op}`);
  }

  addKvMetadataCommands(app, kv, mountOpt);
}
