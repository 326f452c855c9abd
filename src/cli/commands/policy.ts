/**
 * `cairn policy write|read|list|delete`: ACL policies (`sys/policies/acl`), like the
 * reference CLI's commands of the same names.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError } from '../args.js';
import { type App, type CommandContext, leaf, readStdin } from '../context.js';

function nameArg(ctx: CommandContext): string {
  const name = ctx.args[0]?.trim().toLowerCase();
  if (!name) throw new UsageError('missing policy NAME');
  return name;
}

async function write(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const source = ctx.args[1];
  if (source === undefined) throw new UsageError('missing policy FILE (or - for standard input)');
  const text = source === '-' ? await readStdin(ctx.io) : ctx.readFile(source);
  if (text.trim() === '') throw new UsageError(`the policy in ${source === '-' ? 'standard input' : source} is empty`);
  await ctx.client().policies.write(name, text);
  if (ctx.format === 'table') ctx.out(`Success! Uploaded policy: ${name}`);
  return 0;
}

async function read(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  const policy = await ctx.client().policies.read(name);
  if (!policy) {
    ctx.err(`No policy named: ${name}`);
    return 2;
  }
  if (ctx.format === 'json') ctx.json({ policy: policy.policy });
  else ctx.out(policy.policy.trim());
  return 0;
}

async function list(ctx: CommandContext): Promise<number> {
  const names = await ctx.client().policies.list();
  if (ctx.format === 'json') ctx.json(names);
  else if (names.length > 0) ctx.out(names.join('\n'));
  return 0;
}

async function del(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  await ctx.client().policies.delete(name);
  if (ctx.format === 'table') ctx.out(`Success! Deleted policy: ${name}`);
  return 0;
}

/** Adds `policy write|read|list|delete` to `program`. */
export function addPolicyCommands(app: App, program: Command): void {
  const policy = program.command('policy').description('manage ACL policies');
  leaf(app, policy.command('write').argument('<name>').argument('<file>', 'HCL or JSON policy file, or - for standard input'), write).description(
    'create or replace a policy',
  );
  leaf(app, policy.command('read').argument('<name>'), read).description('print a policy');
  leaf(app, policy.command('list'), list).description('list the policy names');
  leaf(app, policy.command('delete').argument('<name>'), del).description('delete a policy');
}
