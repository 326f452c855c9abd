/**
 * `cairn namespace create|list|delete`: child namespaces of the current namespace
 * (`sys/namespaces`), like the reference CLI. The current namespace comes from
 * `-namespace`/`-ns` or `SECRETS_NAMESPACE`.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError, collectPair } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { columns } from '../format.js';
import { namespaceTable } from '../format-operator.js';

/** `parent/` + `child` → `parent/child/`: the full path of a namespace, with one trailing slash. */
export function namespacePath(parent: string, name: string): string {
  const parts = [...parent.split('/'), ...name.split('/')].map((p) => p.trim()).filter((p) => p !== '');
  return parts.length === 0 ? '' : `${parts.join('/')}/`;
}

function nameArg(ctx: CommandContext): string {
  const name = ctx.args[0]?.trim().replace(/^\/+|\/+$/g, '');
  if (!name) throw new UsageError('missing namespace NAME');
  return name;
}

async function create(ctx: CommandContext): Promise<number> {
  const info = await ctx.client().namespaces.create(nameArg(ctx), (ctx.opts.customMetadata as Record<string, string> | undefined) ?? {});
  if (ctx.format === 'json') ctx.json(info);
  else ctx.out(namespaceTable(info));
  return 0;
}

async function list(ctx: CommandContext): Promise<number> {
  const { keys, key_info } = await ctx.client().namespaces.list();
  if (keys.length === 0) {
    ctx.err('No namespaces found');
    return 2;
  }
  if (ctx.format === 'json') {
    ctx.json(ctx.opts.detailed ? { keys, key_info } : keys);
    return 0;
  }
  const sorted = [...keys].sort();
  if (ctx.opts.detailed) {
    ctx.out(
      columns(
        ['Keys', 'custom_metadata', 'id'],
        sorted.map((k) => [k, JSON.stringify(key_info[k]?.custom_metadata ?? {}), key_info[k]?.id ?? '']),
      ),
    );
  } else {
    ctx.out(['Keys', '----', ...sorted].join('\n'));
  }
  return 0;
}

async function del(ctx: CommandContext): Promise<number> {
  const name = nameArg(ctx);
  await ctx.client().namespaces.delete(name);
  if (ctx.format === 'table') ctx.out(`Success! Namespace deleted at: ${namespacePath(ctx.namespace, name)}`);
  return 0;
}

/** Adds `namespace create|list|delete` to `program`. */
export function addNamespaceCommands(app: App, program: Command): void {
  const ns = program.command('namespace').description('manage child namespaces of the current namespace');
  leaf(app, ns.command('create').argument('<name>'), create)
    .description('create a child namespace')
    .option('--custom-metadata <key=value>', 'a metadata pair; repeat for more', collectPair);
  leaf(app, ns.command('list'), list).description('list the child namespaces').option('--detailed [bool]', "also show each namespace's ID and metadata");
  leaf(app, ns.command('delete').argument('<name>'), del).description('delete a child namespace and everything in it');
}
