/**
 * The discovery service's ACL commands, through the SDK's `MeshClient` (reference: the
 * `consul acl …` CLI):
 *
 * - `cairn acl bootstrap [FILE]` (FILE holds a BootstrapSecret UUID; `-` reads stdin)
 * - `cairn acl replication`
 * - `cairn acl token|policy|role|auth-method|binding-rule create|read|list|update|delete`
 * - `cairn acl login`, `cairn acl logout`, and the top-level `cairn logout`
 *
 * Every command takes `-http-addr`, `-token`, `-token-file`, `-namespace`, `-ca-file`,
 * `-datacenter` (else `MESH_HTTP_ADDR`, `MESH_HTTP_TOKEN`, `MESH_HTTP_TOKEN_FILE`,
 * `MESH_NAMESPACE`, `MESH_CACERT`; `MESH_HTTP_SSL_VERIFY=false`) and `-format=table|json`.
 * Exit codes: 0 ok, 1 the service refused (its text on one line) or could not be reached,
 * 2 usage error.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError } from '../args.js';
import type { App } from '../context.js';
import { addAclAuthCommands } from './acl-auth.js';
import { meshLeaf, type MeshCtx, show, textValue } from './acl-common.js';
import { replicationBlock, tokenBlock } from './acl-format.js';
import { addAclLoginCommands } from './acl-login.js';
import { addAclPolicyCommands } from './acl-policy.js';
import { addAclRoleCommands } from './acl-role.js';
import { addAclTokenCommands } from './acl-token.js';

async function bootstrap(ctx: MeshCtx): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError('too many arguments: at most one file holding the BootstrapSecret');
  const file = ctx.args[0];
  const secret = file === undefined ? undefined : (await textValue(ctx.io, 'bootstrap', file === '-' ? '-' : `@${file}`)).trim();
  const t = await ctx.client.bootstrap(secret);
  show(ctx, t, () => tokenBlock(t));
  return 0;
}

async function replication(ctx: MeshCtx): Promise<number> {
  const s = await ctx.client.replication();
  show(ctx, s, () => replicationBlock(s));
  return 0;
}

/** Adds the `acl` group and the top-level `logout` to `program`. */
export function addAclCommands(app: App, program: Command): void {
  const acl = program.command('acl').description('discovery service ACLs: bootstrap, tokens, policies, roles, auth methods, binding rules, login');
  meshLeaf(
    app,
    acl
      .command('bootstrap')
      .argument('[file]', 'file holding the BootstrapSecret (a UUID) to use as the SecretID; - reads standard input')
      .description('create the first management token (once) and print it with its SecretID'),
    bootstrap,
  );
  meshLeaf(app, acl.command('replication').description('show the ACL replication status of the datacenter'), replication);
  addAclTokenCommands(app, acl);
  addAclPolicyCommands(app, acl);
  addAclRoleCommands(app, acl);
  addAclAuthCommands(app, acl);
  addAclLoginCommands(app, acl, program);
}
