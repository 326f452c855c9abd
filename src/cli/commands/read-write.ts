/**
 * `cairn read|write|list|delete PATH`: generic commands on any API path (relative to `/v1/`),
 * like the reference CLI's commands of the same names.
 *
 * @module
 */
import type { Command } from 'commander';
import type { SecretResponse } from '../../sdk/index.js';
import { UsageError, parseKeyValues } from '../args.js';
import { type App, type CommandContext, leaf, printField, readDataArgs } from '../context.js';
import { fieldOf, secretTable } from '../format.js';
import { WRAP_TTL_OPTION, wrappingClient } from './wrap-ttl.js';

function pathArg(ctx: CommandContext): string {
  const path = ctx.args[0]?.replace(/^\/+/, '');
  if (!path) throw new UsageError('missing PATH');
  return path;
}

/** Prints an envelope as `-field`, JSON or a table; returns the exit code. */
export function printSecret(ctx: CommandContext, secret: SecretResponse<unknown>): number {
  const field = ctx.opts.field as string | undefined;
  if (field !== undefined) {
    const value = fieldOf(secret, field);
    if (value === undefined) {
      ctx.err(`Field "${field}" not present in secret`);
      return 1;
    }
    printField(ctx, value);
    return 0;
  }
  if (ctx.format === 'json') {
    ctx.json(secret);
    return 0;
  }
  ctx.warn(secret.warnings);
  const table = secretTable(secret);
  if (table !== '') ctx.out(table);
  return 0;
}

async function read(ctx: CommandContext): Promise<number> {
  const path = pathArg(ctx);
  const query = parseKeyValues(ctx.args.slice(1), (p) => ctx.readFile(p)) as Record<string, string>;
  const res = await wrappingClient(ctx).read(path, query);
  if (!res) {
    ctx.err(`No value found at ${path}`);
    return 2;
  }
  return printSecret(ctx, res);
}

async function write(ctx: CommandContext): Promise<number> {
  const path = pathArg(ctx);
  const dataArgs = ctx.args.slice(1);
  const force = ctx.opts.force === true || ctx.opts.force === 'true';
  if (dataArgs.length === 0 && !force) throw new UsageError('must supply data or use -force');
  const data = dataArgs.length === 0 ? {} : await readDataArgs(ctx, dataArgs);
  const res = await wrappingClient(ctx).write(path, data);
  if (!res) {
    if (ctx.opts.field !== undefined) {
      ctx.err(`Field "${String(ctx.opts.field)}" not present in secret`);
      return 1;
    }
    if (ctx.format === 'table') ctx.out(`Success! Data written to: ${path}`);
    return 0;
  }
  return printSecret(ctx, res);
}

async function list(ctx: CommandContext): Promise<number> {
  const path = pathArg(ctx);
  const res = await ctx.client().list(path);
  const keys = res?.data?.keys ?? [];
  if (!res || keys.length === 0) {
    ctx.err(`No value found at ${path}`);
    return 2;
  }
  if (ctx.format === 'json') {
    ctx.json(keys);
    return 0;
  }
  ctx.warn(res.warnings);
  ctx.out(['Keys', '----', ...keys].join('\n'));
  return 0;
}

async function del(ctx: CommandContext): Promise<number> {
  const path = pathArg(ctx);
  const query = parseKeyValues(ctx.args.slice(1), (p) => ctx.readFile(p)) as Record<string, string>;
  const res = await ctx.client().delete(path, query);
  ctx.warn(res?.warnings);
  if (ctx.format === 'table') ctx.out(`Success! Data deleted (if it existed) at: ${path}`);
  return 0;
}

/** Adds `read`, `write`, `list` and `delete` to `program`. */
export function addReadWriteCommands(app: App, program: Command): void {
  leaf(app, program.command('read').argument('<path>').argument('[params...]', 'key=value query parameters'), read)
    .description('read data at a path')
    .option('--field <key>', 'print only this key of the data')
    .option(...WRAP_TTL_OPTION);

  leaf(app, program.command('write').argument('<path>').argument('[data...]', 'key=value, key=@file, @file.json or - (JSON on stdin)'), write)
    .description('write data to a path')
    .option('--field <key>', 'print only this key of the response')
    .option('--force [bool]', 'write even without data')
    .option(...WRAP_TTL_OPTION);

  leaf(app, program.command('list').argument('<path>'), list).description('list the keys under a path');

  leaf(app, program.command('delete').argument('<path>').argument('[params...]', 'key=value query parameters'), del).description('delete data at a path');
}
