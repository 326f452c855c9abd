/**
 * What every client command gets: the global flags (`-address`, `-namespace`, `-format`,
 * `-ca-cert`, `-tls-skip-verify`) on top of the `SECRETS_*` environment, an SDK client
 * built from them, and output helpers writing to the injected streams.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { SecretsClient } from '../sdk/index.js';
import { UsageError, parseBool, parseJsonObject, parseKeyValues } from './args.js';
import { sectionHeader, toJson, warningLines } from './format.js';
import { readHiddenLine } from './prompt.js';
import { readStoredToken } from './token-helper.js';

/** Where the CLI reads and writes; injected so `main()` runs in-process in tests. */
export interface CliIo {
  /** Receives whole chunks of output, newlines included. */
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Reads all of standard input (for the `-` data argument). Defaults to `process.stdin`. */
  readStdin?: () => Promise<string>;
  /** Whether stdout is a terminal; `-field` omits the trailing newline when it is not, like the reference. */
  isTTY?: boolean;
  /** Aborting it stops `cairn dev` as SIGINT would. */
  shutdown?: AbortSignal;
  /**
   * Asks for a secret (unseal key, password, token) after showing `prompt`. Defaults to reading
   * a line from the terminal with echo off; fails when standard input is not a terminal.
   */
  promptSecret?: (prompt: string) => Promise<string>;
}

/** Output format chosen with `-format` or `SECRETS_FORMAT`. */
export type Format = 'table' | 'json';

/** Per-run state shared by all commands of one `main()` call. */
export interface App {
  io: CliIo;
  env: Record<string, string | undefined>;
  /** Exit code the last action asked for. */
  exitCode: number;
  /** Clients to close when the run ends. */
  clients: SecretsClient[];
  /** Client commands made with {@link leaf}; they get the global flags once the tree is built. */
  leaves: Command[];
}

/** Everything a command handler needs. */
export interface CommandContext {
  readonly io: CliIo;
  readonly env: Record<string, string | undefined>;
  readonly format: Format;
  /** The command's own options (commander names: `casRequired`, `mount`, …). */
  readonly opts: Record<string, unknown>;
  /** The command's positional arguments. */
  readonly args: string[];
  /** SDK client from flags and environment; built on first use. @throws UsageError on a bad address or CA file. */
  client(): SecretsClient;
  /** Prints `text` and a newline to stdout. */
  out(text: string): void;
  /** Prints `text` and a newline to stderr. */
  err(text: string): void;
  /** Prints `value` as indented JSON to stdout. */
  json(value: unknown): void;
  /** Prints the reference's warning block to stderr (nothing when there are none). */
  warn(warnings: readonly string[] | null | undefined): void;
  /** Reads a file given as `@file`. @throws UsageError when it cannot be read. */
  readFile(path: string): string;
  /** Asks for a secret through `io.promptSecret` or the terminal (echo off). @throws UsageError without a terminal. */
  promptSecret(prompt: string): Promise<string>;
  /** The namespace requests go to (`-namespace`/`-ns`, else `SECRETS_NAMESPACE`); `""` for the root. */
  readonly namespace: string;
}

/** A command's body: returns the exit code. */
export type Handler = (ctx: CommandContext) => Promise<number>;

/** An option listed under "Global options:" in a command's help (the flags every command of a family takes). */
export function globalOption(flags: string, description?: string): Option {
  return new Option(flags, description).helpGroup('Global options:');
}

/** The output format a `-format` value asks for; absent means `table`. @throws UsageError for anything but `table` or `json`. */
export function parseFormat(value: unknown): Format {
  const format = String(value ?? 'table');
  if (format !== 'table' && format !== 'json') throw new UsageError(`invalid -format "${format}": use table or json`);
  return format;
}

/** Finds or makes subcommand group `name` of `parent` (several files add commands to one group). */
export function commandGroup(parent: Command, name: string, description: string): Command {
  return parent.commands.find((c) => c.name() === name) ?? parent.command(name).description(description);
}

/** Adds the global client flags to a leaf command (the reference accepts them after the subcommand). */
export function addGlobalOptions(cmd: Command): Command {
  return cmd
    .addOption(globalOption('--address <url>', 'address of the secrets service (env SECRETS_ADDR, default https://127.0.0.1:8200)'))
    .addOption(globalOption('--namespace <ns>', 'namespace (env SECRETS_NAMESPACE)'))
    .addOption(globalOption('--ns <ns>').hideHelp())
    .addOption(globalOption('--format <format>', 'output format: table or json (env SECRETS_FORMAT)'))
    .addOption(globalOption('--ca-cert <file>', 'PEM file of the CA that signed the server certificate (env SECRETS_CACERT)'))
    .addOption(globalOption('--tls-skip-verify [bool]', 'do not verify the server certificate (env SECRETS_SKIP_VERIFY)'))
    .addOption(globalOption('--client-cert <file>', 'PEM client certificate presented to the server, for the cert auth method (env SECRETS_CLIENT_CERT)'))
    .addOption(globalOption('--client-key <file>', 'PEM private key of -client-cert (env SECRETS_CLIENT_KEY)'));
}

/** Wires `handler` as the action of `cmd`; {@link addGlobalOptions} is applied later, so they are listed last in help. */
export function leaf(app: App, cmd: Command, handler: Handler): Command {
  app.leaves.push(cmd);
  return cmd.action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    app.exitCode = await handler(contextFor(app, command));
  });
}

function contextFor(app: App, command: Command): CommandContext {
  const opts = command.opts() as Record<string, unknown>;
  const format = parseFormat(opts.format ?? app.env.SECRETS_FORMAT);
  let client: SecretsClient | undefined;
  const io = app.io;
  const namespace = String(opts.namespace ?? opts.ns ?? app.env.SECRETS_NAMESPACE ?? '');
  return {
    io,
    env: app.env,
    format,
    opts,
    args: command.args.filter((a) => a !== '--'),
    client() {
      if (client) return client;
      const skip = opts.tlsSkipVerify;
      const caFile = opts.caCert as string | undefined;
      const pemFile = (flag: string, file: unknown) => {
        if (file === undefined) return undefined;
        try {
          return readFileSync(String(file), 'utf8');
        } catch (err) {
          throw new UsageError(`-${flag}: cannot read "${String(file)}": ${(err as Error).message}`);
        }
      };
      try {
        client = SecretsClient.fromEnv(app.env, {
          address: opts.address as string | undefined,
          // SECRETS_TOKEN first, else the token `cairn login` stored (reference precedence).
          token: app.env.SECRETS_TOKEN ? undefined : readStoredToken(app.env),
          namespace: (opts.namespace ?? opts.ns) as string | undefined,
          caCert: caFile !== undefined ? readFileSync(caFile, 'utf8') : undefined,
          clientCert: pemFile('client-cert', opts.clientCert),
          clientKey: pemFile('client-key', opts.clientKey),
          skipVerify: skip === undefined ? undefined : skip === true || skip === null || parseBool(String(skip), 'tls-skip-verify'),
        });
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError((err as Error).message);
      }
      app.clients.push(client);
      return client;
    },
    out: (text) => io.stdout(`${text}\n`),
    err: (text) => io.stderr(`${text}\n`),
    json: (value) => io.stdout(`${toJson(value)}\n`),
    warn(warnings) {
      for (const line of warningLines(warnings)) io.stderr(`${line}\n`);
    },
    readFile(path) {
      try {
        return readFileSync(path, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
      }
    },
    promptSecret: (prompt) => (io.promptSecret ? io.promptSecret(prompt) : readHiddenLine(prompt)),
    namespace,
  };
}

/** Standard input as text, through `io.readStdin` or `process.stdin`. */
export async function readStdin(io: CliIo): Promise<string> {
  if (io.readStdin) return io.readStdin();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Prints a single `-field` value: raw, with a newline only on a terminal (reference behaviour). */
export function printField(ctx: CommandContext, value: string): void {
  ctx.io.stdout(ctx.io.isTTY ? `${value}\n` : value);
}

/** Data arguments of `kv put` / `write`: `-` reads a JSON object from stdin, else `k=v`, `k=@file`, `@file.json`. */
export async function readDataArgs(ctx: CommandContext, args: readonly string[]): Promise<Record<string, unknown>> {
  if (args.length === 1 && args[0] === '-') return parseJsonObject(await readStdin(ctx.io), 'stdin');
  return parseKeyValues(args, (p) => ctx.readFile(p));
}

/** The `== Secret Path ==` block the reference prints before KV v2 output. */
export function printPath(ctx: CommandContext, title: string, path: string): void {
  ctx.out(sectionHeader(title, ['']));
  ctx.out(path);
  ctx.out('');
}
