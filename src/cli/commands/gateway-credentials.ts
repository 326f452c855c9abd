/**
 * Credential commands of the gateway, through the SDK, in the reference CLI's shape
 * (`boundary credential-stores create vault -vault-address … -vault-token …`):
 *
 * - `cairn gateway credential-stores create|update vault|static`, `read|delete -id`,
 *   `list -scope-id [-recursive]`; vault flags `-vault-address`, `-vault-token`,
 *   `-vault-namespace`, `-vault-ca-cert`, `-vault-tls-server-name`,
 *   `-vault-tls-skip-verify`, `-worker-filter`;
 * - `cairn gateway credential-libraries create|update vault-generic -credential-store-id
 *   -vault-path [-vault-http-method] [-vault-http-request-body] [-credential-type]
 *   [-credential-mapping-override username_attribute=…]`, `read|delete -id`,
 *   `list -credential-store-id`;
 * - `cairn gateway credentials create|update username-password|ssh-private-key|json
 *   -credential-store-id -username -password | -private-key [-private-key-passphrase] |
 *   -object`, `read|delete -id`, `list -credential-store-id`.
 *
 * Secret values (`-vault-token`, `-password`, `-private-key`, `-private-key-passphrase`,
 * `-object`, also `-vault-ca-cert`) take `env://NAME` or `file://PATH` as the reference's
 * do, so they need not appear on a command line.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { GatewayClient, GatewayCollection, GatewayResource } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type App, commandGroup } from '../context.js';
import { common, print, run, type CommonOpts } from './gateway.js';

interface CredOpts extends CommonOpts {
  id?: string;
  scopeId?: string;
  credentialStoreId?: string;
  name?: string;
  description?: string;
  version?: string;
  recursive?: boolean;
  vaultAddress?: string;
  vaultToken?: string;
  vaultNamespace?: string;
  vaultCaCert?: string;
  vaultTlsServerName?: string;
  vaultTlsSkipVerify?: boolean;
  workerFilter?: string;
  vaultPath?: string;
  vaultHttpMethod?: string;
  vaultHttpRequestBody?: string;
  credentialType?: string;
  credentialMappingOverride?: string[];
  username?: string;
  password?: string;
  privateKey?: string;
  privateKeyPassphrase?: string;
  object?: string;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

function need(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`missing -${flag}`);
  return v;
}

/** `v`, or what `env://NAME` / `file://PATH` names. @throws UsageError for an unset variable or an unreadable file. */
function secretValue(app: App, v: string | undefined, flag: string): string | undefined {
  if (v === undefined) return undefined;
  if (v.startsWith('env://')) {
    const value = app.env[v.slice(6)];
    if (value === undefined) throw new UsageError(`-${flag}: environment variable ${v.slice(6)} is not set`);
    return value;
  }
  if (v.startsWith('file://')) {
    try {
      return readFileSync(v.slice(7), 'utf8').trim();
    } catch (err) {
      throw new UsageError(`-${flag}: cannot read ${v.slice(7)}: ${(err as Error).message}`);
    }
  }
  return v;
}

/** The fields whose value was given (undefined ones left out). */
const given = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The version to send: `-version`, else the resource's current one (read first). */
async function versionOf(client: GatewayClient, c: GatewayCollection, id: string, v: string | undefined): Promise<number> {
  if (v === undefined) return Number((await client.read(c, id)).version);
  if (!/^\d+$/.test(v)) throw new UsageError(`invalid -version "${v}": expected a positive integer`);
  return Number(v);
}

function itemText(r: GatewayResource): string {
  const lines = [`ID                     ${r.id}`];
  for (const k of ['scope_id', 'credential_store_id', 'type', 'credential_type', 'name', 'description', 'version', 'authorized_actions']) {
    const v = r[k];
    if (v !== undefined) lines.push(`${k.padEnd(23)}${Array.isArray(v) ? v.join(', ') : String(v)}`);
  }
  for (const [k, v] of Object.entries((r.attributes as Record<string, unknown> | undefined) ?? {}))
    lines.push(`  ${k.padEnd(21)}${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  for (const [k, v] of Object.entries((r.credential_mapping_overrides as Record<string, unknown> | undefined) ?? {}))
    lines.push(`  ${`mapping ${k}`.padEnd(21)}${String(v)}`);
  return lines.join('\n') + '\n';
}

function listText(items: readonly GatewayResource[]): string {
  return items.map((r) => `${r.id}  ${r.type ?? ''}  ${r.name ?? ''}`.trimEnd()).join('\n') + (items.length ? '\n' : 'No items found.\n');
}

/** `-credential-mapping-override key=value` entries as an object (`key=` clears one on update). */
function mappingOverrides(entries: readonly string[] | undefined): Record<string, string | null> | undefined {
  if (!entries?.length) return undefined;
  const out: Record<string, string | null> = {};
  for (const e of entries) {
    const i = e.indexOf('=');
    if (i <= 0) throw new UsageError(`invalid -credential-mapping-override "${e}": expected NAME=VALUE`);
    out[e.slice(0, i)] = e.slice(i + 1) || null;
  }
  return out;
}

/** What each subtype's create/update sends besides name and description. */
type Body = (app: App, o: CredOpts, create: boolean) => Record<string, unknown>;

const storeBodies: Record<string, Body> = {
  vault: (app, o, create) => ({
    ...(create ? { type: 'vault' } : {}),
    attributes: given({
      address: o.vaultAddress,
      token: secretValue(app, o.vaultToken, 'vault-token'),
      namespace: o.vaultNamespace,
      ca_cert: secretValue(app, o.vaultCaCert, 'vault-ca-cert'),
      tls_server_name: o.vaultTlsServerName,
      tls_skip_verify: o.vaultTlsSkipVerify,
      worker_filter: o.workerFilter,
    }),
  }),
  static: (_app, _o, create) => (create ? { type: 'static' } : {}),
};

const libraryBodies: Record<string, Body> = {
  'vault-generic': (_app, o, create) => ({
    ...(create ? { type: 'vault-generic' } : {}),
    ...given({ credential_type: o.credentialType, credential_mapping_overrides: mappingOverrides(o.credentialMappingOverride) }),
    attributes: given({ path: o.vaultPath, http_method: o.vaultHttpMethod, http_request_body: o.vaultHttpRequestBody }),
  }),
};

function jsonObject(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError('invalid -object: expected a JSON object');
  }
}

const credentialBodies: Record<string, Body> = {
  'username-password': (app, o, create) => ({
    ...(create ? { type: 'username_password' } : {}),
    attributes: given({ username: o.username, password: secretValue(app, o.password, 'password') }),
  }),
  'ssh-private-key': (app, o, create) => ({
    ...(create ? { type: 'ssh_private_key' } : {}),
    attributes: given({
      username: o.username,
      private_key: secretValue(app, o.privateKey, 'private-key'),
      private_key_passphrase: secretValue(app, o.privateKeyPassphrase, 'private-key-passphrase'),
    }),
  }),
  json: (app, o, create) => ({ ...(create ? { type: 'json' } : {}), attributes: given({ object: jsonObject(secretValue(app, o.object, 'object')) }) }),
};

/** Options every subtype of `c` may take (commander needs them declared). */
function subtypeOptions(cmd: Command, c: GatewayCollection): Command {
  if (c === 'credential-stores') {
    return cmd
      .option('--vault-address <url>', 'address of the Cairn secrets service')
      .option('--vault-token <token>', 'a periodic, renewable, orphan token (env://NAME or file://PATH accepted)')
      .option('--vault-namespace <ns>', 'namespace at the secrets service')
      .option('--vault-ca-cert <pem>', 'PEM of the CA of the secrets service (file://PATH accepted)')
      .option('--vault-tls-server-name <name>', 'name checked in the server certificate')
      .option('--vault-tls-skip-verify', 'do not verify the server certificate')
      .option('--worker-filter <expr>', 'bexpr over workers');
  }
  if (c === 'credential-libraries') {
    return cmd
      .option('--vault-path <path>', 'path read from the secrets service, e.g. secret/data/db')
      .option('--vault-http-method <method>', 'GET (default) or POST')
      .option('--vault-http-request-body <json>', 'body of a POST')
      .option('--credential-type <type>', 'username_password or ssh_private_key')
      .option('--credential-mapping-override <name=value>', 'e.g. username_attribute=user (repeatable; name= clears)', collect);
  }
  return cmd
    .option('--username <name>', 'user name')
    .option('--password <password>', 'password (env://NAME or file://PATH accepted)')
    .option('--private-key <pem>', 'private key (file://PATH or env://NAME accepted)')
    .option('--private-key-passphrase <text>', 'passphrase of the private key')
    .option('--object <json>', 'JSON object (file://PATH or env://NAME accepted)');
}

/** One credential collection `c` (`what` in help texts), its bodies per type and the flag naming its parent. */
interface CrudSpec {
  readonly c: GatewayCollection;
  readonly what: string;
  readonly bodies: Record<string, Body>;
  readonly parentFlag: 'scope-id' | 'credential-store-id';
}

function crud(app: App, group: Command, { c, what, bodies, parentFlag }: CrudSpec): void {
  const sub = group.command(c).description(`${what}s: create, read, update, delete, list`);
  const parentKey = parentFlag === 'scope-id' ? 'scopeId' : 'credentialStoreId';
  const parentField = parentFlag === 'scope-id' ? 'scope_id' : 'credential_store_id';
  const named = (cmd: Command) => cmd.option('--name <name>', 'name').option('--description <text>', 'description');
  const fields = (o: CredOpts) => given({ name: o.name, description: o.description });
  const create = sub.command('create').description(`create a ${what}`);
  const update = sub.command('update').description(`update a ${what}`);
  for (const [subtype, body] of Object.entries(bodies)) {
    subtypeOptions(named(common(create.command(subtype).description(`create a ${subtype} ${what}`))).option(`--${parentFlag} <id>`, 'where it goes'), c).action(
      run<CredOpts>(app, async (a, client, o) => {
        const r = await client.create(c, { [parentField]: need(o[parentKey], parentFlag), ...fields(o), ...body(a, o, true) });
        print(a, o, r, () => itemText(r));
        return 0;
      }),
    );
    subtypeOptions(
      named(common(update.command(subtype).description(`update a ${subtype} ${what}`)))
        .option('--id <id>', 'its id')
        .option('--version <n>', 'its current version (default: read first)'),
      c,
    ).action(
      run<CredOpts>(app, async (a, client, o) => {
        const id = need(o.id, 'id');
        const b = body(a, o, false);
        if (b.attributes && Object.keys(b.attributes).length === 0) delete b.attributes;
        const r = await client.update(c, id, { version: await versionOf(client, c, id, o.version), ...fields(o), ...b });
        print(a, o, r, () => itemText(r));
        return 0;
      }),
    );
  }
  common(sub.command('read').description(`read a ${what}`).option('--id <id>', 'its id')).action(
    run<CredOpts>(app, async (a, client, o) => {
      const r = await client.read(c, need(o.id, 'id'));
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  common(sub.command('delete').description(`delete a ${what}`).option('--id <id>', 'its id')).action(
    run<CredOpts>(app, async (a, client, o) => {
      await client.delete(c, need(o.id, 'id'));
      print(a, o, { id: o.id, deleted: true }, () => 'The delete operation completed successfully.\n');
      return 0;
    }),
  );
  const list = common(sub.command('list').description(`list ${what}s`).option(`--${parentFlag} <id>`, 'whose to list'));
  if (parentFlag === 'scope-id') list.option('--recursive', 'include the scopes below');
  list.action(
    run<CredOpts>(app, async (a, client, o) => {
      const items = await client.list(c, { [parentField]: need(o[parentKey], parentFlag), ...(o.recursive ? { recursive: 'true' } : {}) });
      print(a, o, items, () => listText(items));
      return 0;
    }),
  );
}

/** Adds `credential-stores`, `credential-libraries` and `credentials` to the `gateway` group of `program`. */
export function addGatewayCredentialCommands(app: App, program: Command): void {
  const group = commandGroup(program, 'gateway', 'access gateway commands');
  crud(app, group, { c: 'credential-stores', what: 'credential store', bodies: storeBodies, parentFlag: 'scope-id' });
  crud(app, group, { c: 'credential-libraries', what: 'credential library', bodies: libraryBodies, parentFlag: 'credential-store-id' });
  crud(app, group, { c: 'credentials', what: 'credential', bodies: credentialBodies, parentFlag: 'credential-store-id' });
}
