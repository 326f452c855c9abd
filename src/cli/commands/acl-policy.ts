/**
 * `cairn acl policy create|read|list|update|delete` (reference `acl policy …`). `-rules`
 * takes the rules text, `@file` or `-` (standard input). `read` and `delete` take `-id`
 * or `-name`; `update` takes `-id` and replaces only the fields given (`-name` renames).
 *
 * @module
 */
import type { Command } from 'commander';
import type { MeshPolicy } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import type { App } from '../context.js';
import { collect, meshLeaf, type MeshCtx, optList, optString, requireOpt, show, textValue } from './acl-common.js';
import { policyBlock, policyList } from './acl-format.js';

/** The policy named by `-id` or `-name`. @throws UsageError unless exactly one is given. */
async function target(ctx: MeshCtx): Promise<MeshPolicy> {
  const id = optString(ctx.opts, 'id');
  const name = optString(ctx.opts, 'name');
  if ((id === undefined) === (name === undefined)) throw new UsageError('use exactly one of -id=ID or -name=NAME');
  return id !== undefined ? ctx.client.policies.read(id) : ctx.client.policies.readByName(name as string);
}

async function rules(ctx: MeshCtx): Promise<string | undefined> {
  const value = optString(ctx.opts, 'rules');
  return value === undefined ? undefined : textValue(ctx.io, 'rules', value);
}

async function create(ctx: MeshCtx): Promise<number> {
  const p = await ctx.client.policies.create({
    Name: requireOpt(ctx.opts, 'name', 'name'),
    Description: optString(ctx.opts, 'description'),
    Rules: await rules(ctx),
    Datacenters: optList(ctx.opts, 'validDatacenter'),
  });
  show(ctx, p, () => policyBlock(p));
  return 0;
}

async function read(ctx: MeshCtx): Promise<number> {
  const p = await target(ctx);
  show(ctx, p, () => policyBlock(p));
  return 0;
}

async function list(ctx: MeshCtx): Promise<number> {
  const { items } = await ctx.client.policies.list();
  show(ctx, items, () => policyList(items));
  return 0;
}

async function update(ctx: MeshCtx): Promise<number> {
  const id = requireOpt(ctx.opts, 'id', 'id');
  const existing = await ctx.client.policies.read(id);
  const p = await ctx.client.policies.update(id, {
    Name: optString(ctx.opts, 'name') ?? existing.Name,
    Description: optString(ctx.opts, 'description') ?? existing.Description,
    Rules: (await rules(ctx)) ?? existing.Rules,
    Datacenters: optList(ctx.opts, 'validDatacenter') ?? existing.Datacenters,
  });
  show(ctx, p, () => policyBlock(p));
  return 0;
}

async function remove(ctx: MeshCtx): Promise<number> {
  const p = await target(ctx);
  await ctx.client.policies.delete(p.ID);
  show(ctx, { ID: p.ID, Deleted: true }, () => `Policy "${p.ID}" deleted successfully`);
  return 0;
}

/** Adds `policy create|read|list|update|delete` to the `acl` group. */
export function addAclPolicyCommands(app: App, acl: Command): void {
  const policy = acl.command('policy').description('manage ACL policies');
  const fields = (cmd: Command) =>
    cmd
      .option('--description <text>', 'description')
      .option('--rules <rules>', 'rules in the ACL language; @FILE reads a file, - reads standard input')
      .option('--valid-datacenter <dc>', 'datacenter the policy is valid in (repeatable; default all)', collect);
  meshLeaf(app, fields(policy.command('create').description('create a policy').option('--name <name>', 'policy name (required)')), create);
  meshLeaf(
    app,
    policy.command('read').description('print a policy with its rules').option('--id <id>', 'policy ID').option('--name <name>', 'policy name'),
    read,
  );
  meshLeaf(app, policy.command('list').description('list policies'), list);
  meshLeaf(
    app,
    fields(
      policy
        .command('update')
        .description('change a policy: each flag given replaces that field')
        .option('--id <id>', 'policy ID')
        .option('--name <name>', 'new name'),
    ),
    update,
  );
  meshLeaf(app, policy.command('delete').description('delete a policy').option('--id <id>', 'policy ID').option('--name <name>', 'policy name'), remove);
}
