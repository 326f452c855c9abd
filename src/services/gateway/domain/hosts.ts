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
 * @module
 */
import { addressProblemText, parseAddress } from './address.js';
import { deleteHost, deleteHostCatalog, deleteHostSet } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { T, type HostCatalogDoc, type HostDoc, type HostSetDoc } from './docs.js';
import type { Caller, GatewayDomain } from './domain.js';
import type { Input } from './input.js';
import { newId, PREFIX, type ResourceType } from './ids.js';
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

/** The `type` of a child of a static catalog: optional, `static` only. */
function staticChildType(input: Input, update: boolean): void {
  const type = input.string('type');
  if (typeof type === 'string' && type !== 'static')
    input.fail('type', update ? 'Cannot modify the resource type.' : "Doesn't match the parent resource's type.");
}

/** `authorized_collection_actions` of a catalog: its hosts and host sets, the allowed of create and list. */
function catalogCollectionActions(caller: Caller, c: HostCatalogDoc): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, type] of [
    ['host-sets', 'host-set'],
    ['hosts', 'host'],
  ] as const) {
    const acts = ['create', 'list'].filter((a) => may(caller, { id: '', type, scopeId: c.scope_id!, pin: c.id }, a));
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
    if (type !== 'static') input.fail('type', 'This is a required field and must be "static".');
    return { scope_id: parentId, type: 'static' };
  },
  update(_d, input) {
    const type = input.string('type');
    if (typeof type === 'string' && type !== 'static') input.fail('type', 'Cannot modify the resource type.');
    return {};
  },
  newId: () => newId(PREFIX.hostCatalog),
  extra: (_d, c, caller) => ({ authorized_collection_actions: catalogCollectionActions(caller, c) }),
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
  async create(_d, input, catalogId, scopeId) {
    staticChildType(input, false);
    return { scope_id: scopeId, host_catalog_id: catalogId, type: 'static', attributes: { address: address(input, true) ?? '' } };
  },
  update(_d, input) {
    staticChildType(input, true);
    const a = address(input, false);
    return a === undefined ? {} : { attributes: { address: a } };
  },
  newId: () => newId(PREFIX.host),
  extra(d, h) {
    const ids = d.state
      .list<HostSetDoc>(T.hostSets)
      .filter((s) => s.host_ids.includes(h.id))
      .map((s) => s.id);
    return ids.length > 0 ? { host_set_ids: ids } : {};
  },
  onDelete: (tx, doc, d) => deleteHost(tx, doc.id, d.nowIso()),
};

type How = 'add' | 'set' | 'remove';

/** `host_ids` changed by `how`: every added host must be a host of the set's catalog. */
function hostsAction(how: How) {
  return (d: GatewayDomain, input: Input, doc: HostSetDoc): Partial<HostSetDoc> => {
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
  async create(_d, input, catalogId, scopeId) {
    staticChildType(input, false);
    return { scope_id: scopeId, host_catalog_id: catalogId, type: 'static', host_ids: [] };
  },
  update(_d, input) {
    staticChildType(input, true);
    return {};
  },
  newId: () => newId(PREFIX.hostSet),
  actions: { 'add-hosts': hostsAction('add'), 'set-hosts': hostsAction('set'), 'remove-hosts': hostsAction('remove') },
  onDelete: (tx, doc, d) => deleteHostSet(tx, doc.id, d.nowIso()),
};
