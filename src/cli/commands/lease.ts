/**
 * `cairn lease renew|revoke|lookup`: the leases of secrets (`sys/leases/…`), with the
 * reference CLI's syntax: `lease renew [-increment=<duration>] ID`, `lease revoke
 * [-prefix] [-force] [-sync] ID`, `lease lookup ID`.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError, flagBool } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { keyValueTable } from '../format.js';
import { printSecret } from './read-write.js';

/** The lease ID argument. @throws UsageError when missing. */
function idArg(ctx: CommandContext): string {
  const id = ctx.args[0]?.trim();
  if (!id) throw new UsageError('missing lease ID');
  return id;
}

/** `lease renew [-increment=<duration>] ID`: prints the renewed secret as `read` does. */
async function renew(ctx: CommandContext): Promise<number> {
  return printSecret(ctx, await ctx.client().leases.renew(idArg(ctx), ctx.opts.increment as string | undefined));
}

/**
 * One lease, or with `-prefix` every lease under the ID (`-force`: even when the engine
 * fails to revoke them). Without `-sync` the server queues the revocation (as the reference CLI).
 */
async function revoke(ctx: CommandContext): Promise<number> {
  const id = idArg(ctx);
  const prefix = flagBool(ctx.opts.prefix, 'prefix');
  const force = flagBool(ctx.opts.force, 'force');
  const sync = flagBool(ctx.opts.sync, 'sync');
  if (force && !prefix) throw new UsageError('Specifying -force requires also specifying -prefix');
  const leases = ctx.client().leases;
  if (force) {
    await leases.revokeForce(id);
    ctx.out(`Success! Force revoked any leases with prefix: ${id}`);
  } else if (prefix) {
    await leases.revokePrefix(id, { sync });
    ctx.out(sync ? `Success! Revoked any leases with prefix: ${id}` : 'All revocation operations queued successfully!');
  } else {
    await leases.revoke(id, { sync });
    ctx.out(sync ? `Success! Revoked lease: ${id}` : 'All revocation operations queued successfully!');
  }
  return 0;
}

/** `lease lookup ID`: the lease's times, TTL and renewability as a table (or JSON). */
async function lookup(ctx: CommandContext): Promise<number> {
  const info = await ctx.client().leases.lookup(idArg(ctx));
  if (ctx.format === 'json') ctx.json({ data: info });
  else ctx.out(keyValueTable(info));
  return 0;
}

/** Adds `lease renew|revoke|lookup` to `program`. */
export function addLeaseCommands(app: App, program: Command): void {
  const lease = program.command('lease').description('renew, revoke and look up the leases of secrets');
  leaf(app, lease.command('renew').argument('<id>'), renew)
    .description("renew a lease, within its mount's max TTL")
    .option('--increment <duration>', 'requested extension, e.g. 1h (default: the TTL the secret gives)')
    .option('--field <name>', 'print only this field');
  leaf(app, lease.command('revoke').argument('<id>'), revoke)
    .description('revoke a lease, or with -prefix every lease under a prefix')
    .option('--prefix [bool]', 'treat the ID as a prefix (needs sudo)')
    .option('--force [bool]', 'with -prefix: drop the leases even when their engine fails to revoke them')
    .option('--sync [bool]', 'revoke now and wait, instead of queueing');
  leaf(app, lease.command('lookup').argument('<id>'), lookup).description("show a lease's issue and expire times, TTL and whether it is renewable");
}
