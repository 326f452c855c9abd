/**
 * `cairn login [-method=token|userpass|approle|jwt|oidc|cert] [-path=P] [-no-store] [ARGS…]`: authenticates,
 * prints the token table and keeps the token in the token helper file for later commands
 * (reference `login`; the reference CLI has no approle handler, Cairn adds one).
 *
 * Hand-over rule: with `-bearer-token-file`, `cairn login -method=NAME
 * -bearer-token-file=FILE [-token-sink-file=FILE] [-meta k=v …]` logs in to the discovery
 * service instead (reference `consul login`; same as `cairn acl login`): `-method` then
 * names a discovery auth method, and the secrets-only `-path`, `-no-store`, `-field` and
 * arguments are refused.
 *
 * @module
 */
import { type Command, Option } from 'commander';
import type { SecretAuth, SecretResponse, SecretsClient, TokenLookupData } from '../../sdk/index.js';
import { UsageError, collectPair, flagBool, parseKeyValues } from '../args.js';
import { type App, type CommandContext, leaf } from '../context.js';
import { wrapAtLength } from '../format-operator.js';
import { storeToken, tokenHelperPath } from '../token-helper.js';
import { meshLogin } from './acl-login.js';
import { viaJwt, viaOidc } from './login-oidc.js';
import { printSecret } from './read-write.js';

/** Login methods the CLI knows. */
const LOGIN_METHODS = ['token', 'userpass', 'approle', 'jwt', 'oidc', 'cert'] as const;

/**
 * The `K=V` arguments of `login` as strings. For `token`, a first argument without `=` is the
 * token itself (`cairn login s.abc`), as in the reference. `K=@file` reads the file.
 *
 * @throws UsageError for an argument that is not `K=V`.
 */
export function loginValues(method: string, args: readonly string[], readFile: (path: string) => string): Record<string, string> {
  const list = [...args];
  if (method === 'token' && list.length > 0 && !list[0].includes('=')) list[0] = `token=${list[0]}`;
  const values = parseKeyValues(list, readFile);
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** The `auth` block the reference builds for a token login from the token's lookup. */
export function authFromLookup(d: TokenLookupData): SecretAuth {
  return {
    client_token: d.id,
    accessor: d.accessor,
    policies: d.policies,
    token_policies: d.policies,
    metadata: d.meta,
    lease_duration: d.ttl,
    renewable: d.renewable,
    entity_id: d.entity_id,
    token_type: d.type,
    orphan: d.orphan,
    num_uses: d.num_uses,
  };
}

async function viaToken(ctx: CommandContext, client: SecretsClient, values: Record<string, string>): Promise<SecretResponse<unknown>> {
  const token = (values.token ?? (await ctx.promptSecret('Token (will be hidden): '))).trim();
  if (token === '') throw new UsageError('no token given');
  const res = await client.withToken(token).token.lookup();
  if (!res.data) throw new Error('token lookup returned no data');
  return {
    request_id: res.request_id,
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: null,
    wrap_info: null,
    warnings: res.warnings,
    auth: authFromLookup(res.data),
  };
}

async function viaUserpass(ctx: CommandContext, client: SecretsClient, values: Record<string, string>, mount: string): Promise<SecretResponse<unknown>> {
  const username = values.username ?? ctx.env.LOGNAME ?? ctx.env.USER;
  if (!username) throw new UsageError("'username' not supplied and neither LOGNAME nor USER is set");
  const password = values.password ?? (await ctx.promptSecret('Password (will be hidden): '));
  return client.auth.userpass(username, password, mount);
}

async function viaApprole(client: SecretsClient, values: Record<string, string>, mount: string): Promise<SecretResponse<unknown>> {
  if (!values.role_id) throw new UsageError("'role_id' must be supplied (role_id=… secret_id=…)");
  return client.auth.approle(values.role_id, values.secret_id, mount);
}

/** The discovery-service login of `cairn login -bearer-token-file=…` (see the module comment). */
function handOver(ctx: CommandContext): Promise<number> {
  const o = ctx.opts;
  const secretsOnly = [
    o.path !== undefined && '-path',
    o.noStore !== undefined && '-no-store',
    o.field !== undefined && '-field',
    ctx.args.length > 0 && 'arguments',
  ].filter(Boolean);
  if (secretsOnly.length > 0) throw new UsageError(`${secretsOnly.join(', ')} cannot be used with -bearer-token-file (a discovery-service login)`);
  return meshLogin(ctx.io, ctx.env, {
    method: o.method as string | undefined,
    bearerTokenFile: o.bearerTokenFile as string,
    tokenSinkFile: o.tokenSinkFile as string | undefined,
    meta: o.meta as Record<string, string> | undefined,
    httpAddr: o.httpAddr as string | undefined,
    caFile: o.caFile as string | undefined,
    datacenter: o.datacenter as string | undefined,
    namespace: (o.namespace ?? o.ns) as string | undefined,
    format: ctx.format,
  });
}

async function login(ctx: CommandContext): Promise<number> {
  if (ctx.opts.bearerTokenFile !== undefined) return handOver(ctx);
  const method = String(ctx.opts.method ?? 'token').replace(/^\/+|\/+$/g, '') || 'token';
  if (!(LOGIN_METHODS as readonly string[]).includes(method)) {
    throw new UsageError(
      `unknown auth method: ${method}. Use "cairn auth list" to see the enabled auth methods; the CLI logs in with ${LOGIN_METHODS.join(', ')}`,
    );
  }
  const values = loginValues(method, ctx.args, (p) => ctx.readFile(p));
  // The reference's oidc/jwt handlers also take the mount as a `mount=` argument.
  const mount = String(ctx.opts.path ?? values.mount ?? method).replace(/^\/+|\/+$/g, '') || method;
  const noStore = flagBool(ctx.opts.noStore, 'no-store');
  const client = ctx.client();
  const secret =
    method === 'token'
      ? await viaToken(ctx, client, values)
      : method === 'userpass'
        ? await viaUserpass(ctx, client, values, mount)
        : method === 'jwt'
          ? await viaJwt(client, values, mount)
          : method === 'oidc'
            ? await viaOidc(ctx, client, values, mount)
            : method === 'cert'
              ? await client.auth.cert(values.name, mount)
              : await viaApprole(client, values, mount);
  const token = secret.auth?.client_token;
  if (!token) throw new Error('the server returned no token');

  if (!noStore) {
    try {
      storeToken(ctx.env, token);
    } catch (err) {
      ctx.err(`Error storing token in ${tokenHelperPath(ctx.env)}: ${(err as Error).message}`);
      ctx.err(wrapAtLength('Authentication was successful, but the token was not persisted. The resulting token is shown below for your records.') + '\n');
      printSecret(ctx, secret);
      return 1;
    }
    if (ctx.env.SECRETS_TOKEN) {
      ctx.err(
        wrapAtLength(
          'WARNING! The SECRETS_TOKEN environment variable is set! The value of this variable will take precedence; ' +
            'if this is unwanted please unset SECRETS_TOKEN or update its value accordingly.',
        ) + '\n',
      );
    }
  } else if (ctx.opts.field === undefined) {
    ctx.err(
      wrapAtLength('The token was not stored in the token helper. Set the SECRETS_TOKEN environment variable or pass the token below with each request.') +
        '\n',
    );
  }

  if (ctx.opts.field === undefined && ctx.format === 'table') {
    ctx.out(
      noStore
        ? 'Success! You are now authenticated.\n'
        : wrapAtLength(
            'Success! You are now authenticated. The token information displayed below is already stored in the token helper. ' +
              'You do NOT need to run "cairn login" again. Future requests will automatically use this token.',
          ) + '\n',
    );
  }
  return printSecret(ctx, secret);
}

/** Adds `login` to `program`. */
export function addLoginCommand(app: App, program: Command): void {
  const noStore = new Option('--no-store [bool]', 'do not keep the token in the token helper file, only print it');
  const discovery = (flags: string, description: string) => new Option(flags, description).helpGroup('Discovery service login (with -bearer-token-file):');
  noStore.negate = false;
  leaf(
    app,
    program
      .command('login')
      .argument(
        '[args...]',
        'TOKEN for -method=token; K=V pairs (username=… password=…, role_id=… secret_id=…, role=… jwt=…, oidc: role=… port=8250 skip_browser=true, cert: name=… with -client-cert and -client-key) otherwise',
      ),
    login,
  )
    .description(
      'authenticate to the secrets service and keep the token for later commands (in ~/.cairn-token, or CAIRN_TOKEN_PATH); ' +
        'with -bearer-token-file, log in to the discovery service instead (as "cairn acl login": -method names its auth method, ' +
        '-token-sink-file receives the SecretID, else the token is printed)',
    )
    .option('--method <type>', `auth method type: ${LOGIN_METHODS.join(', ')} (default token); with -bearer-token-file, a discovery auth method name`)
    .option('--path <path>', 'where the method is enabled, below auth/ (default: the type)')
    .addOption(noStore)
    .option('--field <name>', 'print only this field (e.g. token)')
    .addOption(discovery('--bearer-token-file <file>', 'log in to the discovery service with the bearer token (e.g. a JWT) in this file'))
    .addOption(discovery('--token-sink-file <file>', "write the discovery token's SecretID here (mode 0600) instead of printing it"))
    .addOption(discovery('--meta <key=value>', 'metadata for the discovery token (repeatable)').argParser(collectPair))
    .addOption(discovery('--http-addr <address>', 'discovery service address (env MESH_HTTP_ADDR, default http://127.0.0.1:8500)'))
    .addOption(discovery('--ca-file <file>', 'PEM CA of the discovery service (env MESH_CACERT)'))
    .addOption(discovery('--datacenter <dc>', 'discovery datacenter to log in to'));
}
