/**
 * `cairn token create|lookup`: the token auth method (`auth/token/…`).
 *
 * @module
 */
import { type Command, Option } from 'commander';
import type { TokenCreateOptions } from '../../sdk/index.js';
import { collectList, collectPair, parseBool, parseNonNegativeInt } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { printSecret } from './read-write.js';

function bool(value: unknown, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  return value === true || parseBool(String(value), flag);
}

/** An option whose name really starts with `no-` (commander would read it as a negation). */
function literalNoOption(flags: string, description: string): Option {
  const option = new Option(flags, description);
  option.negate = false;
  return option;
}

async function create(ctx: CommandContext): Promise<number> {
  const o = ctx.opts;
  const options: TokenCreateOptions = {
    policies: o.policy as string[] | undefined,
    ttl: o.ttl as string | undefined,
    explicitMaxTtl: o.explicitMaxTtl as string | undefined,
    period: o.period as string | undefined,
    displayName: o.displayName as string | undefined,
    meta: o.metadata as Record<string, string> | undefined,
    noParent: bool(o.orphan, 'orphan'),
    noDefaultPolicy: bool(o.noDefaultPolicy, 'no-default-policy'),
    renewable: bool(o.renewable, 'renewable'),
    numUses: o.useLimit === undefined ? undefined : parseNonNegativeInt(String(o.useLimit), 'use-limit'),
    type: o.type as TokenCreateOptions['type'],
    id: o.id as string | undefined,
  };
  const res = await ctx.client().token.createEnvelope(options);
  if (!res) throw new Error('the server answered auth/token/create without a body');
  return printSecret(ctx, res);
}

async function lookup(ctx: CommandContext): Promise<number> {
  const res = await ctx.client().token.lookup(ctx.args[0]);
  return printSecret(ctx, res);
}

/** Adds `token create` and `token lookup` to `program`. */
export function addTokenCommands(app: App, program: Command): void {
  const token = program.command('token').description('create and inspect tokens');

  leaf(app, token.command('create'), create)
    .description('create a child token of the current one')
    .option('--policy <name>', 'policy of the new token; repeat or comma-separate for more', collectList)
    .option('--ttl <duration>', 'initial lifetime, e.g. 1h or 30m')
    .option('--explicit-max-ttl <duration>', 'lifetime limit including renewals')
    .option('--period <duration>', 'make a periodic token renewable by this period')
    .option('--display-name <name>', 'name shown in lookups and audit')
    .option('--metadata <key=value>', 'a metadata pair; repeat for more', collectPair)
    .option('--orphan [bool]', 'create the token without a parent')
    .addOption(literalNoOption('--no-default-policy [bool]', 'do not attach the default policy'))
    .option('--renewable [bool]', 'whether the token can be renewed (default true)')
    .option('--use-limit <n>', 'number of uses (0: unlimited)')
    .option('--type <type>', 'service or batch')
    .option('--id <id>', 'token ID to use (root only)')
    .option('--field <name>', 'print only this field (e.g. token)');

  leaf(app, token.command('lookup').argument('[token]', 'token to look up (default: your own)'), lookup).description('show the properties of a token');
}
