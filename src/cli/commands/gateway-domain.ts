/**
 * Gateway domain commands, through the SDK (src/sdk/gateway.ts), in the reference CLI's
 * shape (`boundary authenticate password`, `boundary scopes create`, …):
 *
 * - `cairn gateway authenticate password -auth-method-id=ampw_… -login-name=NAME [-password=…]`
 *   prints the new auth token (the password as given, `env://VAR`, `file://PATH`, or asked
 *   for with echo off when not given, as the reference's `-password`);
 * - `cairn gateway authenticate oidc -auth-method-id=amoidc_…` prints the provider URL to
 *   open in a browser, polls until the login completes there, and prints the token the
 *   same way (Cairn never launches a browser itself, as `cairn login -method=oidc`);
 * - `-auth-method-id` defaults to `GATEWAY_AUTH_METHOD_ID`, `-login-name` to
 *   `GATEWAY_AUTHENTICATE_PASSWORD_LOGIN_NAME` (the reference's `BOUNDARY_…` variables);
 * - `cairn gateway scopes|users|roles create|read|update|delete|list` with `-scope-id`,
 *   `-id`, `-name`, `-description`, `-version` (update: the current version is read first
 *   when not given, the reference's automatic check-and-set), `-recursive`;
 * - `cairn gateway roles add-principals|set-grants|set-grant-scopes -id=… -principal=… |
 *   -grant=… | -grant-scope-id=…` (repeatable).
 *
 * `-addr` / `GATEWAY_ADDR` and `-token` / `GATEWAY_TOKEN` as the other gateway commands.
 *
 * @module
 */
import type { Command } from 'commander';
import type { GatewayClient, GatewayCollection, GatewayResource } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type App, commandGroup } from '../context.js';
import { readFileSync } from 'node:fs';
import type { GatewayAuthToken } from '../../sdk/index.js';
import { readHiddenLine } from '../prompt.js';
import { common, print, run, type CommonOpts } from './gateway.js';

interface ResourceOpts extends CommonOpts {
  id?: string;
  scopeId?: string;
  name?: string;
  description?: string;
  version?: string;
  recursive?: boolean;
  principal?: string[];
  grant?: string[];
  grantScopeId?: string[];
}

/** Collects a repeatable flag's values. */
export const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `v`, or a usage error naming `-flag`. */
export function need(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`missing -${flag}`);
  return v;
}

/** The version to send: `-version`, else the resource's current one (read first). */
export async function versionOf(client: GatewayClient, c: GatewayCollection, id: string, given: string | undefined): Promise<number> {
  if (given === undefined) return Number((await client.read(c, id)).version);
  if (!/^\d+$/.test(given)) throw new UsageError(`invalid -version "${given}": expected a positive integer`);
  return Number(given);
}

function itemText(r: GatewayResource): string {
  const lines = [`ID                 ${r.id}`];
  for (const k of [
    'scope_id',
    'type',
    'name',
    'description',
    'version',
    'principal_ids',
    'grant_strings',
    'grant_scope_ids',
    'account_ids',
    'authorized_actions',
  ]) {
    const v = r[k];
    if (v === undefined) continue;
    lines.push(`${k.padEnd(19)}${Array.isArray(v) ? v.join(', ') : String(v)}`);
  }
  return lines.join('\n') + '\n';
}

function listText(items: readonly GatewayResource[]): string {
  return items.map((r) => `${r.id}  ${r.scope_id ?? ''}  ${r.name ?? ''}`.trimEnd()).join('\n') + (items.length ? '\n' : 'No items found.\n');
}

function crud(app: App, group: Command, c: GatewayCollection, what: string): Command {
  const sub = group.command(c).description(`${what}: create, read, update, delete, list`);
  const named = (cmd: Command) => cmd.option('--name <name>', 'name').option('--description <text>', 'description');
  const fields = (o: ResourceOpts) => ({
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
  });
  named(common(sub.command('create').description(`create a ${what}`)).option('--scope-id <id>', 'the enclosing scope', 'global')).action(
    run<ResourceOpts>(app, async (a, client, o) => {
      const r = await client.create(c, { scope_id: o.scopeId, ...fields(o) });
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  common(sub.command('read').description(`read a ${what}`).option('--id <id>', 'its id')).action(
    run<ResourceOpts>(app, async (a, client, o) => {
      const r = await client.read(c, need(o.id, 'id'));
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  named(
    common(
      sub.command('update').description(`update a ${what}`).option('--id <id>', 'its id').option('--version <n>', 'its current version (default: read first)'),
    ),
  ).action(
    run<ResourceOpts>(app, async (a, client, o) => {
      const id = need(o.id, 'id');
      const r = await client.update(c, id, { version: await versionOf(client, c, id, o.version), ...fields(o) });
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  common(sub.command('delete').description(`delete a ${what}`).option('--id <id>', 'its id')).action(
    run<ResourceOpts>(app, async (a, client, o) => {
      await client.delete(c, need(o.id, 'id'));
      print(a, o, { id: o.id, deleted: true }, () => 'The delete operation completed successfully.\n');
      return 0;
    }),
  );
  common(
    sub
      .command('list')
      .description(`list ${what}s`)
      .option('--scope-id <id>', 'the enclosing scope', 'global')
      .option('--recursive', 'include the scopes below'),
  ).action(
    run<ResourceOpts>(app, async (a, client, o) => {
      const items = await client.list(c, { scope_id: o.scopeId ?? 'global', ...(o.recursive ? { recursive: 'true' } : {}) });
      print(a, o, items, () => listText(items));
      return 0;
    }),
  );
  return sub;
}

/** Adds role action `action` to `roles`: `--flag` values (repeatable) sent as `field`. */
function roleAction(
  app: App,
  roles: Command,
  { action, flag, field, description }: { action: string; flag: string; field: string; description: string },
): void {
  common(roles.command(action).description(description).option('--id <id>', 'the role id').option('--version <n>', 'its current version (default: read first)'))
    .option(`--${flag} <value>`, `${field} entry (repeatable)`, collect)
    .action(
      run<ResourceOpts & Record<string, unknown>>(app, async (a, client, o) => {
        const id = need(o.id, 'id');
        const key = flag.replace(/-([a-z])/g, (_m, ch: string) => ch.toUpperCase());
        const values = (o[key] as string[] | undefined) ?? [];
        if (values.length === 0 && !action.startsWith('set-')) throw new UsageError(`missing -${flag}`);
        const r = await client.action('roles', id, action, { version: await versionOf(client, 'roles', id, o.version), [field]: values });
        print(a, o, r, () => itemText(r));
        return 0;
      }),
    );
}

interface AuthenticateOpts extends CommonOpts {
  authMethodId?: string;
  loginName?: string;
  password?: string;
}

/** The reference's `-password` forms: `env://VAR` (that variable), `file://PATH` (that file, trailing newline dropped), else the value itself. */
function secretValue(env: Readonly<Record<string, string | undefined>>, v: string): string {
  if (v.startsWith('env://')) {
    const name = v.slice(6);
    const value = env[name];
    if (value === undefined) throw new UsageError(`-password: environment variable ${name} is not set`);
    return value;
  }
  if (v.startsWith('file://')) return readFileSync(v.slice(7), 'utf8').replace(/\r?\n$/, '');
  return v;
}

/** The reference's "Authentication information" block, with the token to use. */
function tokenText(t: GatewayAuthToken): string {
  return [
    'Authentication information:',
    `  Account ID:      ${t.account_id}`,
    `  Auth Method ID:  ${t.auth_method_id}`,
    `  Expiration Time: ${t.expiration_time}`,
    `  User ID:         ${t.user_id}`,
    `  Token:           ${t.token}`,
    '',
    `Use it with -token or: export GATEWAY_TOKEN='${t.token}'`,
    '',
  ].join('\n');
}

/** Adds the domain commands to the `gateway` group of `program`. */
export function addGatewayDomainCommands(app: App, program: Command): void {
  const group = commandGroup(program, 'gateway', 'access gateway commands');
  const authenticate = group.command('authenticate').description('log in to the gateway controller and print an auth token');
  common(authenticate.command('password').description('log in with a password auth method'))
    .option('--auth-method-id <id>', 'the password auth method (ampw_…; env GATEWAY_AUTH_METHOD_ID)')
    .option('--login-name <name>', "the account's login name (env GATEWAY_AUTHENTICATE_PASSWORD_LOGIN_NAME)")
    .option('--password <password>', 'the password, env://VAR or file://PATH (asked for when not given)')
    .action(
      run<AuthenticateOpts>(app, async (a, client, o) => {
        const am = need(o.authMethodId ?? a.env.GATEWAY_AUTH_METHOD_ID, 'auth-method-id');
        const login = need(o.loginName ?? a.env.GATEWAY_AUTHENTICATE_PASSWORD_LOGIN_NAME, 'login-name');
        const password = o.password !== undefined ? secretValue(a.env, o.password) : await readHiddenLine('Please enter the password (it will be hidden): ');
        const t = await client.authenticatePassword(am, login, password);
        print(a, o, t, () => tokenText(t));
        return 0;
      }),
    );
  common(authenticate.command('oidc').description('log in with an OIDC auth method through a browser'))
    .option('--auth-method-id <id>', 'the OIDC auth method (amoidc_…; env GATEWAY_AUTH_METHOD_ID)')
    .action(
      run<AuthenticateOpts>(app, async (a, client, o) => {
        const am = need(o.authMethodId ?? a.env.GATEWAY_AUTH_METHOD_ID, 'auth-method-id');
        const t = await client.authenticateOidc(am, {
          onAuthUrl: (url) =>
            a.io.stderr(
              `Complete the login at your OIDC provider. Open the following URL in your browser:\n\n    ${url}\n\nWaiting for the login to complete...\n`,
            ),
        });
        print(a, o, t, () => tokenText(t));
        return 0;
      }),
    );
  crud(app, group, 'scopes', 'scope');
  crud(app, group, 'users', 'user');
  const roles = crud(app, group, 'roles', 'role');
  roleAction(app, roles, {
    action: 'add-principals',
    flag: 'principal',
    field: 'principal_ids',
    description: 'add principals (users, groups, u_anon, u_auth) to a role',
  });
  roleAction(app, roles, { action: 'set-grants', flag: 'grant', field: 'grant_strings', description: 'set the grant strings of a role' });
  roleAction(app, roles, {
    action: 'set-grant-scopes',
    flag: 'grant-scope-id',
    field: 'grant_scope_ids',
    description: 'set the grant scopes of a role (this, children, descendants or scope ids)',
  });
}
