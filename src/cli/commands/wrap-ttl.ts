/**
 * The `-wrap-ttl` flag of `read`, `write` and `kv get` (as the reference CLI): the
 * command's request asks for response wrapping (`X-Secrets-Wrap-TTL`).
 *
 * @module
 */
import type { SecretsClient } from '../../sdk/index.js';
import type { CommandContext } from '../context.js';

/** The `--wrap-ttl` option (commander arguments). */
export const WRAP_TTL_OPTION = ['--wrap-ttl <duration>', 'wrap the response in a single-use token living this long (e.g. 5m or 300)'] as const;

/** The command's client, asking for response wrapping when `-wrap-ttl` was given. */
export function wrappingClient(ctx: CommandContext): SecretsClient {
  const ttl = ctx.opts.wrapTtl as string | undefined;
  return ttl === undefined ? ctx.client() : ctx.client().withWrapTtl(ttl);
}

/** Whether the command was asked to wrap its response. */
export const wantsWrapping = (ctx: CommandContext): boolean => ctx.opts.wrapTtl !== undefined;
