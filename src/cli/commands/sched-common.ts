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
import { type Command, Option } from 'commander';
import { SchedApiError, SchedClient } from '../../sdk/index.js';
import { UsageError, flagBool } from '../args.js';
import type { App, CliIo, Format } from '../context.js';
import { toJson } from '../format.js';

/** The global flags of scheduler commands, by commander name. */
export interface SchedGlobalOpts {
  readonly address?: string;
  readonly token?: string;
  readonly namespace?: string;
  readonly region?: string;
  readonly format?: string;
  readonly json?: unknown;
}

/** What a scheduler command handler gets. */
export interface SchedCtx {
  readonly app: App;
  readonly io: CliIo;
  readonly env: Record<string, string | undefined>;
  readonly client: SchedClient;
  readonly format: Format;
  /** The command's options (commander names). */
  readonly opts: Record<string, unknown>;
  readonly args: string[];
}

/** A scheduler command's body: returns the exit code. */
export type SchedHandler = (ctx: SchedCtx) => Promise<number>;

/** Adds the global scheduler flags to `cmd` (listed under "Global options:"). */
export function addSchedGlobalOptions(cmd: Command): Command {
  const global = (flags: string, description: string) => new Option(flags, description).helpGroup('Global options:');
  return cmd
    .addOption(global('--address <addr>', 'address of the scheduler, http(s)://host:port or host:port (env SCHED_ADDR, default http://127.0.0.1:4646)'))
    .addOption(global('--token <secret>', 'ACL token secret (env SCHED_TOKEN)'))
    .addOption(global('--namespace <ns>', 'namespace (env SCHED_NAMESPACE, default "default")'))
    .addOption(global('--region <region>', 'region to send the request to (env SCHED_REGION, default the agent\'s)'))
    .addOption(global('--format <format>', 'output format: table or json'))
    .addOption(global('--json [bool]', 'output JSON (same as -format=json)'));
}

/** The output format from `-json` / `-format`. @throws UsageError for anything but `table` or `json`. */
export function schedFormat(opts: SchedGlobalOpts): Format {
  if (flagBool(opts.json, 'json')) return 'json';
  const format = String(opts.format ?? 'table');
  if (format !== 'table' && format !== 'json') throw new UsageError(`invalid -format "${format}": use table or json`);
  return format;
}

/** A client from the global flags over the environment. @throws UsageError for a bad address. */
export function schedClientFor(env: Record<string, string | undefined>, opts: SchedGlobalOpts): SchedClient {
  try {
    return SchedClient.fromEnv(env, { address: opts.address, token: opts.token, namespace: opts.namespace, region: opts.region });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** `err` as the CLI reports it: a {@link SchedApiError} becomes `<the service's text> (HTTP <status>)` (main folds it onto one line). */
export function schedError(err: unknown): unknown {
  if (err instanceof SchedApiError) return new Error(`${err.message} (HTTP ${err.status})`);
  return err;
}

/** Adds the global flags to `cmd` and wires `handler` as its action, with a client closed afterwards. */
export function schedLeaf(app: App, cmd: Command, handler: SchedHandler): Command {
  return addSchedGlobalOptions(cmd).action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.opts() as Record<string, unknown> & SchedGlobalOpts;
    const format = schedFormat(opts);
    const client = schedClientFor(app.env, opts);
    try {
      app.exitCode = await handler({ app, io: app.io, env: app.env, client, format, opts, args: command.args.filter((a) => a !== '--') });
    } catch (err) {
      throw schedError(err);
    } finally {
      await client.close();
    }
  });
}

/** Finds or makes the `sched` group of `program` (several files add commands to it). */
export function schedGroup(program: Command): Command {
  return program.commands.find((c) => c.name() === 'sched') ?? program.command('sched').description('scheduler service: agent, ACLs, auth methods, login, nodes, event stream');
}

/** Finds or makes subcommand group `name` of `parent`. */
export function subGroup(parent: Command, name: string, description: string): Command {
  return parent.commands.find((c) => c.name() === name) ?? parent.command(name).description(description);
}

/** Prints `value` as indented JSON, or the text `table()` builds, with a final newline. */
export function show(ctx: { io: CliIo; format: Format }, value: unknown, table: () => string): void {
  if (ctx.format === 'json') return ctx.io.stdout(`${toJson(value)}\n`);
  const text = table();
  if (text !== '') ctx.io.stdout(`${text}\n`);
}

/** The one positional argument a command takes. @throws UsageError naming `what` when it is missing or there are more. */
export function oneArg(ctx: SchedCtx, what: string): string {
  if (ctx.args.length !== 1 || ctx.args[0] === '') throw new UsageError(`this command takes one argument: ${what}`);
  return ctx.args[0];
}

/** A string option; `undefined` when not given. */
export function optString(opts: Record<string, unknown>, name: string): string | undefined {
  const v = opts[name];
  return v === undefined ? undefined : String(v);
}

/** Accumulator for repeatable flags kept whole (`-topic=Node -topic=Job:web`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** An abort signal for commands that run until interrupted, and the way to stop listening. */
export interface Interruption {
  /** Aborts on the first SIGINT or SIGTERM, or when `io.shutdown` aborts. */
  readonly signal: AbortSignal;
  /** Removes the signal and shutdown listeners (call it when the command ends). */
  dispose(): void;
}

/** Listens for SIGINT/SIGTERM and `io.shutdown` (tests) until disposed; see {@link Interruption}. */
export function interruption(io: CliIo): Interruption {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (io.shutdown?.aborted) stop();
  else io.shutdown?.addEventListener('abort', stop);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.shutdown?.removeEventListener('abort', stop);
    },
  };
}
