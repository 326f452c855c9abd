/**
 * `cairn kv …` on a KV version 1 mount: the reference CLI asks the server which version
 * serves a path (`sys/internal/ui/mounts/<path>`) and uses the plain paths for version 1.
 *
 * @module
 */
import { SecretsApiError } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type CommandContext, printField } from '../context.js';
import { fieldOf, keyValueTable, sectionHeader } from '../format.js';

/**
 * Whether `mount/path` is served by a KV version 1 engine. When the server does not say
 * (older `default` policies lack the lookup: 403), the mount is taken as version 2, the
 * `kv` commands' default.
 */
export async function isKvV1(ctx: CommandContext, mount: string, path: string): Promise<boolean> {
  try {
    const info = await ctx.client().sys.mountOf(path ? `${mount}/${path}` : mount);
    return info !== undefined && info.type === 'kv' && info.options?.version !== '2';
  } catch (err) {
    if (err instanceof SecretsApiError && err.status === 403) return false;
    throw err;
  }
}

/** Refuses a version-2-only command on a version 1 mount. */
export function v2Only(command: string): never {
  throw new UsageError(`"kv ${command}" needs a KV version 2 mount; this path is served by KV version 1`);
}

/** `kv put` on version 1: the data replaces the secret. */
export async function putV1(ctx: CommandContext, mount: string, path: string, data: Record<string, unknown>): Promise<number> {
  await ctx.client().write(`${mount}/${path}`, data);
  ctx.out(`Success! Data written to: ${mount}/${path}`);
  return 0;
}

/** `kv get` on version 1. Exit 2 when there is nothing at the path (as the reference). */
export async function getV1(ctx: CommandContext, mount: string, path: string): Promise<number> {
  const res = await ctx.client().read(`${mount}/${path}`);
  if (!res?.data) {
    ctx.err(`No value found at ${mount}/${path}`);
    return 2;
  }
  const field = ctx.opts.field as string | undefined;
  if (field !== undefined) {
    const value = fieldOf(res, field, res.data);
    if (value === undefined) {
      ctx.err(`Field "${field}" not present in secret`);
      return 1;
    }
    printField(ctx, value);
    return 0;
  }
  if (ctx.format === 'json') ctx.json(res);
  else {
    ctx.out(sectionHeader('Data', Object.keys(res.data)));
    ctx.out(keyValueTable(res.data));
  }
  return 0;
}

/** `kv list` on version 1. */
export async function listV1(ctx: CommandContext, mount: string, path: string): Promise<number> {
  const res = await ctx.client().list(path ? `${mount}/${path}` : mount);
  const keys = res?.data?.keys ?? [];
  if (keys.length === 0) {
    ctx.err(`No value found at ${mount}/${path}`);
    return 2;
  }
  if (ctx.format === 'json') ctx.json(keys);
  else ctx.out([`Keys`, `----`, ...keys].join('\n'));
  return 0;
}

/** `kv delete` on version 1 (no versions: the secret is gone). */
export async function deleteV1(ctx: CommandContext, mount: string, path: string): Promise<number> {
  if (ctx.opts.versions !== undefined) v2Only('delete -versions');
  await ctx.client().delete(`${mount}/${path}`);
  ctx.out(`Success! Data deleted (if it existed) at: ${mount}/${path}`);
  return 0;
}
