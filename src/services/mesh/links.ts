/**
 * Input checks and output shapes shared by tokens and roles (reference/mesh.md §6.2–§6.5):
 * policy and role links given by `ID` or `Name` (stored by ID, de-duplicated), service and
 * node identities, and links rendered with their current names. Validation failures are
 * 400 with the reference's text (the reference answers 500; reference/README.md rule 3).
 *
 * @module
 */
import { badRequest } from '../../kernel/http/index.js';
import type { Txn } from '../../kernel/store/index.js';
import { nameKey, nsOf, T, type Link, type NodeIdentity, type PolicyDoc, type RoleDoc, type ServiceIdentity } from './state.js';

/** A link as a client sends it. */
interface LinkInput {
  readonly ID?: unknown;
  readonly Name?: unknown;
}

const SERVICE_NAME = /^[a-z0-9]([a-z0-9\-_]*[a-z0-9])?$/;
/** Lower-case UUID text (the reference's `uuid.ParseUUID` accepts hex of either case). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `value` as an array, or a 400 naming `field`. */
export function arrayField<T>(value: unknown, field: string): readonly T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest(`${field} must be a list`);
  return value as T[];
}

/**
 * Policy links of an object in namespace `ns` → stored `{ID}`s in input order, duplicates
 * dropped. Only policies of `ns` can be linked (the reference: "Roles may only link to
 * policies defined in the same namespace", likewise tokens).
 * @throws 400 `No such ACL policy with name "<n>"` / `with ID "<id>"`.
 */
export function policyLinks(tx: Txn, input: unknown, ns: string): Link[] {
  return links(input, 'Policies', (l) => {
    if (typeof l.ID === 'string' && l.ID !== '') {
      const p = tx.get<PolicyDoc>(T.policies, l.ID);
      if (!p || nsOf(p) !== ns) throw badRequest(`No such ACL policy with ID "${l.ID}"`);
      return l.ID;
    }
    const name = typeof l.Name === 'string' ? l.Name : '';
    const p = tx.getBy<PolicyDoc>(T.policies, 'name', nameKey(ns, name));
    if (!p) throw badRequest(`No such ACL policy with name "${name}"`);
    return p.ID;
  });
}

/**
 * Role links of a token in namespace `ns` → stored `{ID}`s (roles of `ns` only).
 * @throws 400 `No such ACL role with name "<n>"` / `with ID "<id>"`.
 */
export function roleLinks(tx: Txn, input: unknown, ns: string): Link[] {
  return links(input, 'Roles', (l) => {
    if (typeof l.ID === 'string' && l.ID !== '') {
      const r = tx.get<RoleDoc>(T.roles, l.ID);
      if (!r || nsOf(r) !== ns) throw badRequest(`No such ACL role with ID "${l.ID}"`);
      return l.ID;
    }
    const name = typeof l.Name === 'string' ? l.Name : '';
    const r = tx.getBy<RoleDoc>(T.roles, 'name', nameKey(ns, name));
    if (!r) throw badRequest(`No such ACL role with name "${name}"`);
    return r.ID;
  });
}

function links(input: unknown, field: string, idOf: (l: LinkInput) => string): Link[] {
  const seen = new Set<string>();
  const out: Link[] = [];
  for (const l of arrayField<LinkInput>(input, field)) {
    if (typeof l !== 'object' || l === null) throw badRequest(`${field} entries must be objects with an ID or a Name`);
    const id = idOf(l);
    if (!seen.has(id)) out.push({ ID: id });
    seen.add(id);
  }
  return out;
}

/**
 * Service identities, checked. `owner` is `token` or `role` (it appears in the texts);
 * `local` refuses datacenter lists, as the reference does for local tokens.
 */
export function serviceIdentities(input: unknown, owner: 'token' | 'role', local = false): ServiceIdentity[] {
  return arrayField<{ ServiceName?: unknown; Datacenters?: unknown }>(input, 'ServiceIdentities').map((s) => {
    const name = typeof s?.ServiceName === 'string' ? s.ServiceName : '';
    if (name === '') throw badRequest(`Service identity is missing the service name field on this ${owner}`);
    if (!SERVICE_NAME.test(name) || name.length > 256) {
      throw badRequest(`Service identity "${name}" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`);
    }
    const dcs = arrayField<unknown>(s.Datacenters, 'Datacenters');
    if (dcs.some((d) => typeof d !== 'string')) throw badRequest('Datacenters must be a list of strings');
    if (local && dcs.length > 0) throw badRequest(`Service identity "${name}" cannot specify a list of datacenters on a local token`);
    return dcs.length > 0 ? { ServiceName: name, Datacenters: dcs as string[] } : { ServiceName: name };
  });
}

/** Node identities, checked (name and datacenter required). */
export function nodeIdentities(input: unknown, owner: 'token' | 'role'): NodeIdentity[] {
  return arrayField<{ NodeName?: unknown; Datacenter?: unknown }>(input, 'NodeIdentities').map((n) => {
    const name = typeof n?.NodeName === 'string' ? n.NodeName : '';
    if (name === '') throw badRequest(`Node identity is missing the node name field on this ${owner}`);
    if (!SERVICE_NAME.test(name) || name.length > 256) {
      throw badRequest(`Node identity "${name}" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`);
    }
    const dc = typeof n.Datacenter === 'string' ? n.Datacenter : '';
    if (dc === '') throw badRequest(`Node identity is missing the datacenter field on this ${owner}`);
    return { NodeName: name, Datacenter: dc };
  });
}

/** Links with their current names; links to deleted objects are left out (as the reference's resolution does). */
export function renderLinks(read: { get<T>(table: string, id: string): T | undefined }, table: string, list: readonly Link[]): { ID: string; Name: string }[] {
  return list.flatMap((l) => {
    const doc = read.get<{ Name: string }>(table, l.ID);
    return doc ? [{ ID: l.ID, Name: doc.Name }] : [];
  });
}
