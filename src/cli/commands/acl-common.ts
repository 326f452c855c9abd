/**
 * What every discovery-service command (`cairn acl …`, `cairn logout`) shares: the
 * reference CLI's global flags (`-http-addr`, `-token`, `-token-file`, `-namespace`,
 * `-ca-file`, `-datacenter`, `-format`) over the `MESH_*` environment, an SDK
 * `MeshClient` built from them, one-line errors, and small flag parsers.
 *
 * Token precedence: `-token`, `-token-file`, `MESH_HTTP_TOKEN`, `MESH_HTTP_TOKEN_FILE`.
 * Server errors become `Error: <the service's text> (HTTP <status>)`, exit 1; usage
 * errors exit 2.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { MeshApiError, MeshClient, type MeshNodeIdentity, type MeshServiceIdentity } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type App, type CliIo, type Format, readStdin } from '../context.js';
import { toJson } from '../format.js';

/** The global flags of discovery commands, by commander name. */
export interface MeshGlobalOpts {
  readonly httpAddr?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly namespace?: string;
  readonly caFile?: string;
  readonly datacenter?: string;
  readonly format?: string;
}

/** What a discovery command handler gets. */
export interface MeshCtx {
  readonly io: CliIo;
  readonly env: Record<string, string | undefined>;
  readonly client: MeshClient;
  readonly format: Format;
  /** The command's options (commander names). */
  readonly opts: Record<string, unknown>;
  readonly args: string[];
}

/** A discovery command's body: returns the exit code. */
export type MeshHandler = (ctx: MeshCtx) => Promise<number>;

/** Reads a file named by a flag. @throws UsageError naming the flag. */
export function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`-${flag}: cannot read "${path}": ${(err as Error).message}`);
  }
}

/** Adds the global discovery flags to `cmd` (listed under "Global options:"). */
export function addMeshGlobalOptions(cmd: Command): Command {
  const global = (flags: string, description: string) => new Option(flags, description).helpGroup('Global options:');
  return cmd
    .addOption(global('--http-addr <address>', 'address of the discovery service, http(s)://host:port or host:port (env MESH_HTTP_ADDR, default http://127.0.0.1:8500)'))
    .addOption(global('--token <secret>', 'ACL token (env MESH_HTTP_TOKEN)'))
    .addOption(global('--token-file <file>', 'file holding the ACL token (env MESH_HTTP_TOKEN_FILE)'))
    .addOption(global('--namespace <ns>', 'namespace (env MESH_NAMESPACE; enterprise switch only)'))
    .addOption(global('--ca-file <file>', 'PEM file of the CA that signed the service certificate (env MESH_CACERT)'))
    .addOption(global('--datacenter <dc>', 'datacenter to send the request to (default: the agent\'s)'))
    .addOption(global('--format <format>', 'output format: table or json'));
}

/** The output format flag. @throws UsageError for anything but `table` or `json`. */
export function meshFormat(value: unknown): Format {
  const format = String(value ?? 'table');
  if (format !== 'table' && format !== 'json') throw new UsageError(`invalid -format "${format}": use table or json`);
  return format;
}

/** A client from the global flags over the environment. @throws UsageError for a bad address or unreadable file. */
export function meshClientFor(env: Record<string, string | undefined>, opts: MeshGlobalOpts): MeshClient {
  const token = opts.token ?? (opts.tokenFile !== undefined ? readFlagFile('token-file', opts.tokenFile).trim() : undefined);
  const caCert = opts.caFile !== undefined ? readFlagFile('ca-file', opts.caFile) : undefined;
  try {
    return MeshClient.fromEnv(env, { address: opts.httpAddr, token, namespace: opts.namespace, caCert, datacenter: opts.datacenter });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Runs `body` with a client, turning service errors into one-line CLI errors and closing the client. */
export async function withMeshClient<T>(env: Record<string, string | undefined>, opts: MeshGlobalOpts, body: (client: MeshClient) => Promise<T>): Promise<T> {
  const client = meshClientFor(env, opts);
  try {
    return await body(client);
  } catch (err) {
    if (err instanceof MeshApiError) throw new Error(`${err.message} (HTTP ${err.status})`);
    throw err;
  } finally {
    await client.close();
  }
}

/** Adds the global flags to `cmd` and wires `handler` as its action. */
export function meshLeaf(app: App, cmd: Command, handler: MeshHandler): Command {
  return addMeshGlobalOptions(cmd).action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.opts() as Record<string, unknown> & MeshGlobalOpts;
    const format = meshFormat(opts.format);
    app.exitCode = await withMeshClient(app.env, opts, (client) =>
      handler({ io: app.io, env: app.env, client, format, opts, args: command.args.filter((a) => a !== '--') }),
    );
  });
}

/** Prints `value` as JSON, or the table `table()` builds (nothing when it is empty), with a final newline. */
export function show(ctx: { io: CliIo; format: Format }, value: unknown, table: () => string): void {
  if (ctx.format === 'json') return ctx.io.stdout(`${toJson(value)}\n`);
  const text = table();
  if (text !== '') ctx.io.stdout(`${text}\n`);
}

/** Accumulator for repeatable flags kept whole (`-policy-name=a -policy-name=b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A string option; `undefined` when not given. */
export function optString(opts: Record<string, unknown>, name: string): string | undefined {
  const v = opts[name];
  return v === undefined ? undefined : String(v);
}

/** A required string option. @throws UsageError naming the flag. */
export function requireOpt(opts: Record<string, unknown>, name: string, flag: string): string {
  const v = optString(opts, name);
  if (v === undefined || v === '') throw new UsageError(`missing required flag -${flag}`);
  return v;
}

/** A repeatable option's values; `undefined` when not given. */
export function optList(opts: Record<string, unknown>, name: string): string[] | undefined {
  return opts[name] as string[] | undefined;
}

/** A text flag value: `@file` reads the file, `-` reads standard input, anything else is the text. */
export async function textValue(io: CliIo, flag: string, value: string): Promise<string> {
  if (value === '-') return readStdin(io);
  if (value.startsWith('@')) return readFlagFile(flag, value.slice(1));
  return value;
}

/** `-service-identity=NAME[:DC1,DC2]` values. @throws UsageError for an empty name. */
export function parseServiceIdentities(values: readonly string[]): MeshServiceIdentity[] {
  return values.map((v) => {
    const [name, dcs] = v.split(':', 2);
    if (!name) throw new UsageError(`invalid -service-identity "${v}": use NAME or NAME:DC1,DC2`);
    const datacenters = (dcs ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    return datacenters.length > 0 ? { ServiceName: name, Datacenters: datacenters } : { ServiceName: name };
  });
}

/** `-node-identity=NAME:DC` values. @throws UsageError without both parts. */
export function parseNodeIdentities(values: readonly string[]): MeshNodeIdentity[] {
  return values.map((v) => {
    const [name, dc] = v.split(':', 2);
    if (!name || !dc) throw new UsageError(`invalid -node-identity "${v}": use NAME:DATACENTER`);
    return { NodeName: name, Datacenter: dc };
  });
}

/** Links from `-…-id` and `-…-name` values; `undefined` when neither was given (keep what is there). */
export function linksOf(ids: readonly string[] | undefined, names: readonly string[] | undefined): { ID?: string; Name?: string }[] | undefined {
  if (ids === undefined && names === undefined) return undefined;
  return [...(ids ?? []).map((ID) => ({ ID })), ...(names ?? []).map((Name) => ({ Name }))];
}
