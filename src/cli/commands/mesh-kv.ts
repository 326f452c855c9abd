/**
 * `cairn mesh kv get|put|delete|export|import`: the discovery service's key/value store
 * through the SDK's `MeshClient.kv` (reference: the `consul kv …` CLI, with its texts):
 *
 * - `get KEY` prints the value; `-detailed` every field; `-recurse` `key:value` lines;
 *   `-keys` the key names (`-separator`, default `/`); `-base64` the value base64;
 *   a missing key: `Error! No key exists at: KEY`, exit 1;
 * - `put KEY [DATA]` (`DATA`: text, `@FILE`, `-` for standard input; `-base64` decodes it;
 *   `-flags`; `-cas` with `-modify-index`, 0 = only if absent) prints `Success! Data
 *   written to: KEY`; a failed check: `Error! Did not write to KEY: CAS failed`, exit 1;
 * - `delete KEY` (`-recurse`, `-cas` with `-modify-index`);
 * - `export [PREFIX]` prints `[{"key", "flags", "value" (base64)}]`; `import [DATA]` (the
 *   same JSON; `@FILE`, `-`; `-prefix` keeps only the entries under it) writes each entry and
 *   prints `Imported: KEY`.
 *
 * The global discovery flags (`-http-addr`, `-token`, …) apply (acl-common.ts).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { kvValue, type MeshKvEntry } from '../../sdk/index.js';
import { flagBool, parseNonNegativeInt, UsageError } from '../args.js';
import { commandGroup, readStdin, type App } from '../context.js';
import { meshLeaf, type MeshCtx, optString, show } from './acl-common.js';

/** One entry of `kv export` / `kv import` (the reference's `kvExportEntry`). */
interface ExportEntry {
  readonly key: string;
  readonly flags: number;
  /** base64 */
  readonly value: string;
}

/** The only positional argument `name`, required unless `optional`. @throws UsageError otherwise. */
function oneArg(ctx: MeshCtx, name: string, optional = false): string | undefined {
  if (ctx.args.length > 1) throw new UsageError(`too many arguments (expected 1, got ${ctx.args.length})`);
  if (ctx.args.length === 0 && !optional) throw new UsageError(`missing ${name}`);
  return ctx.args[0];
}

/** Prints `text` on standard error and returns exit code 1 (the reference's `Error! …` refusals). */
function refuse(ctx: MeshCtx, text: string): number {
  ctx.io.stderr(`${text}\n`);
  return 1;
}

/** `-cas` with `-modify-index`: the index to check, or undefined without `-cas`. @throws UsageError for `-cas` without an index. */
function casOf(ctx: MeshCtx): number | undefined {
  const index = optString(ctx.opts, 'modifyIndex');
  if (!flagBool(ctx.opts.cas, 'cas')) return undefined;
  if (index === undefined) throw new UsageError('must specify -modify-index with -cas');
  return parseNonNegativeInt(index, 'modify-index');
}

/** `DATA` as bytes: `@FILE` read as is, `-` standard input, else the text itself. */
async function dataOf(ctx: MeshCtx, data: string | undefined): Promise<Buffer> {
  if (data === undefined) return Buffer.alloc(0);
  if (data === '-') return Buffer.from(await readStdin(ctx.io), 'utf8');
  if (data.startsWith('@')) {
    try {
      return readFileSync(data.slice(1));
    } catch (err) {
      throw new UsageError(`cannot read ${data.slice(1)}: ${(err as Error).message}`);
    }
  }
  return Buffer.from(data, 'utf8');
}

function detailed(e: MeshKvEntry, base64: boolean): string {
  const value = base64 ? (e.Value ?? '') : kvValue(e).toString('utf8');
  const rows: [string, string | number][] = [
    ['CreateIndex', e.CreateIndex],
    ['Flags', e.Flags],
    ['Key', e.Key],
    ['LockIndex', e.LockIndex],
    ['ModifyIndex', e.ModifyIndex],
    ['Session', e.Session ?? '-'],
    ['Value', value],
  ];
  return rows.map(([k, v]) => `${k.padEnd(17)}${v}`).join('\n');
}

async function get(ctx: MeshCtx): Promise<number> {
  const key = oneArg(ctx, 'KEY', true) ?? '';
  const base64 = flagBool(ctx.opts.base64, 'base64');
  const value = (e: MeshKvEntry) => (base64 ? (e.Value ?? '') : kvValue(e).toString('utf8'));
  if (flagBool(ctx.opts.keys, 'keys')) {
    const { items } = await ctx.client.kv.keys(key, { separator: optString(ctx.opts, 'separator') ?? '/' });
    show(ctx, items, () => items.join('\n'));
    return 0;
  }
  if (flagBool(ctx.opts.recurse, 'recurse')) {
    const { items } = await ctx.client.kv.list(key);
    const lines = items.map((e) => (flagBool(ctx.opts.detailed, 'detailed') ? detailed(e, base64) : `${e.Key}:${value(e)}`));
    show(ctx, items, () => lines.join(flagBool(ctx.opts.detailed, 'detailed') ? '\n\n' : '\n'));
    return 0;
  }
  if (key === '') throw new UsageError('missing KEY');
  const { entry } = await ctx.client.kv.get(key);
  if (!entry) return refuse(ctx, `Error! No key exists at: ${key}`);
  const text = flagBool(ctx.opts.detailed, 'detailed') ? detailed(entry, base64) : value(entry);
  // Not through show(): an empty value still prints its (empty) line, as the reference.
  if (ctx.format === 'json') show(ctx, entry, () => text);
  else ctx.io.stdout(`${text}\n`);
  return 0;
}

async function put(ctx: MeshCtx): Promise<number> {
  if (ctx.args.length > 2) throw new UsageError(`too many arguments (expected 1 or 2, got ${ctx.args.length})`);
  const [key, data] = ctx.args;
  if (!key) throw new UsageError('missing KEY');
  let value = await dataOf(ctx, data);
  if (flagBool(ctx.opts.base64, 'base64')) value = Buffer.from(value.toString('utf8'), 'base64');
  const flags = optString(ctx.opts, 'flags');
  const ok = await ctx.client.kv.put(key, value, { flags: flags === undefined ? undefined : parseNonNegativeInt(flags, 'flags'), cas: casOf(ctx) });
  if (!ok) return refuse(ctx, `Error! Did not write to ${key}: CAS failed`);
  ctx.io.stdout(`Success! Data written to: ${key}\n`);
  return 0;
}

async function remove(ctx: MeshCtx): Promise<number> {
  const recurse = flagBool(ctx.opts.recurse, 'recurse');
  const key = oneArg(ctx, 'KEY', recurse) ?? '';
  const cas = casOf(ctx);
  if (recurse && cas !== undefined) throw new UsageError('cannot specify both -cas and -recurse');
  const ok = await ctx.client.kv.delete(key, { recurse, cas });
  if (!ok) return refuse(ctx, `Error! Did not delete key ${key}: CAS failed`);
  ctx.io.stdout(recurse ? `Success! Deleted keys with prefix: ${key}\n` : `Success! Deleted key: ${key}\n`);
  return 0;
}

async function exportKv(ctx: MeshCtx): Promise<number> {
  const prefix = oneArg(ctx, 'PREFIX', true) ?? '';
  const { items } = await ctx.client.kv.list(prefix);
  const entries: ExportEntry[] = items.map((e) => ({ key: e.Key, flags: e.Flags, value: e.Value ?? '' }));
  // The reference indents its export with tabs.
  ctx.io.stdout(`${JSON.stringify(entries, null, '\t')}\n`);
  return 0;
}

/** The entries of an export. @throws UsageError for anything but a JSON array of `{key, flags, value}`. */
function parseExport(text: string): ExportEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`cannot parse the data as JSON: ${(err as Error).message}`);
  }
  const valid = (e: unknown): e is ExportEntry => {
    const o = e as Record<string, unknown> | null;
    return (
      typeof o === 'object' &&
      o !== null &&
      typeof o.key === 'string' &&
      typeof o.value === 'string' &&
      (o.flags === undefined || Number.isSafeInteger(o.flags))
    );
  };
  if (!Array.isArray(parsed) || !parsed.every(valid))
    throw new UsageError('the data must be a JSON array of {"key", "flags", "value" (base64)} objects, as kv export prints');
  return parsed;
}

async function importKv(ctx: MeshCtx): Promise<number> {
  const data = oneArg(ctx, 'DATA', true) ?? '-';
  const entries = parseExport((await dataOf(ctx, data)).toString('utf8'));
  const prefix = optString(ctx.opts, 'prefix') ?? '';
  for (const e of entries.filter((x) => x.key.startsWith(prefix))) {
    await ctx.client.kv.put(e.key, Buffer.from(e.value, 'base64'), { flags: e.flags ?? 0 });
    ctx.io.stdout(`Imported: ${e.key}\n`);
  }
  return 0;
}

/** Adds `mesh kv get|put|delete|export|import` to `program` (reusing the `mesh` group `mesh agent` makes). */
export function addMeshKvCommands(app: App, program: Command): void {
  const kv = commandGroup(program, 'mesh', 'discovery service commands').command('kv').description("the discovery service's key/value store");
  const bool = (flag: string, help: string) => new Option(`--${flag} [bool]`, help);
  meshLeaf(
    app,
    kv
      .command('get')
      .argument('[key]', 'the key, or the prefix with -recurse / -keys')
      .description('print a value, or with -recurse every key:value under a prefix')
      .addOption(bool('recurse', 'every key under the prefix, as key:value lines'))
      .addOption(bool('keys', 'the key names under the prefix'))
      .option('--separator <sep>', 'with -keys: cut each name after this, past the prefix (default /)')
      .addOption(bool('detailed', 'every field of the entry'))
      .addOption(bool('base64', 'print the value base64-encoded')),
    get,
  );
  const casFlags = (cmd: Command) =>
    cmd
      .addOption(bool('cas', 'check-and-set: only if the key is at -modify-index (0: only if it does not exist)'))
      .option('--modify-index <n>', 'the index -cas checks');
  meshLeaf(
    app,
    casFlags(
      kv
        .command('put')
        .argument('<key>', 'the key')
        .argument('[data]', 'the value: text, @FILE or - for standard input (default empty)')
        .description('store a value at a key')
        .option('--flags <n>', 'an unsigned number stored with the value')
        .addOption(bool('base64', 'DATA is base64: store its decoded bytes')),
    ),
    put,
  );
  meshLeaf(
    app,
    casFlags(
      kv
        .command('delete')
        .argument('[key]', 'the key, or the prefix with -recurse')
        .description('delete a key, or every key under a prefix')
        .addOption(bool('recurse', 'every key under the prefix')),
    ),
    remove,
  );
  meshLeaf(
    app,
    kv.command('export').argument('[prefix]', 'the prefix (default: everything)').description('print the keys under a prefix as JSON for kv import'),
    exportKv,
  );
  meshLeaf(
    app,
    kv
      .command('import')
      .argument('[data]', 'what kv export printed: JSON text, @FILE or - for standard input (default)')
      .description('store the entries kv export printed')
      .option('--prefix <prefix>', 'import only the entries under this prefix'),
    importKv,
  );
}
