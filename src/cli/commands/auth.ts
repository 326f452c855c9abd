/**
 * `cairn auth enable|list|disable`: auth methods (`sys/auth`), like the reference CLI.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { authListTable } from '../format-operator.js';

/** `userpass` → `userpass/`: no leading slashes, exactly one trailing slash. */
export function mountPathOf(path: string): string {
  const clean = path.trim().replace(/^\/+|\/+$/g, '');
  return clean === '' ? '' : `${clean}/`;
}

async function enable(ctx: CommandContext): Promise<number> {
  const type = ctx.args[0]?.trim().replace(/^\/+|\/+$/g, '');
  if (!type) throw new UsageError('missing auth method TYPE (userpass, approle)');
  const path = mountPathOf(String(ctx.opts.path ?? type));
  if (path === '') throw new UsageError('-path must not be empty');
  await ctx.client().sys.enableAuth(path, { type, description: ctx.opts.description as string | undefined });
  if (ctx.format === 'table') ctx.out(`Success! Enabled ${type} auth method at: ${path}`);
  return 0;
}

async function list(ctx: CommandContext): Promise<number> {
  const mounts = await ctx.client().sys.listAuth();
  if (ctx.format === 'json') ctx.json(mounts);
  else ctx.out(authListTable(mounts));
  return 0;
}

async function disable(ctx: CommandContext): Promise<number> {
  const path = mountPathOf(ctx.args[0] ?? '');
  if (path === '') throw new UsageError('missing PATH of the auth method');
  await ctx.client().sys.disableAuth(path);
  if (ctx.format === 'table') ctx.out(`Success! Disabled the auth method (if it existed) at: ${path}`);
  return 0;
}

/** Adds `auth enable|list|disable` to `program`. */
export function addAuthCommands(app: App, program: Command): void {
  const auth = program.command('auth').description('manage auth methods');
  leaf(app, auth.command('enable').argument('<type>', 'auth method type: userpass or approle'), enable)
    .description('enable an auth method')
    .option('--path <path>', 'where to enable it, below auth/ (default: the type)')
    .option('--description <text>', 'human-friendly description');
  leaf(app, auth.command('list'), list).description('list the enabled auth methods');
  leaf(app, auth.command('disable').argument('<path>', 'path of the method, below auth/'), disable).description(
    'disable an auth method, revoking the tokens it issued',
  );
}
