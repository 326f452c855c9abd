/**
 * What the client command families of the discovery service (`cairn acl …`, acl-common.ts)
 * and the scheduler (`cairn sched …`, sched-common.ts) share: a leaf command whose action
 * builds the family's SDK client from its global flags over the environment, runs the
 * handler, reports a service error on one line and closes the client; JSON-or-table output;
 * small flag readers.
 *
 * Exit codes follow main.ts: a service error becomes `Error: <the service's text> (HTTP
 * <status>)`, exit 1; a {@link UsageError} (bad flag, bad address, unreadable file) exits 2.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from './args.js';
import { type App, type CliIo, type Format, readStdin } from './context.js';
import { toJson } from './format.js';

/** An SDK client that holds connections until closed. */
export interface ClosableClient {
  close(): Promise<void>;
}

/** What a client command handler gets. */
export interface ClientCtx<C> {
  readonly app: App;
  readonly io: CliIo;
  readonly env: Record<string, string | undefined>;
  readonly client: C;
  readonly format: Format;
  /** The command's options (commander names). */
  readonly opts: Record<string, unknown>;
  /** The positional arguments, without a `--` separator. */
  readonly args: string[];
}

/** A client command's body: returns the exit code. */
export type ClientHandler<C> = (ctx: ClientCtx<C>) => Promise<number>;

/** One service's client command family: how its leaves get their flags, format, client and error text. */
export interface ClientFamily<C extends ClosableClient, O> {
  /** Adds the family's global flags to a leaf (listed under "Global options:"). */
  readonly addGlobalOptions: (cmd: Command) => Command;
  /** The output format the parsed options ask for. @throws UsageError for a bad value. */
  readonly format: (opts: O) => Format;
  /** A client from the parsed options over the environment. @throws UsageError for a bad address or file. */
  readonly client: (env: Record<string, string | undefined>, opts: O) => C;
  /** `err` as the CLI reports it (see {@link withHttpStatus}); anything else unchanged. */
  readonly cliError: (err: unknown) => unknown;
}

/**
 * A client from `make()` (an SDK `fromEnv` call); its error (a bad address, an unreadable
 * CA or token file) becomes a {@link UsageError} with the same message, so the command exits 2.
 */
export function clientOrUsageError<C>(make: () => C): C {
  try {
    return make();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A service's API error as the CLI prints it: `<the service's text> (HTTP <status>)` (main.ts folds it onto one line). */
export function withHttpStatus(err: { readonly message: string; readonly status: number }): Error {
  return new Error(`${err.message} (HTTP ${err.status})`);
}

/** Runs `body` with `client`, reporting what it throws through `cliError`, and closes the client in every case. */
export async function withClient<C extends ClosableClient, T>(client: C, cliError: (err: unknown) => unknown, body: (client: C) => Promise<T>): Promise<T> {
  try {
    return await body(client);
  } catch (err) {
    throw cliError(err);
  } finally {
    await client.close();
  }
}

/**
 * Adds `family`'s global flags to `cmd` and wires `handler` as its action: the format and the
 * client come from the parsed flags (in that order, so a bad `-format` is reported first), the
 * handler's result becomes `app.exitCode`, and the client is closed afterwards.
 */
export function clientLeaf<C extends ClosableClient, O>(app: App, cmd: Command, family: ClientFamily<C, O>, handler: ClientHandler<C>): Command {
  return family.addGlobalOptions(cmd).action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.opts() as Record<string, unknown> & O;
    const format = family.format(opts);
    const client = family.client(app.env, opts);
    app.exitCode = await withClient(client, family.cliError, (c) =>
      handler({ app, io: app.io, env: app.env, client: c, format, opts, args: command.args.filter((a) => a !== '--') }),
    );
  });
}

/** Prints `value` as indented JSON, or the text `table()` builds (nothing when it is empty), with a final newline. */
export function show(ctx: { io: CliIo; format: Format }, value: unknown, table: () => string): void {
  if (ctx.format === 'json') return ctx.io.stdout(`${toJson(value)}\n`);
  const text = table();
  if (text !== '') ctx.io.stdout(`${text}\n`);
}

/** A handler that prints what `read` returns (see {@link show}) and exits 0; what `read` throws propagates. */
export function showing<C, T>(read: (ctx: ClientCtx<C>) => Promise<T>, table: (value: T) => string): ClientHandler<C> {
  return async (ctx) => {
    const value = await read(ctx);
    show(ctx, value, () => table(value));
    return 0;
  };
}

/** Accumulator for repeatable flags kept whole (`-policy-name=a -policy-name=b`, `-topic=Node -topic=Job:web`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A string option; `undefined` when not given. */
export function optString(opts: Record<string, unknown>, name: string): string | undefined {
  const v = opts[name];
  return v === undefined ? undefined : String(v);
}

/** Reads a file named by a flag. @throws UsageError `-<flag>: cannot read "<path>": <why>`. */
export function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`-${flag}: cannot read "${path}": ${(err as Error).message}`);
  }
}

/** A text flag value: `@file` reads the file, `-` reads standard input, anything else is the text. @throws UsageError for an unreadable file. */
export async function textValue(io: CliIo, flag: string, value: string): Promise<string> {
  if (value === '-') return readStdin(io);
  if (value.startsWith('@')) return readFlagFile(flag, value.slice(1));
  return value;
}
