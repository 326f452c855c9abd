/**
 * Static host catalogs, hosts and host sets (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/host-catalogs,
 * `/hosts`, `/host-sets`; handlers `host_catalogs`, `hosts`, `host_sets`):
 *
 * - a host catalog (`hcst_…`, type `static`) lives in a project scope; its item carries
 *   `authorized_collection_actions` for its `hosts` and `host-sets`;
 * - a host (`hst_…`, `/v1/hosts?host_catalog_id=`) has `attributes.address`, an IP
 *   address or DNS name without a port (address.ts); its item lists the `host_set_ids`
 *   holding it (left out when none, as the reference's);
 * - a host set (`hsst_…`) holds hosts of its own catalog through
 *   `:add-hosts`/`:set-hosts`/`:remove-hosts` (`version`, `host_ids`).
 *
 * Hosts and host sets are authorised in their catalog's project, pinned to the catalog
 * (`ids=hcst_…;type=host;actions=read`). Deleting a catalog deletes its hosts and sets,
 * a host leaves its sets, a set leaves the targets using it (cascade.ts).
 *
 * A `plugin` catalog (`hcplg_…`, issue 26 scope 5; plugin-catalog.ts) has host sets
 * (`hsplg_…`) whose hosts (`hplg_…`) the leader's sync makes from a discovery service
 * (host-sync.ts): they cannot be created, changed or deleted through the API, nor put
 * into or taken out of a set; deleting a plugin set deletes the hosts no other set holds.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import { addressProblemText, parseAddress } from './address.js';
import { deleteHost, deleteHostCatalog, deleteHostSet } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { T, type HostCatalogDoc, type HostDoc, type HostSetDoc, type PluginHostCatalogDoc, type PluginHostSetDoc } from './docs.js';
import type { Caller, GatewayDomain } from './domain.js';
import { GatewayApiError } from './errors.js';
import type { Input } from './input.js';
import { newId, PREFIX, type ResourceType } from './ids.js';
import { catalogAttributes, catalogSecrets, catalogView, checkCatalogConnection, checkPlugin, CONSUL_PLUGIN, setFields } from './plugin-catalog.js';
import { may, type Kind } from './resource.js';

/** Host catalogs: in their project. */
const hostCatalogKind: Kind<HostCatalogDoc> = {
  type: 'host-catalog',
  table: T.hostCatalogs,
  idActions: ['no-op', 'read', 'update', 'delete'],
  where: (_d, c) => ({ scopeId: c.scope_id! }),
};

/** Hosts: in their catalog's project, pinned to the catalog. */
const hostKind: Kind<HostDoc> = {
  type: 'host',
  table: T.hosts,
  idActions: ['no-op', 'read', 'update', 'delete'],
  where: (_d, h) => ({ scopeId: h.scope_id!, pin: h.host_catalog_id }),
};

/** Host sets: in their catalog's project, pinned to the catalog. */
const hostSetKind: Kind<HostSetDoc> = {
  type: 'host-set',
  table: T.hostSets,
  idActions: ['no-op', 'read', 'update', 'delete', 'add-hosts', 'set-hosts', 'remove-hosts'],
  where: (_d, s) => ({ scopeId: s.scope_id!, pin: s.host_catalog_id }),
};

/** A project-level collection of `type` in scope `id` (any scope, so recursive lists from global and orgs work; creates check for a project). */
export function inProjectScope(d: GatewayDomain, type: ResourceType, id: string) {
  return d.scope(id) ? { r: { id: '', type, scopeId: id }, scopeId: id } : undefined;
}

/** Refuses a create outside a project scope, with the reference's text. */
export function requireProject(d: GatewayDomain, input: Input, scopeId: string): void {
  if (d.scope(scopeId)?.type !== 'project') input.fail('scope_id', 'This field is required to have a properly formatted project scope id.');
}

/** The `type` of a child of a catalog of type `parent`: optional, the catalog's. */
function childType(input: Input, parent: HostCatalogDoc['type'], update: boolean): void {
  const type = input.string('type');
  if (typeof type === 'string' && type !== parent)
    input.fail('type', update ? 'Cannot modify the resource type.' : "Doesn't match the parent resource's type.");
}

/** Refuses a change to what a plugin catalog's sync owns: 400 naming nothing but the reason. */
function pluginOwned(what: string): GatewayApiError {
  return new GatewayApiError('bad_request', 'InvalidArgument', `${what} of a plugin host catalog are made by its plugin's sync and cannot be changed.`);
}

/** `authorized_collection_actions` of a catalog: its hosts and host sets, the allowed of create and list. */
function catalogCollectionActions(caller: Caller, c: HostCatalogDoc): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, type] of [
    ['host-sets', 'host-set'],
    ['hosts', 'host'],
  ] as const) {
    // A plugin catalog's hosts are its sync's: they are listed, never created.
    const ops = c.type === 'plugin' && type === 'host' ? ['list'] : ['create', 'list'];
    const acts = ops.filter((a) => may(caller, { id: '', type, scopeId: c.scope_id!, pin: c.id }, a));
    if (acts.length > 0) out[path] = acts;
  }
  return out;
}

/** The `host-catalogs` collection: its routes are declared in routes.ts. */
export const hostCatalogCollection: CollectionSpec<HostCatalogDoc> = {
  path: 'host-catalogs',
  kind: hostCatalogKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inProjectScope(d, 'host-catalog', id),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    requireProject(d, input, parentId);
    const type = input.string('type');
    if (type !== 'plugin') {
      if (type !== 'static') input.fail('type', 'This is a required field and must be "static" or "plugin".');
      return { scope_id: parentId, type: 'static' };
    }
    checkPlugin(input);
    const attributes = catalogAttributes(input.object('attributes'));
    const secrets = catalogSecrets(input);
    // The discovery service is asked only about an otherwise valid request.
    if (input.isClean()) await checkCatalogConnection(input, { attributes, secrets });
    return { scope_id: parentId, type: 'plugin', plugin_id: CONSUL_PLUGIN.id, attributes, ...(secrets?.token ? { secrets } : {}) };
  },
  async update(_d, input, doc) {
    const type = input.string('type');
    if (typeof type === 'string' && type !== doc.type) input.fail('type', 'Cannot modify the resource type.');
    if (doc.type !== 'plugin') return {};
    for (const f of ['plugin_name', 'plugin_id']) if (input.has(f)) input.fail(f, "Cannot modify the catalog's plugin.");
    const sentAttributes = input.has('attributes');
    const attributes = sentAttributes ? catalogAttributes(input.object('attributes'), doc.attributes) : doc.attributes;
    const sent = catalogSecrets(input);
    const secrets = sent ?? doc.secrets;
    if (!sentAttributes && sent === undefined) return {};
    if (input.isClean()) await checkCatalogConnection(input, { attributes, secrets });
    return { attributes, secrets: secrets?.token ? secrets : undefined } as Partial<PluginHostCatalogDoc>;
  },
  newId: (doc) => newId(doc.type === 'plugin' ? PREFIX.pluginHostCatalog : PREFIX.hostCatalog),
  extra: (d, c, caller) => ({ ...(c.type === 'plugin' ? catalogView(d, c) : {}), authorized_collection_actions: catalogCollectionActions(caller, c) }),
  onDelete: (tx, doc, d) => deleteHostCatalog(tx, doc.id, d.nowIso()),
};

/** The collection of `type` in catalog `id`: the catalog's project, pinned to it. */
function inCatalog(d: GatewayDomain, type: 'host' | 'host-set', id: string) {
  const c = d.state.get<HostCatalogDoc>(T.hostCatalogs, id);
  return c ? { r: { id: '', type, scopeId: c.scope_id!, pin: c.id }, scopeId: c.scope_id! } : undefined;
}

/** The checked `attributes.address`; undefined when absent (and not required) or bad. */
function address(input: Input, required: boolean): string | undefined {
  const attrs = input.object('attributes');
  const raw = attrs.string('address', { required });
  if (typeof raw !== 'string') return undefined;
  const parsed = parseAddress(raw);
  if (parsed.problem) return (attrs.fail('address', addressProblemText(parsed.problem, 'Address for static hosts does not support a port.')), undefined);
  return parsed.address;
}

/** The `hosts` collection: its routes are declared in routes.ts. */
export const hostCollection: CollectionSpec<HostDoc> = {
  path: 'hosts',
  kind: hostKind,
  parentField: 'host_catalog_id',
  recursive: false,
  collection: (d, id) => inCatalog(d, 'host', id),
  inParent: (doc, id) => doc.host_catalog_id === id,
  async create(d, input, catalogId, scopeId) {
    if (catalogOf(d, catalogId)?.type === 'plugin') throw pluginOwned('Hosts');
    childType(input, 'static', false);
    return { scope_id: scopeId, host_catalog_id: catalogId, type: 'static', attributes: { address: address(input, true) ?? '' } };
  },
  update(_d, input, doc) {
    if (doc.type === 'plugin') throw pluginOwned('Hosts');
    childType(input, 'static', true);
    const a = address(input, false);
    return a === undefined ? {} : { attributes: { address: a } };
  },
  newId: () => newId(PREFIX.host),
  extra(d, h) {
    const ids = d.state
      .list<HostSetDoc>(T.hostSets)
      .filter((s) => s.host_ids.includes(h.id))
      .map((s) => s.id);
    return { ...(h.type === 'plugin' ? { plugin: CONSUL_PLUGIN } : {}), ...(ids.length > 0 ? { host_set_ids: ids } : {}) };
  },
  onDelete(tx, doc, d) {
    if (doc.type === 'plugin') throw pluginOwned('Hosts');
    deleteHost(tx, doc.id, d.nowIso());
  },
};

/** Catalog `id`, or undefined. */
function catalogOf(d: GatewayDomain, id: string): HostCatalogDoc | undefined {
  return d.state.get<HostCatalogDoc>(T.hostCatalogs, id);
}

/** Deletes plugin host set `set`'s hosts that no other set of its catalog holds (inside the deleting transaction). */
export function deleteUnheldPluginHosts(tx: Txn, set: PluginHostSetDoc, hostIds: readonly string[]): void {
  const others = tx.list<HostSetDoc>(T.hostSets).filter((s) => s.id !== set.id && s.host_catalog_id === set.host_catalog_id);
  for (const id of hostIds) if (!others.some((s) => s.host_ids.includes(id))) tx.delete(T.hosts, id);
}

type How = 'add' | 'set' | 'remove';

/** `host_ids` changed by `how`: every added host must be a host of the set's catalog. */
function hostsAction(how: How) {
  return (d: GatewayDomain, input: Input, doc: HostSetDoc): Partial<HostSetDoc> => {
    if (doc.type === 'plugin') throw pluginOwned("Host sets' hosts");
    const ids = input.strings('host_ids') ?? [];
    if (how !== 'set' && ids.length === 0) return (input.fail('host_ids', 'Must be non-empty.'), {});
    if (how !== 'remove') {
      for (const id of ids) {
        const h = d.state.get<HostDoc>(T.hosts, id);
        const problem = !h
          ? `Host "${id}" does not exist.`
          : h.host_catalog_id !== doc.host_catalog_id
            ? `Host "${id}" is not in the host set's catalog "${doc.host_catalog_id}".`
            : undefined;
        if (problem) return (input.fail('host_ids', problem), {});
      }
    }
    if (how === 'set') return { host_ids: [...new Set(ids)] };
    if (how === 'remove') return { host_ids: doc.host_ids.filter((x) => !ids.includes(x)) };
    return { host_ids: [...new Set([...doc.host_ids, ...ids])] };
  };
}

/** The `host-sets` collection: its routes are declared in routes.ts. */
export const hostSetCollection: CollectionSpec<HostSetDoc> = {
  path: 'host-sets',
  kind: hostSetKind,
  parentField: 'host_catalog_id',
  recursive: false,
  collection: (d, id) => inCatalog(d, 'host-set', id),
  inParent: (doc, id) => doc.host_catalog_id === id,
  async create(d, input, catalogId, scopeId) {
    const parent = catalogOf(d, catalogId)?.type ?? 'static';
    childType(input, parent, false);
    if (parent === 'static') return { scope_id: scopeId, host_catalog_id: catalogId, type: 'static', host_ids: [] };
    return { scope_id: scopeId, host_catalog_id: catalogId, type: 'plugin', host_ids: [], ...(setFields(input) as Pick<PluginHostSetDoc, 'attributes'>) };
  },
  update(_d, input, doc) {
    childType(input, doc.type, true);
    return doc.type === 'plugin' ? (setFields(input, doc) as Partial<HostSetDoc>) : {};
  },
  newId: (doc) => newId(doc.type === 'plugin' ? PREFIX.pluginHostSet : PREFIX.hostSet),
  actions: { 'add-hosts': hostsAction('add'), 'set-hosts': hostsAction('set'), 'remove-hosts': hostsAction('remove') },
  extra: (_d, s) => (s.type === 'plugin' ? { plugin: CONSUL_PLUGIN } : {}),
  onDelete(tx, doc, d) {
    deleteHostSet(tx, doc.id, d.nowIso());
    if (doc.type === 'plugin') deleteUnheldPluginHosts(tx, doc, doc.host_ids);
  },
};
