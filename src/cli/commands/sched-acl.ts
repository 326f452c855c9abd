/**
 * The scheduler's ACL commands, through the SDK's `SchedClient` (reference: the `nomad acl …`
 * CLI):
 *
 * - `cairn sched acl bootstrap [FILE]` (FILE holds the secret to use; `-` reads stdin)
 * - `cairn sched acl token self|list|read ACCESSOR|create|delete ACCESSOR`
 * - `cairn sched acl policy apply [-description=D] NAME FILE|-`, `policy list|read NAME|delete NAME`
 * - `cairn sched acl auth-method list|read NAME|create|update NAME|delete NAME`; create and
 *   update take `-name -type -token-locality -max-token-ttl -token-name-format -default
 *   -config=JSON|@file.json|-`. `update` reads the method and replaces only the fields
 *   given (so `Default` is kept unless `-default` is given).
 *
 * `read` is also reachable as `info`, the reference's name.
 *
 * @module
 */
import type { Command } from 'commander';
import type { SchedAuthMethodInput, SchedClient } from '../../sdk/index.js';
import { UsageError, flagBool, parseJsonObject } from '../args.js';
import { showing, textValue } from '../client-command.js';
import { readStdin, type App } from '../context.js';
import { collect, oneArg, optString, schedLeaf, show, subGroup, type SchedCtx, type SchedHandler } from './sched-common.js';
import { authMethodBlock, authMethodList, policyBlock, policyList, tokenBlock, tokenList } from './sched-format.js';

async function bootstrap(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length > 1) throw new UsageError('too many arguments: at most one file holding the bootstrap secret');
  const file = ctx.args[0];
  const secret = file === undefined ? undefined : (await textValue(ctx.io, 'bootstrap', file === '-' ? '-' : `@${file}`)).trim();
  const t = await ctx.client.aclBootstrap(secret || undefined);
  show(ctx, t, () => tokenBlock(t));
  return 0;
}

async function tokenCreate(ctx: SchedCtx): Promise<number> {
  const o = ctx.opts;
  const type = optString(o, 'type') ?? 'client';
  if (type !== 'client' && type !== 'management') throw new UsageError(`invalid -type "${type}": use client or management`);
  const t = await ctx.client.createAclToken({
    Name: optString(o, 'name'),
    Type: type,
    Policies: (o.policy as string[] | undefined) ?? [],
    Global: flagBool(o.global, 'global'),
    ExpirationTTL: optString(o, 'ttl'),
  });
  show(ctx, t, () => tokenBlock(t));
  return 0;
}

async function policyApply(ctx: SchedCtx): Promise<number> {
  if (ctx.args.length !== 2) throw new UsageError('this command takes two arguments: NAME and the rules FILE (- reads standard input)');
  const [name, file] = ctx.args;
  const rules = file === '-' ? await readStdin(ctx.io) : await textValue(ctx.io, 'rules', `@${file}`);
  await ctx.client.upsertAclPolicy({ Name: name, Description: optString(ctx.opts, 'description') ?? '', Rules: rules });
  show(ctx, { Name: name, Applied: true }, () => `Successfully wrote "${name}" ACL policy!`);
  return 0;
}

/** The auth-method fields given by flags (absent when not given). @throws UsageError for a bad `-type` or `-config`. */
async function methodFlags(ctx: SchedCtx): Promise<SchedAuthMethodInput> {
  const o = ctx.opts;
  const type = optString(o, 'type')?.toUpperCase();
  if (type !== undefined && type !== 'OIDC' && type !== 'JWT') throw new UsageError(`invalid -type "${o.type}": use OIDC or JWT`);
  const config = optString(o, 'config');
  return {
    Type: type,
    TokenLocality: optString(o, 'tokenLocality'),
    TokenNameFormat: optString(o, 'tokenNameFormat'),
    MaxTokenTTL: optString(o, 'maxTokenTtl'),
    Default: o.default === undefined ? undefined : flagBool(o.default, 'default'),
    Config: config === undefined ? undefined : parseJsonObject(await textValue(ctx.io, 'config', config), '-config'),
  };
}

async function methodCreate(ctx: SchedCtx): Promise<number> {
  const name = optString(ctx.opts, 'name');
  if (!name) throw new UsageError('missing required flag -name');
  const fields = await methodFlags(ctx);
  if (!fields.Type) throw new UsageError('missing required flag -type (OIDC or JWT)');
  const m = await ctx.client.createAuthMethod({ Name: name, ...fields, Default: fields.Default ?? false });
  show(ctx, m, () => authMethodBlock(m));
  return 0;
}

async function methodUpdate(ctx: SchedCtx): Promise<number> {
  const flag = optString(ctx.opts, 'name');
  if (ctx.args.length > 1 || (ctx.args.length === 0 && !flag)) throw new UsageError('this command takes one argument: the auth method NAME (or -name)');
  const name = ctx.args[0] ?? flag!;
  if (flag !== undefined && flag !== name) throw new UsageError(`-name "${flag}" does not match the argument "${name}"`);
  const fields = await methodFlags(ctx);
  const { data: m0 } = await ctx.client.readAuthMethod(name);
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as SchedAuthMethodInput;
  const m = await ctx.client.updateAuthMethod(name, {
    Type: m0.Type,
    TokenLocality: m0.TokenLocality,
    TokenNameFormat: m0.TokenNameFormat,
    MaxTokenTTL: m0.MaxTokenTTL,
    Default: m0.Default,
    Config: m0.Config ?? undefined,
    ...defined,
  });
  show(ctx, m, () => authMethodBlock(m));
  return 0;
}

/**
 * A handler that deletes the object its one argument names (`what` in the usage error), then
 * prints `{<key>: <name>, Deleted: true}` as JSON or `done(<name>)`.
 */
function deleting(o: {
  what: string;
  key: string;
  remove: (client: SchedClient, name: string) => Promise<void>;
  done: (name: string) => string;
}): SchedHandler {
  return async (ctx) => {
    const name = oneArg(ctx, o.what);
    await o.remove(ctx.client, name);
    show(ctx, { [o.key]: name, Deleted: true }, () => o.done(name));
    return 0;
  };
}

/** Adds `sched acl …` to the `sched` group. */
export function addSchedAclCommands(app: App, sched: Command): void {
  const acl = subGroup(sched, 'acl', 'scheduler ACLs: bootstrap, tokens, policies, auth methods');
  schedLeaf(
    app,
    acl
      .command('bootstrap')
      .argument('[file]', 'file holding the secret (a UUID) to use as the SecretID; - reads standard input')
      .description('create the first management token (once) and print it with its SecretID'),
    bootstrap,
  );

  const token = acl.command('token').description('ACL tokens');
  schedLeaf(
    app,
    token.command('self').description('print the token the request is made with'),
    showing((ctx) => ctx.client.aclTokenSelf(), tokenBlock),
  );
  schedLeaf(
    app,
    token.command('list').description('list tokens (management)'),
    showing(async (ctx) => (await ctx.client.listAclTokens()).data, tokenList),
  );
  schedLeaf(
    app,
    token.command('read').alias('info').argument('<accessor>', 'AccessorID').description('print a token'),
    showing(async (ctx) => (await ctx.client.readAclToken(oneArg(ctx, 'the AccessorID'))).data, tokenBlock),
  );
  schedLeaf(
    app,
    token
      .command('create')
      .description('create a token and print it with its SecretID')
      .option('--name <name>', 'name of the token')
      .option('--type <type>', 'client (default) or management')
      .option('--policy <name>', 'policy of a client token (repeatable)', collect)
      .option('--global [bool]', 'replicate the token to every region')
      .option('--ttl <duration>', 'lifetime, e.g. 1h'),
    tokenCreate,
  );
  schedLeaf(
    app,
    token.command('delete').argument('<accessor>', 'AccessorID').description('delete a token'),
    deleting({ what: 'the AccessorID', key: 'AccessorID', remove: (c, id) => c.deleteAclToken(id), done: (id) => `Token ${id} successfully deleted` }),
  );

  const policy = acl.command('policy').description('ACL policies');
  schedLeaf(
    app,
    policy
      .command('apply')
      .argument('<name>')
      .argument('<file>', 'rules file; - reads standard input')
      .option('--description <text>', 'description')
      .description('create or replace a policy'),
    policyApply,
  );
  schedLeaf(
    app,
    policy.command('list').description('list policies'),
    showing(async (ctx) => (await ctx.client.listAclPolicies()).data, policyList),
  );
  schedLeaf(
    app,
    policy.command('read').alias('info').argument('<name>').description('print a policy with its rules'),
    showing(async (ctx) => (await ctx.client.readAclPolicy(oneArg(ctx, 'the policy NAME'))).data, policyBlock),
  );
  schedLeaf(
    app,
    policy.command('delete').argument('<name>').description('delete a policy'),
    deleting({
      what: 'the policy NAME',
      key: 'Name',
      remove: (c, name) => c.deleteAclPolicy(name),
      done: (name) => `Successfully deleted "${name}" ACL policy!`,
    }),
  );

  const am = acl.command('auth-method').description('ACL auth methods (what login accepts)');
  const fields = (cmd: Command) =>
    cmd
      .option('--name <name>', 'name: letters, digits and dashes')
      .option('--type <type>', 'OIDC or JWT')
      .option('--token-locality <local|global>', 'whether login tokens are local to the region or global')
      .option('--max-token-ttl <duration>', 'lifetime of login tokens, 1m to 24h, e.g. 1h')
      .option('--token-name-format <format>', 'name of login tokens, e.g. ${auth_method_type}-${value.user}')
      .option('--default [bool]', 'the method "cairn sched login" uses when none is named')
      .option('--config <json>', 'method configuration: a JSON object, @FILE.json or - (standard input)');
  schedLeaf(
    app,
    am.command('list').description('list auth methods'),
    showing(async (ctx) => (await ctx.client.listAuthMethods()).data, authMethodList),
  );
  schedLeaf(
    app,
    am.command('read').alias('info').argument('<name>').description('print an auth method with its config (management)'),
    showing(async (ctx) => (await ctx.client.readAuthMethod(oneArg(ctx, 'the auth method NAME'))).data, authMethodBlock),
  );
  schedLeaf(app, fields(am.command('create').description('create an auth method (-name, -type required)')), methodCreate);
  schedLeaf(app, fields(am.command('update').argument('[name]').description('change an auth method: each flag given replaces that field')), methodUpdate);
  schedLeaf(
    app,
    am.command('delete').argument('<name>').description('delete an auth method'),
    deleting({
      what: 'the auth method NAME',
      key: 'Name',
      remove: (c, name) => c.deleteAuthMethod(name),
      done: (name) => `ACL auth method ${name} successfully deleted`,
    }),
  );
}
