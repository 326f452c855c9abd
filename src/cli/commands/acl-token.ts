/**
 * `cairn acl token create|read|list|update|delete` (reference `acl token …`). Only
 * `create` and `read` show SecretIDs; `list` and `update` print `<hidden>` in their place,
 * in both formats. `update` keeps what is not given: a list flag (`-policy-name`,
 * `-policy-id`, `-role-name`, `-role-id`, `-service-identity`, `-node-identity`)
 * replaces that list of the token, `-description` its description.
 *
 * @module
 */
import { type Command, Option } from 'commander';
import type { MeshToken, MeshTokenInput } from '../../sdk/index.js';
import { flagBool, UsageError } from '../args.js';
import type { App } from '../context.js';
import { collect, linksOf, meshLeaf, type MeshCtx, optList, optString, parseNodeIdentities, parseServiceIdentities, requireOpt, show } from './acl-common.js';
import { blocks, tokenBlock } from './acl-format.js';

/** The token with its SecretID replaced by the service's hidden marker. */
const hidden = (t: MeshToken): MeshToken => ({ ...t, SecretID: '<hidden>' });

/** The links and identities given by flags; a list not given is absent. */
function linkInput(o: Record<string, unknown>): MeshTokenInput {
  const services = optList(o, 'serviceIdentity');
  const nodes = optList(o, 'nodeIdentity');
  return {
    Policies: linksOf(optList(o, 'policyId'), optList(o, 'policyName')),
    Roles: linksOf(optList(o, 'roleId'), optList(o, 'roleName')),
    ServiceIdentities: services && parseServiceIdentities(services),
    NodeIdentities: nodes && parseNodeIdentities(nodes),
  };
}

async function create(ctx: MeshCtx): Promise<number> {
  const o = ctx.opts;
  const t = await ctx.client.tokens.create({
    ...linkInput(o),
    Description: optString(o, 'description'),
    Local: flagBool(o.local, 'local'),
    ExpirationTTL: optString(o, 'expiresTtl'),
    AccessorID: optString(o, 'accessor'),
    SecretID: optString(o, 'secret'),
  });
  show(ctx, t, () => tokenBlock(t));
  return 0;
}

async function read(ctx: MeshCtx): Promise<number> {
  const self = flagBool(ctx.opts.self, 'self');
  const id = optString(ctx.opts, 'id');
  if (self === (id !== undefined)) throw new UsageError('use exactly one of -id=ACCESSOR_ID or -self');
  const t = id === undefined ? await ctx.client.tokens.readSelf() : await ctx.client.tokens.read(id);
  show(ctx, t, () => tokenBlock(t));
  return 0;
}

async function list(ctx: MeshCtx): Promise<number> {
  const items = (await ctx.client.tokens.list()).items.map(hidden);
  show(ctx, items, () => blocks(items.map((t) => tokenBlock(t))));
  return 0;
}

async function update(ctx: MeshCtx): Promise<number> {
  const id = requireOpt(ctx.opts, 'id', 'id');
  const existing = await ctx.client.tokens.read(id);
  const given = linkInput(ctx.opts);
  const t = hidden(
    await ctx.client.tokens.update(id, {
      Description: optString(ctx.opts, 'description') ?? existing.Description,
      Policies: given.Policies ?? existing.Policies?.map((p) => ({ ID: p.ID })),
      Roles: given.Roles ?? existing.Roles?.map((r) => ({ ID: r.ID })),
      ServiceIdentities: given.ServiceIdentities ?? existing.ServiceIdentities,
      NodeIdentities: given.NodeIdentities ?? existing.NodeIdentities,
    }),
  );
  show(ctx, t, () => `Token updated successfully.\n${tokenBlock(t)}`);
  return 0;
}

async function remove(ctx: MeshCtx): Promise<number> {
  const id = requireOpt(ctx.opts, 'id', 'id');
  await ctx.client.tokens.delete(id);
  show(ctx, { AccessorID: id, Deleted: true }, () => `Token "${id}" deleted successfully`);
  return 0;
}

function linkFlags(cmd: Command): Command {
  return cmd
    .option('--description <text>', 'description')
    .option('--policy-name <name>', 'link a policy by name (repeatable)', collect)
    .option('--policy-id <id>', 'link a policy by ID (repeatable)', collect)
    .option('--role-name <name>', 'link a role by name (repeatable)', collect)
    .option('--role-id <id>', 'link a role by ID (repeatable)', collect)
    .option('--service-identity <name[:dcs]>', 'service identity, NAME or NAME:DC1,DC2 (repeatable)', collect)
    .option('--node-identity <name:dc>', 'node identity, NAME:DATACENTER (repeatable)', collect);
}

/** Adds `token create|read|list|update|delete` to the `acl` group. */
export function addAclTokenCommands(app: App, acl: Command): void {
  const token = acl.command('token').description('manage ACL tokens');
  meshLeaf(
    app,
    linkFlags(token.command('create').description('create a token and print it with its SecretID'))
      .addOption(new Option('--local [bool]', 'a token of this datacenter only (not replicated)'))
      .option('--expires-ttl <duration>', 'lifetime, a duration such as 1h (at least 1m)')
      .option('--accessor <uuid>', 'choose the AccessorID')
      .option('--secret <uuid>', 'choose the SecretID'),
    create,
  );
  meshLeaf(
    app,
    token
      .command('read')
      .description('print a token with its SecretID')
      .option('--id <accessor>', 'AccessorID of the token')
      .addOption(new Option('--self [bool]', 'read the token the request is made with')),
    read,
  );
  meshLeaf(app, token.command('list').description('list tokens (SecretIDs hidden)'), list);
  meshLeaf(
    app,
    linkFlags(
      token
        .command('update')
        .description('change a token: each flag given replaces that field, the rest is kept')
        .option('--id <accessor>', 'AccessorID of the token'),
    ),
    update,
  );
  meshLeaf(app, token.command('delete').description('delete a token').option('--id <accessor>', 'AccessorID of the token'), remove);
}
