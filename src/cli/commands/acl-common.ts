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
import type { Command } from 'commander';
import { MeshApiError, MeshClient, type MeshNodeIdentity, type MeshServiceIdentity } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import {
  type ClientCtx,
  type ClientFamily,
  type ClientHandler,
  clientLeaf,
  clientOrUsageError,
  optString,
  readFlagFile,
  withClient,
  withHttpStatus,
} from '../client-command.js';
import { type App, type Format, globalOption, parseFormat } from '../context.js';

// The shared helpers stay reachable from here for the acl-*.ts commands.
export { collect, optString, readFlagFile, show, textValue } from '../client-command.js';

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
export type MeshCtx = ClientCtx<MeshClient>;

/** A discovery command's body: returns the exit code. */
export type MeshHandler = ClientHandler<MeshClient>;

/** Adds the global discovery flags to `cmd` (listed under "Global options:"). */
function addMeshGlobalOptions(cmd: Command): Command {
  return cmd
    .addOption(
      globalOption(
        '--http-addr <address>',
        'address of the discovery service, http(s)://host:port or host:port (env MESH_HTTP_ADDR, default http://127.0.0.1:8500)',
      ),
    )
    .addOption(globalOption('--token <secret>', 'ACL token (env MESH_HTTP_TOKEN)'))
    .addOption(globalOption('--token-file <file>', 'file holding the ACL token (env MESH_HTTP_TOKEN_FILE)'))
    .addOption(globalOption('--namespace <ns>', 'namespace (env MESH_NAMESPACE; enterprise switch only)'))
    .addOption(globalOption('--ca-file <file>', 'PEM file of the CA that signed the service certificate (env MESH_CACERT)'))
    .addOption(globalOption('--datacenter <dc>', "datacenter to send the request to (default: the agent's)"))
    .addOption(globalOption('--format <format>', 'output format: table or json'));
}

/** The output format flag. @throws UsageError for anything but `table` or `json`. */
export function meshFormat(value: unknown): Format {
  return parseFormat(value);
}

/** A client from the global flags over the environment. @throws UsageError for a bad address or unreadable file. */
function meshClientFor(env: Record<string, string | undefined>, opts: MeshGlobalOpts): MeshClient {
  const token = opts.token ?? (opts.tokenFile !== undefined ? readFlagFile('token-file', opts.tokenFile).trim() : undefined);
  const caCert = opts.caFile !== undefined ? readFlagFile('ca-file', opts.caFile) : undefined;
  return clientOrUsageError(() => MeshClient.fromEnv(env, { address: opts.httpAddr, token, namespace: opts.namespace, caCert, datacenter: opts.datacenter }));
}

/** `err` as the CLI reports it: a {@link MeshApiError} becomes `<the service's text> (HTTP <status>)`. */
function meshError(err: unknown): unknown {
  return err instanceof MeshApiError ? withHttpStatus(err) : err;
}

/** The discovery commands' family for {@link clientLeaf}. */
const MESH: ClientFamily<MeshClient, MeshGlobalOpts> = {
  addGlobalOptions: addMeshGlobalOptions,
  format: (opts) => meshFormat(opts.format),
  client: meshClientFor,
  cliError: meshError,
};

/** Runs `body` with a client, turning service errors into one-line CLI errors and closing the client. */
export async function withMeshClient<T>(env: Record<string, string | undefined>, opts: MeshGlobalOpts, body: (client: MeshClient) => Promise<T>): Promise<T> {
  return withClient(meshClientFor(env, opts), meshError, body);
}

/** Adds the global flags to `cmd` and wires `handler` as its action. */
export function meshLeaf(app: App, cmd: Command, handler: MeshHandler): Command {
  return clientLeaf(app, cmd, MESH, handler);
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

/** `-service-identity=NAME[:DC1,DC2]` values. @throws UsageError for an empty name. */
export function parseServiceIdentities(values: readonly string[]): MeshServiceIdentity[] {
  return values.map((v) => {
    const [name, dcs] = v.split(':', 2);
    if (!name) throw new UsageError(`invalid -service-identity "${v}": use NAME or NAME:DC1,DC2`);
    const datacenters = (dcs ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
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
