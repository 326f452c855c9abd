/**
 * What every scheduler client command (`cairn sched …`) shares: the reference CLI's global
 * flags (`-address`, `-token`, `-namespace`, `-region`) over the `SCHED_*` environment, an
 * SDK `SchedClient` built from them, the output choice (`-json`, or `-format=table|json`),
 * and one-line errors.
 *
 * Server errors become `Error: <the service's text> (HTTP <status>)`, exit 1; connection
 * failures and an ended event stream exit 1; usage errors (bad flags, a bad address)
 * exit 2.
 *
 * @module
 */
import type { Command } from 'commander';
import { SchedApiError, SchedClient } from '../../sdk/index.js';
import { UsageError, flagBool } from '../args.js';
import { type ClientCtx, type ClientFamily, type ClientHandler, clientLeaf, clientOrUsageError, withHttpStatus } from '../client-command.js';
import { type App, type Format, commandGroup, globalOption, parseFormat } from '../context.js';

// The shared helpers stay reachable from here for the sched*.ts commands.
export { collect, optString, show } from '../client-command.js';
export { interruption } from '../shutdown.js';

/** The global flags of scheduler commands, by commander name. */
interface SchedGlobalOpts {
  readonly address?: string;
  readonly token?: string;
  readonly namespace?: string;
  readonly region?: string;
  readonly format?: string;
  readonly json?: unknown;
}

/** What a scheduler command handler gets. */
export type SchedCtx = ClientCtx<SchedClient>;

/** A scheduler command's body: returns the exit code. */
export type SchedHandler = ClientHandler<SchedClient>;

/** Adds the global scheduler flags to `cmd` (listed under "Global options:"). */
function addSchedGlobalOptions(cmd: Command): Command {
  return cmd
    .addOption(globalOption('--address <addr>', 'address of the scheduler, http(s)://host:port or host:port (env SCHED_ADDR, default http://127.0.0.1:4646)'))
    .addOption(globalOption('--token <secret>', 'ACL token secret (env SCHED_TOKEN)'))
    .addOption(globalOption('--namespace <ns>', 'namespace (env SCHED_NAMESPACE, default "default")'))
    .addOption(globalOption('--region <region>', "region to send the request to (env SCHED_REGION, default the agent's)"))
    .addOption(globalOption('--format <format>', 'output format: table or json'))
    .addOption(globalOption('--json [bool]', 'output JSON (same as -format=json)'));
}

/** The output format from `-json` / `-format`. @throws UsageError for anything but `table` or `json`. */
function schedFormat(opts: SchedGlobalOpts): Format {
  if (flagBool(opts.json, 'json')) return 'json';
  return parseFormat(opts.format);
}

/** A client from the global flags over the environment. @throws UsageError for a bad address. */
function schedClientFor(env: Record<string, string | undefined>, opts: SchedGlobalOpts): SchedClient {
  return clientOrUsageError(() => SchedClient.fromEnv(env, { address: opts.address, token: opts.token, namespace: opts.namespace, region: opts.region }));
}

/** `err` as the CLI reports it: a {@link SchedApiError} becomes `<the service's text> (HTTP <status>)` (main folds it onto one line). */
export function schedError(err: unknown): unknown {
  return err instanceof SchedApiError ? withHttpStatus(err) : err;
}

/** The scheduler commands' family for {@link clientLeaf}. */
const SCHED: ClientFamily<SchedClient, SchedGlobalOpts> = {
  addGlobalOptions: addSchedGlobalOptions,
  format: schedFormat,
  client: schedClientFor,
  cliError: schedError,
};

/** Adds the global flags to `cmd` and wires `handler` as its action, with a client closed afterwards. */
export function schedLeaf(app: App, cmd: Command, handler: SchedHandler): Command {
  return clientLeaf(app, cmd, SCHED, handler);
}

/** Help text of the `sched` group. */
export const SCHED_GROUP_DESCRIPTION =
  'scheduler service: agent, ACLs, auth methods, login, jobs, deployments, evaluations, nodes, event stream, CSI volumes and plugins';

/** Finds or makes the `sched` group of `program` (several files add commands to it). */
export function schedGroup(program: Command): Command {
  return commandGroup(program, 'sched', SCHED_GROUP_DESCRIPTION);
}

/** Finds or makes subcommand group `name` of `parent`. */
export function subGroup(parent: Command, name: string, description: string): Command {
  return commandGroup(parent, name, description);
}

/** The one positional argument a command takes. @throws UsageError naming `what` when it is missing or there are more. */
export function oneArg(ctx: SchedCtx, what: string): string {
  if (ctx.args.length !== 1 || ctx.args[0] === '') throw new UsageError(`this command takes one argument: ${what}`);
  return ctx.args[0];
}
