/**
 * `cairn acl role create|read|list|update|delete` (reference `acl role …`). `read` and
 * `delete` take `-id` or `-name`; `update` takes `-id` and replaces only what is given
 * (a list flag replaces that list; `-name` renames).
 *
 * @module
 */
import type { Command } from 'commander';
import type { MeshRole, MeshRoleInput } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import type { App } from '../context.js';
import { collect, linksOf, meshLeaf, type MeshCtx, optList, optString, parseNodeIdentities, parseServiceIdentities, requireOpt, show } from './acl-common.js';
import { roleBlock, roleList } from './acl-format.js';

/** The role named by `-id` or `-name`. @throws UsageError unless exactly one is given. */
async function target(ctx: MeshCtx): Promise<MeshRole> {
  const id = optString(ctx.opts, 'id');
  const name = optString(ctx.opts, 'name');
  if ((id === undefined) === (name === undefined)) throw new UsageError('use exactly one of -id=ID or -name=NAME');
  return id !== undefined ? ctx.client.roles.read(id) : ctx.client.roles.readByName(name as string);
}

/** The fields given by flags; those not given are absent. */
function given(o: Record<string, unknown>): Partial<MeshRoleInput> {
  const services = optList(o, 'serviceIdentity');
  const nodes = optList(o, 'nodeIdentity');
  return {
    Name: optString(o, 'name'),
    Description: optString(o, 'description'),
    Policies: linksOf(optList(o, 'policyId'), optList(o, 'policyName')),
    ServiceIdentities: services && parseServiceIdentities(services),
    NodeIdentities: nodes && parseNodeIdentities(nodes),
  };
}

async function create(ctx: MeshCtx): Promise<number> {
  const r = await ctx.client.roles.create({ ...given(ctx.opts), Name: requireOpt(ctx.opts, 'name', 'name') });
  show(ctx, r, () => roleBlock(r));
  return 0;
}

async function read(ctx: MeshCtx): Promise<number> {
  const r = await target(ctx);
  show(ctx, r, () => roleBlock(r));
  return 0;
}

async function list(ctx: MeshCtx): Promise<number> {
  const { items } = await ctx.client.roles.list();
  show(ctx, items, () => roleList(items));
  return 0;
}

async function update(ctx: MeshCtx): Promise<number> {
  const id = requireOpt(ctx.opts, 'id', 'id');
  const existing = await ctx.client.roles.read(id);
  const g = given(ctx.opts);
  const r = await ctx.client.roles.update(id, {
    Name: g.Name ?? existing.Name,
    Description: g.Description ?? existing.Description,
    Policies: g.Policies ?? existing.Policies?.map((p) => ({ ID: p.ID })),
    ServiceIdentities: g.ServiceIdentities ?? existing.ServiceIdentities,
    NodeIdentities: g.NodeIdentities ?? existing.NodeIdentities,
  });
  show(ctx, r, () => roleBlock(r));
  return 0;
}

async function remove(ctx: MeshCtx): Promise<number> {
  const r = await target(ctx);
  await ctx.client.roles.delete(r.ID);
  show(ctx, { ID: r.ID, Deleted: true }, () => `Role "${r.ID}" deleted successfully`);
  return 0;
}

/** Adds `role create|read|list|update|delete` to the `acl` group. */
export function addAclRoleCommands(app: App, acl: Command): void {
  const role = acl.command('role').description('manage ACL roles');
  const fields = (cmd: Command) =>
    cmd
      .option('--description <text>', 'description')
      .option('--policy-name <name>', 'link a policy by name (repeatable)', collect)
      .option('--policy-id <id>', 'link a policy by ID (repeatable)', collect)
      .option('--service-identity <name[:dcs]>', 'service identity, NAME or NAME:DC1,DC2 (repeatable)', collect)
      .option('--node-identity <name:dc>', 'node identity, NAME:DATACENTER (repeatable)', collect);
  meshLeaf(app, fields(role.command('create').description('create a role').option('--name <name>', 'role name (required)')), create);
  meshLeaf(app, role.command('read').description('print a role').option('--id <id>', 'role ID').option('--name <name>', 'role name'), read);
  meshLeaf(app, role.command('list').description('list roles'), list);
  meshLeaf(
    app,
    fields(
      role
        .command('update')
        .description('change a role: each flag given replaces that field, the rest is kept')
        .option('--id <id>', 'role ID')
        .option('--name <name>', 'new name'),
    ),
    update,
  );
  meshLeaf(app, role.command('delete').description('delete a role').option('--id <id>', 'role ID').option('--name <name>', 'role name'), remove);
}
