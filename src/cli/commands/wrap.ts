/**
 * Response wrapping in the CLI, as the reference CLI: `-wrap-ttl=<duration>` on `read`,
 * `write` and `kv get` (the reply is printed as `wrapping_token:`, `wrapping_accessor:`,
 * … instead of the data), and `cairn unwrap [TOKEN]`.
 *
 * @module
 */
import type { Command } from 'commander';
import { type App, type CommandContext, leaf } from '../context.js';
import { printSecret } from './read-write.js';
import { wrappingClient } from './wrap-ttl.js';

/** A wrapped read of `path` printed as the reference prints wrap info; exit code 2 when nothing is there. */
export async function readWrapped(ctx: CommandContext, path: string, query?: Record<string, string | number>): Promise<number> {
  const res = await wrappingClient(ctx).read(path, query);
  if (!res) {
    ctx.err(`No value found at ${path}`);
    return 2;
  }
  return printSecret(ctx, res);
}

/**
 * `cairn unwrap [TOKEN]`: the response wrapped in TOKEN (else in the current token),
 * printed as `read` prints it. The wrapping token is used up.
 */
async function unwrap(ctx: CommandContext): Promise<number> {
  const token = ctx.args[0];
  const res = await ctx.client().wrapping.unwrap(token || undefined);
  if (!res) return 0;
  return printSecret(ctx, res);
}

/** Adds `unwrap` to `program`. */
export function addUnwrapCommand(app: App, program: Command): void {
  leaf(app, program.command('unwrap').argument('[token]', 'the wrapping token; default: the current token'), unwrap)
    .description('return the response inside a wrapping token (once)')
    .option('--field <key>', 'print only this key of the data');
}
