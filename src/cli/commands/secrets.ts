/**
 * `cairn secrets enable|disable|list|tune|move`: the secrets engines' mount table
 * (`sys/mounts`, `sys/remount`; reference/secrets.md §3.5), with the reference CLI's
 * syntax and output (`vault secrets …`):
 * - `secrets enable [-path=P] [-description=D] [-default-lease-ttl=T] [-max-lease-ttl=T]
 *   [-version=N] [-options=k=v]... [-local] [-seal-wrap] TYPE` → `Success! Enabled the
 *   TYPE secrets engine at: P/` (the path defaults to the type, so `kv-v2` mounts a KV
 *   version 2 engine at `kv-v2/`);
 * - `secrets disable PATH` → `Success! Disabled the secrets engine (if it existed) at: PATH/`;
 * - `secrets list [-detailed]` → the `Path Type Accessor Description` table (detailed:
 *   TTLs, replication, seal wrap, options, UUID), or the mount table as JSON with `-format=json`;
 * - `secrets tune [-default-lease-ttl=T] [-max-lease-ttl=T] [-description=D] [-options=k=v]...
 *   [-version=N] PATH` → `Success! Tuned the secrets engine at: PATH/` (only the flags
 *   given change);
 * - `secrets move SOURCE DESTINATION` → `Started moving …` then `Success! Finished moving
 *   secrets engine SOURCE/ to DESTINATION/, with migration ID ID`; the leases of the old
 *   path are revoked.
 *
 * Durations are passed as given (`1h`, `90s`, or seconds); the server refuses a bad one with
 * a 400 naming the field, as it refuses an engine type it does not know. Exit codes as every
 * `cairn` command: 0 done, 1 refused by the server (its message on stderr), 2 usage error.
 *
 * @module
 */
import type { Command } from 'commander';
import type { TuneMountOptions } from '../../sdk/index.js';
import { UsageError, collectPair, flagBool, parseNonNegativeInt } from '../args.js';
import { type App, type CommandContext, commandGroup, leaf } from '../context.js';
import { secretsListTable } from '../format-operator.js';
import { mountPathOf } from './auth.js';

/** Pause between two reads of a migration's status while the server reports it in progress. */
const MIGRATION_POLL_MS = 1000;

/** A mount path argument as `-path` or a positional: `kv` → `kv/`. @throws UsageError when empty. */
function pathArg(value: unknown, what: string): string {
  const path = mountPathOf(String(value ?? ''));
  if (path === '') throw new UsageError(`${what} must not be empty`);
  return path;
}

/** `-options=k=v`… with `-version=N` (N > 0) as `options.version`, the reference's shorthand; undefined when neither is given. */
function engineOptions(ctx: CommandContext): Record<string, string> | undefined {
  const options: Record<string, string> = { ...(ctx.opts.options as Record<string, string> | undefined) };
  if (ctx.opts.version !== undefined) {
    const version = parseNonNegativeInt(String(ctx.opts.version), 'version');
    if (version > 0) options.version = String(version);
  }
  return Object.keys(options).length > 0 ? options : undefined;
}

/** `-default-lease-ttl` and `-max-lease-ttl` as given (the server parses them). */
function leaseTtls(ctx: CommandContext): { default_lease_ttl?: string; max_lease_ttl?: string } {
  const ttls: { default_lease_ttl?: string; max_lease_ttl?: string } = {};
  if (ctx.opts.defaultLeaseTtl !== undefined) ttls.default_lease_ttl = String(ctx.opts.defaultLeaseTtl);
  if (ctx.opts.maxLeaseTtl !== undefined) ttls.max_lease_ttl = String(ctx.opts.maxLeaseTtl);
  return ttls;
}

async function enable(ctx: CommandContext): Promise<number> {
  const type = ctx.args[0]?.trim() ?? '';
  if (type === '') throw new UsageError('missing secrets engine TYPE (e.g. kv, kv-v2, database, transit, pki)');
  const path = pathArg(ctx.opts.path ?? type, '-path');
  const config = leaseTtls(ctx);
  await ctx.client().sys.enableMount(path, {
    type,
    description: ctx.opts.description as string | undefined,
    options: engineOptions(ctx),
    config: Object.keys(config).length > 0 ? config : undefined,
    local: ctx.opts.local === undefined ? undefined : flagBool(ctx.opts.local, 'local'),
    sealWrap: ctx.opts.sealWrap === undefined ? undefined : flagBool(ctx.opts.sealWrap, 'seal-wrap'),
  });
  if (ctx.format === 'table') ctx.out(`Success! Enabled the ${type} secrets engine at: ${path}`);
  return 0;
}

async function disable(ctx: CommandContext): Promise<number> {
  const path = pathArg(ctx.args[0], 'PATH');
  await ctx.client().sys.disableMount(path);
  if (ctx.format === 'table') ctx.out(`Success! Disabled the secrets engine (if it existed) at: ${path}`);
  return 0;
}

async function list(ctx: CommandContext): Promise<number> {
  const mounts = await ctx.client().sys.mounts();
  if (ctx.format === 'json') ctx.json(mounts);
  else ctx.out(secretsListTable(mounts, flagBool(ctx.opts.detailed, 'detailed')));
  return 0;
}

async function tune(ctx: CommandContext): Promise<number> {
  const path = pathArg(ctx.args[0], 'PATH');
  const options: TuneMountOptions = { ...leaseTtls(ctx) };
  if (ctx.opts.description !== undefined) options.description = String(ctx.opts.description);
  const engine = engineOptions(ctx);
  if (engine) options.options = engine;
  await ctx.client().sys.tuneMount(path, options);
  if (ctx.format === 'table') ctx.out(`Success! Tuned the secrets engine at: ${path}`);
  return 0;
}

/**
 * Starts the move and follows its migration until the server reports `success` (exit 0) or
 * `failure` (exit 1). A server that answers without a migration id has moved the engine already.
 */
async function move(ctx: CommandContext): Promise<number> {
  const source = pathArg(ctx.args[0], 'SOURCE');
  const destination = pathArg(ctx.args[1], 'DESTINATION');
  const sys = ctx.client().sys;
  const id = await sys.remount(source, destination);
  if (id === undefined) {
    ctx.out(`Success! Moved secrets engine ${source} to: ${destination}`);
    return 0;
  }
  const what = `secrets engine ${source} to ${destination}, with migration ID ${id}`;
  ctx.out(`Started moving ${what}`);
  for (;;) {
    const { status } = (await sys.remountStatus(id)).migration_info;
    if (status === 'success') {
      ctx.out(`Success! Finished moving ${what}`);
      return 0;
    }
    if (status === 'failure') {
      ctx.err(`Failure! Error encountered moving ${what}`);
      return 1;
    }
    ctx.out(`Waiting for terminal status in migration of ${what}`);
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_POLL_MS));
  }
}

/** The lease TTL flags `enable` and `tune` share. */
function withTtlFlags(cmd: Command): Command {
  return cmd
    .option('--default-lease-ttl <duration>', "default lease TTL of the engine's secrets, e.g. 1h (default: the system's, 768h)")
    .option('--max-lease-ttl <duration>', "maximum lease TTL of the engine's secrets (default: the system's, 768h)");
}

/** The engine option flags `enable` and `tune` share. */
function withOptionFlags(cmd: Command): Command {
  return cmd
    .option('--options <key=value>', 'an engine option; repeat for several', collectPair)
    .option('--version <n>', 'engine version, the same as -options=version=N (kv: 1 or 2)');
}

/** Adds `secrets enable|disable|list|tune|move` to `program` (the `secrets` group `secrets server` shares). */
export function addSecretsCommands(app: App, program: Command): void {
  const secrets = commandGroup(program, 'secrets', 'secrets service commands');
  const enableCmd = leaf(app, secrets.command('enable').argument('<type>', 'engine type: kv, kv-v2, database, transit, pki, …'), enable)
    .description('enable a secrets engine')
    .option('--path <path>', 'where to mount it (default: the type)')
    .option('--description <text>', 'human-friendly description')
    .option('--local [bool]', 'mark the engine local (not replicated)')
    .option('--seal-wrap [bool]', "seal-wrap the engine's critical values");
  withOptionFlags(withTtlFlags(enableCmd));
  leaf(app, secrets.command('disable').argument('<path>', 'where the engine is mounted'), disable).description(
    'disable a secrets engine, revoking its secrets and deleting its data',
  );
  leaf(app, secrets.command('list'), list)
    .description('list the enabled secrets engines')
    .option('--detailed [bool]', 'also show TTLs, replication, seal wrap, options and UUID');
  const tuneCmd = leaf(app, secrets.command('tune').argument('<path>', 'where the engine is mounted'), tune)
    .description("tune a secrets engine's configuration")
    .option('--description <text>', 'human-friendly description (replaces the current one)');
  withOptionFlags(withTtlFlags(tuneCmd));
  leaf(app, secrets.command('move').argument('<source>', 'where the engine is mounted').argument('<destination>', 'where to move it'), move).description(
    "move a secrets engine to a new path, revoking the old path's leases",
  );
}
