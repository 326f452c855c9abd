/**
 * Discovery-service login and logout (reference `consul login` / `consul logout`):
 *
 * - `cairn acl login -method=NAME -bearer-token-file=FILE [-token-sink-file=FILE] [-meta k=v …]`
 *   exchanges the bearer token (a JWT, a service-account token) for an ACL token. With
 *   `-token-sink-file` the new SecretID is written there (mode 0600) and nothing is printed;
 *   without it the token is printed, SecretID included (that is the command's purpose).
 * - `cairn acl logout` deletes the token given by `-token`/`-token-file`/`MESH_HTTP_TOKEN`,
 *   which a login must have made.
 *
 * `cairn login -bearer-token-file=…` hands over to {@link meshLogin} (commands/login.ts),
 * and `cairn logout` is `cairn acl logout`.
 *
 * @module
 */
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { UsageError, collectPair } from '../args.js';
import type { App, CliIo } from '../context.js';
import { type MeshGlobalOpts, meshFormat, meshLeaf, type MeshCtx, readFlagFile, requireOpt, show, withMeshClient } from './acl-common.js';
import { tokenBlock } from './acl-format.js';

/** Options of {@link meshLogin}: the global discovery flags and the login's own. */
export interface MeshLoginOpts extends MeshGlobalOpts {
  readonly method?: string;
  readonly bearerTokenFile?: string;
  readonly tokenSinkFile?: string;
  readonly meta?: Record<string, string>;
}

/** Writes `secret` to `path` with mode 0600, through a temporary file renamed over it. */
function writeSink(path: string, secret: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, secret, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new UsageError(`-token-sink-file: cannot write "${path}": ${(err as Error).message}`);
  }
}

/**
 * Logs in to the discovery service (`POST /v1/acl/login`) and writes or prints the token.
 * @returns 0. @throws UsageError without `-method` or `-bearer-token-file`, or when a file
 *   cannot be read or written; Error with the service's text when it refuses.
 */
export async function meshLogin(io: CliIo, env: Record<string, string | undefined>, opts: MeshLoginOpts): Promise<number> {
  const format = meshFormat(opts.format);
  const method = requireOpt(opts as Record<string, unknown>, 'method', 'method');
  const path = requireOpt(opts as Record<string, unknown>, 'bearerTokenFile', 'bearer-token-file');
  const bearer = readFlagFile('bearer-token-file', path).trim();
  if (bearer === '') throw new UsageError(`-bearer-token-file: "${path}" is empty`);
  const token = await withMeshClient(env, { ...opts, token: undefined, tokenFile: undefined }, (client) =>
    client.login({ AuthMethod: method, BearerToken: bearer, Meta: opts.meta }),
  );
  if (opts.tokenSinkFile !== undefined) writeSink(opts.tokenSinkFile, token.SecretID);
  else show({ io, format }, token, () => tokenBlock(token));
  return 0;
}

async function logout(ctx: MeshCtx): Promise<number> {
  if (!ctx.client.hasToken) throw new UsageError('no token to log out: use -token, -token-file or MESH_HTTP_TOKEN');
  await ctx.client.logout();
  return 0;
}

/** Adds `acl login`, `acl logout` and the top-level `logout` (the discovery service's). */
export function addAclLoginCommands(app: App, acl: Command, program: Command): void {
  meshLeaf(
    app,
    acl
      .command('login')
      .description('exchange a bearer token for an ACL token of the discovery service')
      .option('--method <name>', 'auth method to log in with (required)')
      .option('--bearer-token-file <file>', 'file holding the bearer token, e.g. a JWT (required)')
      .option('--token-sink-file <file>', 'write the new SecretID here (mode 0600) instead of printing the token')
      .option('--meta <key=value>', 'metadata for the new token (repeatable)', collectPair),
    (ctx) => meshLogin(ctx.io, ctx.env, ctx.opts as MeshLoginOpts),
  );
  const logoutHelp = 'delete the discovery-service token given by -token (or MESH_HTTP_TOKEN); a login must have made it';
  meshLeaf(app, acl.command('logout').description(logoutHelp), logout);
  meshLeaf(app, program.command('logout').description(`${logoutHelp} (same as "cairn acl logout")`), logout);
}
