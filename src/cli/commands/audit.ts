/**
 * `cairn audit enable|disable|list`: audit devices (`sys/audit`), with the reference CLI's
 * syntax and output:
 * - `audit enable TYPE [-path=P] [-description=D] [-local] [key=value…]` (the device's
 *   options, e.g. `file_path=/var/log/cairn/audit.log`); the path defaults to the type;
 * - `audit disable PATH`;
 * - `audit list [-detailed]` (`Path Type Description`, detailed adds `Replication Options`).
 *
 * @module
 */
import type { Command } from 'commander';
import type { AuditDeviceInfo } from '../../sdk/secrets-audit.js';
import { UsageError, flagBool, parseKeyValues } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { columns } from '../format.js';
import { mountPathOf } from './auth.js';

async function enable(ctx: CommandContext): Promise<number> {
  const type = ctx.args[0]?.trim();
  if (!type) throw new UsageError('missing audit device TYPE (file, socket)');
  const path = mountPathOf(String(ctx.opts.path ?? type));
  if (path === '') throw new UsageError('-path must not be empty');
  const options = parseKeyValues(ctx.args.slice(1), (p) => ctx.readFile(p)) as Record<string, string>;
  await ctx.client().audit.enable(path, {
    type,
    description: ctx.opts.description as string | undefined,
    local: ctx.opts.local === undefined ? undefined : flagBool(ctx.opts.local, 'local'),
    options,
  });
  if (ctx.format === 'table') ctx.out(`Success! Enabled the ${type} audit device at: ${path}`);
  return 0;
}

async function disable(ctx: CommandContext): Promise<number> {
  const path = mountPathOf(ctx.args[0] ?? '');
  if (path === '') throw new UsageError('missing PATH of the audit device');
  await ctx.client().audit.disable(path);
  if (ctx.format === 'table') ctx.out(`Success! Disabled audit device (if it was enabled) at: ${path}`);
  return 0;
}

/** The reference's `audit list` table; `detailed` adds replication and the options (`k=v` sorted, space-separated). */
function auditListTable(devices: Record<string, AuditDeviceInfo>, detailed: boolean): string {
  const paths = Object.keys(devices).sort();
  if (!detailed)
    return columns(
      ['Path', 'Type', 'Description'],
      paths.map((p) => [p, devices[p].type, devices[p].description || 'n/a']),
    );
  return columns(
    ['Path', 'Type', 'Description', 'Replication', 'Options'],
    paths.map((p) => {
      const d = devices[p];
      const options = Object.keys(d.options ?? {})
        .sort()
        .map((k) => `${k}=${d.options[k]}`)
        .join(' ');
      return [p, d.type, d.description || 'n/a', d.local ? 'local' : 'replicated', options];
    }),
  );
}

async function list(ctx: CommandContext): Promise<number> {
  const devices = await ctx.client().audit.list();
  if (ctx.format === 'json') ctx.json(devices);
  else if (Object.keys(devices).length === 0) ctx.out('No audit devices are enabled.');
  else ctx.out(auditListTable(devices, ctx.opts.detailed !== undefined && flagBool(ctx.opts.detailed, 'detailed')));
  return 0;
}

/** Adds `audit enable|disable|list` to `program`. */
export function addAuditCommands(app: App, program: Command): void {
  const audit = program.command('audit').description('manage audit devices');
  leaf(
    app,
    audit
      .command('enable')
      .argument('<type>', 'device type: file or socket')
      .argument('[options...]', 'device options as key=value, e.g. file_path=/var/log/cairn/audit.log'),
    enable,
  )
    .description('enable an audit device')
    .option('--path <path>', "the device's path (default: the type)")
    .option('--description <text>', 'human-friendly description')
    .option('--local [bool]', 'mark the device local (not replicated)');
  leaf(app, audit.command('disable').argument('<path>', 'path of the device'), disable).description('disable an audit device');
  leaf(app, audit.command('list'), list).description('list the enabled audit devices').option('--detailed [bool]', 'also show replication and options');
}
