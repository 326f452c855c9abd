/**
 * `cairn acl auth-method …` and `cairn acl binding-rule …` (reference `acl auth-method`,
 * `acl binding-rule`). `-config` takes a JSON object, `@file.json` or `-` (standard input).
 * `update` keeps every field not given; unlike the reference CLI, `binding-rule update`
 * keeps the rule's `BindType` when `-bind-type` is omitted (reference/mesh.md defect 9).
 *
 * @module
 */
import type { Command } from 'commander';
import { parseJsonObject } from '../args.js';
import type { App } from '../context.js';
import { meshLeaf, type MeshCtx, optString, requireOpt, show, textValue } from './acl-common.js';
import { authMethodBlock, authMethodList, bindingRuleBlock, blocks } from './acl-format.js';

async function configOf(ctx: MeshCtx): Promise<Record<string, unknown> | undefined> {
  const value = optString(ctx.opts, 'config');
  return value === undefined ? undefined : parseJsonObject(await textValue(ctx.io, 'config', value), '-config');
}

async function createMethod(ctx: MeshCtx): Promise<number> {
  const o = ctx.opts;
  const m = await ctx.client.authMethods.create({
    Name: requireOpt(o, 'name', 'name'),
    Type: requireOpt(o, 'type', 'type'),
    DisplayName: optString(o, 'displayName'),
    Description: optString(o, 'description'),
    MaxTokenTTL: optString(o, 'maxTokenTtl'),
    TokenLocality: optString(o, 'tokenLocality'),
    Config: await configOf(ctx),
  });
  show(ctx, m, () => authMethodBlock(m));
  return 0;
}

async function updateMethod(ctx: MeshCtx): Promise<number> {
  const o = ctx.opts;
  const name = requireOpt(o, 'name', 'name');
  const m0 = await ctx.client.authMethods.read(name);
  const m = await ctx.client.authMethods.update(name, {
    Type: m0.Type,
    DisplayName: optString(o, 'displayName') ?? m0.DisplayName,
    Description: optString(o, 'description') ?? m0.Description,
    MaxTokenTTL: optString(o, 'maxTokenTtl') ?? m0.MaxTokenTTL,
    TokenLocality: optString(o, 'tokenLocality') ?? m0.TokenLocality,
    Config: (await configOf(ctx)) ?? m0.Config,
  });
  show(ctx, m, () => authMethodBlock(m));
  return 0;
}

async function createRule(ctx: MeshCtx): Promise<number> {
  const o = ctx.opts;
  const r = await ctx.client.bindingRules.create({
    AuthMethod: requireOpt(o, 'method', 'method'),
    Description: optString(o, 'description'),
    Selector: optString(o, 'selector'),
    BindType: optString(o, 'bindType') ?? 'service',
    BindName: requireOpt(o, 'bindName', 'bind-name'),
  });
  show(ctx, r, () => bindingRuleBlock(r));
  return 0;
}

async function updateRule(ctx: MeshCtx): Promise<number> {
  const o = ctx.opts;
  const id = requireOpt(o, 'id', 'id');
  const r0 = await ctx.client.bindingRules.read(id);
  const r = await ctx.client.bindingRules.update(id, {
    Description: optString(o, 'description') ?? r0.Description,
    Selector: optString(o, 'selector') ?? r0.Selector,
    BindType: optString(o, 'bindType') ?? r0.BindType,
    BindName: optString(o, 'bindName') ?? r0.BindName,
  });
  show(ctx, r, () => bindingRuleBlock(r));
  return 0;
}

/** Adds `auth-method …` and `binding-rule …` to the `acl` group. */
export function addAclAuthCommands(app: App, acl: Command): void {
  const am = acl.command('auth-method').description('manage auth methods (what login accepts)');
  const fields = (cmd: Command) =>
    cmd
      .option('--display-name <text>', 'display name')
      .option('--description <text>', 'description')
      .option('--config <json>', 'method configuration: a JSON object, @FILE.json or - (standard input)')
      .option('--max-token-ttl <duration>', 'lifetime of login tokens, e.g. 10m')
      .option('--token-locality <local|global>', 'whether login tokens are local (default) or global');
  meshLeaf(
    app,
    fields(
      am
        .command('create')
        .description('create an auth method')
        .option('--type <type>', 'jwt, kubernetes or oidc (required)')
        .option('--name <name>', 'name (required)'),
    ),
    createMethod,
  );
  meshLeaf(app, am.command('read').description('print an auth method with its config').option('--name <name>', 'name'), async (ctx) => {
    const m = await ctx.client.authMethods.read(requireOpt(ctx.opts, 'name', 'name'));
    show(ctx, m, () => authMethodBlock(m));
    return 0;
  });
  meshLeaf(app, am.command('list').description('list auth methods'), async (ctx) => {
    const { items } = await ctx.client.authMethods.list();
    show(ctx, items, () => authMethodList(items));
    return 0;
  });
  meshLeaf(
    app,
    fields(am.command('update').description('change an auth method: each flag given replaces that field').option('--name <name>', 'name')),
    updateMethod,
  );
  meshLeaf(app, am.command('delete').description('delete an auth method, its binding rules and its tokens').option('--name <name>', 'name'), async (ctx) => {
    const name = requireOpt(ctx.opts, 'name', 'name');
    await ctx.client.authMethods.delete(name);
    show(ctx, { Name: name, Deleted: true }, () => `Auth-method "${name}" deleted successfully`);
    return 0;
  });

  const br = acl.command('binding-rule').description('manage binding rules (what a login token gets)');
  const ruleFields = (cmd: Command) =>
    cmd
      .option('--description <text>', 'description')
      .option('--selector <expr>', 'filter expression over the login identity, e.g. value.user == "alice"')
      .option('--bind-type <type>', 'service, node, role or policy (create: default service)')
      .option('--bind-name <template>', 'name to bind, may use ${…} identity variables');
  meshLeaf(app, ruleFields(br.command('create').description('create a binding rule').option('--method <name>', 'auth method (required)')), createRule);
  meshLeaf(app, br.command('read').description('print a binding rule').option('--id <id>', 'rule ID'), async (ctx) => {
    const r = await ctx.client.bindingRules.read(requireOpt(ctx.opts, 'id', 'id'));
    show(ctx, r, () => bindingRuleBlock(r));
    return 0;
  });
  meshLeaf(app, br.command('list').description('list binding rules').option('--method <name>', 'only those of this auth method'), async (ctx) => {
    const { items } = await ctx.client.bindingRules.list({ authMethod: optString(ctx.opts, 'method') });
    show(ctx, items, () => blocks(items.map(bindingRuleBlock)));
    return 0;
  });
  meshLeaf(
    app,
    ruleFields(br.command('update').description('change a binding rule: each flag given replaces that field').option('--id <id>', 'rule ID')),
    updateRule,
  );
  meshLeaf(app, br.command('delete').description('delete a binding rule').option('--id <id>', 'rule ID'), async (ctx) => {
    const id = requireOpt(ctx.opts, 'id', 'id');
    await ctx.client.bindingRules.delete(id);
    show(ctx, { ID: id, Deleted: true }, () => `Binding rule "${id}" deleted successfully`);
    return 0;
  });
}
