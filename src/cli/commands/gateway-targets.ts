/**
 * Gateway host and target commands, through the SDK (src/sdk/gateway.ts), in the
 * reference CLI's shape (`boundary host-catalogs create static`, `boundary targets
 * create tcp`, …):
 *
 * - `cairn gateway host-catalogs create [static] -scope-id=p_… [-name] [-description]`,
 *   `read|update|delete -id=…`, `list -scope-id=… [-recursive]`;
 * - `cairn gateway hosts create [static] -host-catalog-id=hcst_… -address=HOST`,
 *   `update -id=… [-address]`, `list -host-catalog-id=…`;
 * - `cairn gateway host-sets create [static] -host-catalog-id=…`,
 *   `add-hosts|set-hosts|remove-hosts -id=… -host=hst_…` (repeatable);
 * - `cairn gateway targets create [tcp] -scope-id=p_… -name=… -default-port=N
 *   [-default-client-port] [-session-max-seconds] [-session-connection-limit]
 *   [-egress-worker-filter] [-address]`, `update`, `read`, `delete`, `list -scope-id=…
 *   [-recursive] [-filter]`, `add-host-sources|set-host-sources|remove-host-sources -id=…
 *   -host-source=hsst_…`, `add-credential-sources|set-credential-sources|
 *   remove-credential-sources -id=… -brokered-credential-source=clvlt_…`.
 *
 * Updates and actions send `-version`, else the resource's current version (read first).
 * `-addr`/`GATEWAY_ADDR`, `-token`/`GATEWAY_TOKEN` and `-format` as the other gateway
 * commands.
 *
 * @module
 */
import type { Command } from 'commander';
import type { GatewayResource, GatewayTargetCollection } from '../../sdk/index.js';
import { UsageError } from '../args.js';
import { type App, commandGroup } from '../context.js';
import { collect, need, versionOf } from './gateway-domain.js';
import { common, print, run, type CommonOpts } from './gateway.js';

interface Opts extends CommonOpts {
  id?: string;
  scopeId?: string;
  hostCatalogId?: string;
  name?: string;
  description?: string;
  version?: string;
  recursive?: boolean;
  filter?: string;
  address?: string;
  defaultPort?: string;
  defaultClientPort?: string;
  sessionMaxSeconds?: string;
  sessionConnectionLimit?: string;
  egressWorkerFilter?: string;
  host?: string[];
  hostSource?: string[];
  brokeredCredentialSource?: string[];
}

/** One collection's command family. */
interface Family {
  readonly c: GatewayTargetCollection;
  readonly what: string;
  /** The parent flag of create and list. */
  readonly parent: { readonly flag: 'scope-id' | 'host-catalog-id'; readonly field: 'scope_id' | 'host_catalog_id'; readonly key: 'scopeId' | 'hostCatalogId' };
  /** The only type (the reference's subcommand of `create`). */
  readonly type: 'static' | 'tcp';
  /** Adds the resource's own flags to create and update. */
  readonly flags?: (cmd: Command) => Command;
  /** The resource's own fields from the flags given. */
  readonly body?: (o: Opts) => Record<string, unknown>;
  /** Whether list takes `-recursive` (scope-level collections). */
  readonly recursive: boolean;
}

const SCOPE = { flag: 'scope-id', field: 'scope_id', key: 'scopeId' } as const;
const CATALOG = { flag: 'host-catalog-id', field: 'host_catalog_id', key: 'hostCatalogId' } as const;

/** A whole number from `-flag` (negative allowed for -1). */
function int(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`invalid -${flag} "${v}": expected a whole number`);
  return Number(v);
}

const FAMILIES: readonly Family[] = [
  { c: 'host-catalogs', what: 'host catalog', parent: SCOPE, type: 'static', recursive: true },
  {
    c: 'hosts',
    what: 'host',
    parent: CATALOG,
    type: 'static',
    recursive: false,
    flags: (cmd) => cmd.option('--address <host>', 'IP address or DNS name of the host, without a port'),
    body: (o) => (o.address !== undefined ? { attributes: { address: o.address } } : {}),
  },
  { c: 'host-sets', what: 'host set', parent: CATALOG, type: 'static', recursive: false },
  {
    c: 'targets',
    what: 'target',
    parent: SCOPE,
    type: 'tcp',
    recursive: true,
    flags: (cmd) =>
      cmd
        .option('--default-port <port>', 'port of the hosts the target connects to')
        .option('--default-client-port <port>', 'local port `connect` listens on by default')
        .option('--session-max-seconds <n>', 'longest session, in seconds (default 28800)')
        .option('--session-connection-limit <n>', 'connections per session, -1 = unlimited (default)')
        .option('--egress-worker-filter <expr>', 'filter expression choosing the workers that reach the hosts')
        .option('--address <host>', 'a direct address instead of host sources'),
    body: (o) => {
      const attributes: Record<string, number> = {};
      const port = int(o.defaultPort, 'default-port');
      const client = int(o.defaultClientPort, 'default-client-port');
      if (port !== undefined) attributes.default_port = port;
      if (client !== undefined) attributes.default_client_port = client;
      const out: Record<string, unknown> = {};
      if (Object.keys(attributes).length > 0) out.attributes = attributes;
      const max = int(o.sessionMaxSeconds, 'session-max-seconds');
      const limit = int(o.sessionConnectionLimit, 'session-connection-limit');
      if (max !== undefined) out.session_max_seconds = max;
      if (limit !== undefined) out.session_connection_limit = limit;
      if (o.egressWorkerFilter !== undefined) out.egress_worker_filter = o.egressWorkerFilter;
      if (o.address !== undefined) out.address = o.address;
      return out;
    },
  },
];

/** Text of one item: its fields one a line, attributes flattened, lists comma-separated. */
function itemText(r: GatewayResource): string {
  const flat: Record<string, unknown> = { ...r, ...((r.attributes as Record<string, unknown> | undefined) ?? {}) };
  const lines = [`ID                               ${r.id}`];
  const keys = [
    'scope_id',
    'host_catalog_id',
    'type',
    'name',
    'description',
    'version',
    'address',
    'default_port',
    'default_client_port',
    'session_max_seconds',
    'session_connection_limit',
    'egress_worker_filter',
    'host_ids',
    'host_set_ids',
    'host_source_ids',
    'brokered_credential_source_ids',
    'authorized_actions',
  ];
  for (const k of keys) {
    const v = flat[k];
    if (v === undefined) continue;
    lines.push(`${k.padEnd(33)}${Array.isArray(v) ? v.join(', ') : String(v)}`);
  }
  return lines.join('\n') + '\n';
}

function listText(items: readonly GatewayResource[]): string {
  return items.map((r) => `${r.id}  ${r.name ?? ''}`.trimEnd()).join('\n') + (items.length ? '\n' : 'No items found.\n');
}

const named = (cmd: Command) => cmd.option('--name <name>', 'name').option('--description <text>', 'description');
const nameFields = (o: Opts) => ({ ...(o.name !== undefined ? { name: o.name } : {}), ...(o.description !== undefined ? { description: o.description } : {}) });

/** Adds create, read, update, delete and list for `f`; returns the family's command. */
function family(app: App, group: Command, f: Family): Command {
  // commandGroup: other commands (e.g. `targets authorize-session`) may join the same group.
  const sub = commandGroup(group, f.c, `${f.what}s: create, read, update, delete, list`);
  const own = f.flags ?? ((cmd: Command) => cmd);
  own(
    named(common(sub.command('create').argument('[type]', `the ${f.what}'s type (only "${f.type}")`).description(`create a ${f.what}`))).option(
      `--${f.parent.flag} <id>`,
      `where the ${f.what} goes`,
    ),
  ).action(
    run<Opts>(app, async (a, client, o, args) => {
      if (args[0] !== undefined && args[0] !== f.type) throw new UsageError(`unknown ${f.what} type "${args[0]}": only "${f.type}"`);
      const r = await client.create(f.c, { [f.parent.field]: need(o[f.parent.key], f.parent.flag), type: f.type, ...nameFields(o), ...f.body?.(o) });
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  common(sub.command('read').description(`read a ${f.what}`).option('--id <id>', 'its id')).action(
    run<Opts>(app, async (a, client, o) => {
      const r = await client.read(f.c, need(o.id, 'id'));
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  own(
    named(
      common(sub.command('update').argument('[type]', 'ignored: the type cannot change').description(`update a ${f.what}`))
        .option('--id <id>', 'its id')
        .option('--version <n>', 'its current version (default: read first)'),
    ),
  ).action(
    run<Opts>(app, async (a, client, o) => {
      const id = need(o.id, 'id');
      const r = await client.update(f.c, id, { version: await versionOf(client, f.c, id, o.version), ...nameFields(o), ...f.body?.(o) });
      print(a, o, r, () => itemText(r));
      return 0;
    }),
  );
  common(sub.command('delete').description(`delete a ${f.what}`).option('--id <id>', 'its id')).action(
    run<Opts>(app, async (a, client, o) => {
      await client.delete(f.c, need(o.id, 'id'));
      print(a, o, { id: o.id, deleted: true }, () => 'The delete operation completed successfully.\n');
      return 0;
    }),
  );
  const list = common(
    sub
      .command('list')
      .description(`list ${f.what}s`)
      .option(`--${f.parent.flag} <id>`, `whose ${f.what}s`)
      .option('--filter <expr>', 'a filter expression over "/item/…"'),
  );
  if (f.recursive) list.option('--recursive', 'include the scopes below');
  list.action(
    run<Opts>(app, async (a, client, o) => {
      const query: Record<string, string> = { [f.parent.field]: need(o[f.parent.key], f.parent.flag) };
      if (o.recursive) query.recursive = 'true';
      if (o.filter) query.filter = o.filter;
      const items = await client.list(f.c, query);
      print(a, o, items, () => listText(items));
      return 0;
    }),
  );
  return sub;
}

/** Adds `<how>-<noun>` actions to `cmd` for collection `c`: `-flag` values (repeatable, option `key`) sent as `field`. */
function actions(
  app: App,
  cmd: Command,
  { c, noun, flag, key, field }: { c: GatewayTargetCollection; noun: string; flag: string; key: keyof Opts; field: string },
): void {
  for (const how of ['add', 'set', 'remove'] as const) {
    common(
      cmd
        .command(`${how}-${noun}`)
        .description(`${how} ${noun.replace(/-/g, ' ')}`)
        .option('--id <id>', 'the resource id')
        .option('--version <n>', 'its current version (default: read first)'),
    )
      .option(`--${flag} <id>`, `${field} entry (repeatable)`, collect)
      .action(
        run<Opts>(app, async (a, client, o) => {
          const id = need(o.id, 'id');
          const values = (o[key] as string[] | undefined) ?? [];
          if (values.length === 0 && how !== 'set') throw new UsageError(`missing -${flag}`);
          const r = await client.action(c, id, `${how}-${noun}`, { version: await versionOf(client, c, id, o.version), [field]: values });
          print(a, o, r, () => itemText(r));
          return 0;
        }),
      );
  }
}

/** Adds the host catalog, host, host set and target commands to the `gateway` group of `program`. */
export function addGatewayTargetCommands(app: App, program: Command): void {
  const group = commandGroup(program, 'gateway', 'access gateway commands');
  const [, , hostSets, targets] = FAMILIES.map((f) => family(app, group, f));
  actions(app, hostSets, { c: 'host-sets', noun: 'hosts', flag: 'host', key: 'host', field: 'host_ids' });
  actions(app, targets, { c: 'targets', noun: 'host-sources', flag: 'host-source', key: 'hostSource', field: 'host_source_ids' });
  actions(app, targets, {
    c: 'targets',
    noun: 'credential-sources',
    flag: 'brokered-credential-source',
    key: 'brokeredCredentialSource',
    field: 'brokered_credential_source_ids',
  });
}
