/**
 * `cairn operator init|unseal|seal` and `cairn status`: the seal lifecycle
 * (`sys/init`, `sys/unseal`, `sys/seal`, `sys/seal-status`), and `cairn operator members`
 * (`sys/ha-status`), like the reference CLI's commands.
 *
 * Exit codes of `status`: 0 unsealed, 2 sealed, 1 error (reference).
 *
 * @module
 */
import type { Command } from 'commander';
import type { SealStatus } from '../../sdk/index.js';
import { UsageError, flagBool, parseNonNegativeInt } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { initText, membersTable, sealStatusJson, sealStatusTable } from '../format-operator.js';

function printStatus(ctx: CommandContext, status: SealStatus): void {
  if (ctx.format === 'json') ctx.json(sealStatusJson(status));
  else ctx.out(sealStatusTable(status));
}

async function init(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError(`too many arguments (expected 0, got ${ctx.args.length})`);
  const sys = ctx.client().withNamespace(undefined).sys;
  if (flagBool(ctx.opts.status, 'status')) {
    const initialized = await sys.initStatus();
    if (ctx.format === 'json') ctx.json({ initialized });
    else ctx.out(initialized ? 'The secrets service is initialized' : 'The secrets service is not initialized');
    return initialized ? 0 : 2;
  }
  const shares = parseNonNegativeInt(String(ctx.opts.keyShares ?? '5'), 'key-shares');
  const threshold = parseNonNegativeInt(String(ctx.opts.keyThreshold ?? '3'), 'key-threshold');
  const res = await sys.init({ secretShares: shares, secretThreshold: threshold });
  if (ctx.format === 'json') ctx.json(res);
  else ctx.out(initText(res, shares, threshold));
  return 0;
}

async function unseal(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError(`too many arguments (expected 1, got ${ctx.args.length})`);
  const sys = ctx.client().withNamespace(undefined).sys;
  if (flagBool(ctx.opts.reset, 'reset')) {
    printStatus(ctx, await sys.unsealReset());
    return 0;
  }
  let key = ctx.args[0]?.trim() ?? '';
  if (key === '') key = (await ctx.promptSecret('Unseal Key (will be hidden): ')).trim();
  if (key === '') throw new UsageError('no unseal key given');
  printStatus(ctx, await sys.unseal(key));
  return 0;
}

async function seal(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError(`too many arguments (expected 0, got ${ctx.args.length})`);
  await ctx.client().withNamespace(undefined).sys.seal();
  if (ctx.format === 'table') ctx.out('Success! The secrets service is sealed.');
  return 0;
}

async function status(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError(`too many arguments (expected 0, got ${ctx.args.length})`);
  // Always asked in the root namespace, like the reference.
  const s = await ctx.client().withNamespace(undefined).sys.sealStatus();
  printStatus(ctx, s);
  return s.sealed ? 2 : 0;
}

/** `operator members`: the active server and the standbys it heard from (`sys/ha-status`, root namespace). */
async function members(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 0) throw new UsageError(`too many arguments (expected 0, got ${ctx.args.length})`);
  const status = await ctx.client().withNamespace(undefined).sys.haStatus();
  if (ctx.format === 'json') ctx.json(status);
  else ctx.out(membersTable(status));
  return 0;
}

/** Adds `operator init|unseal|seal|members` and `status` to `program`. */
export function addOperatorCommands(app: App, program: Command): void {
  const operator = program.command('operator').description('initialize, unseal and seal the secrets service');

  leaf(app, operator.command('init'), init)
    .description('initialize the secrets service: print the unseal key shares and the initial root token')
    .option('--key-shares <n>', 'number of unseal key shares to make (default 5)')
    .option('--key-threshold <n>', 'number of shares needed to unseal (default 3)')
    .option('--status [bool]', 'only report whether the service is initialized (exit 0 yes, 2 no)');

  leaf(app, operator.command('unseal').argument('[key]', 'one unseal key share; asked for (hidden) when absent'), unseal)
    .description('submit one unseal key share')
    .option('--reset [bool]', 'discard the shares submitted so far');

  leaf(app, operator.command('seal'), seal).description('seal the secrets service (needs root or sudo on sys/seal)');

  leaf(app, operator.command('members'), members).description('list the active server and the standbys it heard from since it became active (sys/ha-status)');

  leaf(app, program.command('status'), status).description('print the seal status (exit 0 unsealed, 2 sealed, 1 error)');
}
