/**
 * Catalog writes (reference/mesh-catalog.md "Catalog"; the reference's `Catalog.Register`,
 * `Catalog.Deregister`, `vetRegisterWithACL`, `vetDeregisterWithACL` and the state store's
 * `ensureRegistrationTxn`): parsing a registration, checking it against the caller's
 * ACLs, and applying it in one transaction.
 *
 * A write that changes nothing stores nothing, so the anti-entropy sync re-posting the
 * same registration does not wake blocking queries.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import type { Authorizer } from '../acl/index.js';
import { bool, duration, int, object, str, stringMap, strings, type Input } from './fields.js';
import { CT, memberKey, nodePrefix, STATUSES, type CheckDefinition, type CheckDoc, type CheckStatus, type NodeDoc, type ServiceDoc } from './model.js';

/** A registration, checked and normalised. Checks carry no service name/tags yet (filled from the service when applied). */
export interface Registration {
  readonly node: NodeDoc;
  readonly skipNodeUpdate: boolean;
  readonly service?: ServiceDoc;
  readonly checks: readonly CheckDoc[];
}

/** What a deregistration removes: the node with everything on it, or one service (with its checks), or one check. */
export interface Deregistration {
  readonly node: string;
  readonly serviceId?: string;
  readonly checkId?: string;
}

/** `Status for checks must …` (the reference's agent text, used for every bad check status). */
const BAD_STATUS = "Status for checks must 'passing', 'warning', 'critical'";

/** A check status, `fallback` when absent. @throws 400 {@link BAD_STATUS}. */
export function checkStatus(v: unknown, fallback: CheckStatus): CheckStatus {
  if (v === undefined || v === null || v === '') return fallback;
  if (!STATUSES.includes(v as CheckStatus)) throw badRequest(BAD_STATUS);
  return v as CheckStatus;
}

/** `Weights` (default `{Passing: 1, Warning: 1}`, as the reference). */
function weights(v: unknown, field: string): ServiceDoc['Weights'] {
  const w = object(v, field);
  return { Passing: int(w?.Passing, `${field}.Passing`, 1), Warning: int(w?.Warning, `${field}.Warning`, 1) };
}

/**
 * A service body (`Service` of a catalog registration; the agent's service definition
 * uses the same reader with `Name`) on `node`. `ID` defaults to the name.
 * @throws 400 naming the bad field; `Must provide service name with ID` when the name is missing.
 */
export function parseService(s: Input, node: string, nameField: 'Service' | 'Name', prefix: string): ServiceDoc {
  const name = str(s[nameField], `${prefix}${nameField}`);
  const id = str(s.ID, `${prefix}ID`) || name;
  if (name === '') throw badRequest(nameField === 'Name' ? 'Missing service name' : 'Must provide service name with ID');
  return {
    Node: node,
    ID: id,
    Service: name,
    Tags: strings(s.Tags, `${prefix}Tags`),
    Address: str(s.Address, `${prefix}Address`),
    TaggedAddresses: taggedServiceAddresses(s.TaggedAddresses, `${prefix}TaggedAddresses`),
    Meta: stringMap(s.Meta, `${prefix}Meta`) ?? {},
    Port: int(s.Port, `${prefix}Port`),
    Weights: weights(s.Weights, `${prefix}Weights`),
    EnableTagOverride: bool(s.EnableTagOverride, `${prefix}EnableTagOverride`),
  };
}

/** A service's `TaggedAddresses` (`{lan: {Address, Port}}` in the reference; kept as given when they are maps of strings). */
function taggedServiceAddresses(v: unknown, field: string): Record<string, string> | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${field} must be an object`);
  return v as Record<string, string>;
}

/** A check definition's runnable part, durations kept as the Go strings the client sent. */
function parseDefinition(d: Input | undefined, prefix: string): CheckDefinition {
  if (!d) return {};
  const out: Record<string, unknown> = {};
  for (const k of ['HTTP', 'Method', 'Body', 'TCP'] as const) if (d[k] !== undefined && d[k] !== null) out[k] = str(d[k], `${prefix}${k}`);
  for (const k of ['Interval', 'Timeout', 'TTL', 'DeregisterCriticalServiceAfter'] as const) {
    if (d[k] === undefined || d[k] === null || d[k] === '') continue;
    duration(d[k], `${prefix}${k}`);
    out[k] = typeof d[k] === 'number' ? `${Number(d[k]) / 1e6}ms` : d[k];
  }
  if (d.TLSSkipVerify !== undefined) out.TLSSkipVerify = bool(d.TLSSkipVerify, `${prefix}TLSSkipVerify`);
  if (d.Header !== undefined && d.Header !== null) out.Header = headerMap(d.Header, `${prefix}Header`);
  return out as CheckDefinition;
}

/** `Header`: a map of header name → list of values. @throws 400 naming the field. */
export function headerMap(v: unknown, field: string): Record<string, string[]> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`${field} must be a map of string lists`);
  return Object.fromEntries(Object.entries(v).map(([k, vals]) => [k, strings(vals, `${field}.${k}`)]));
}

/**
 * A catalog check body on `node` (`PUT /catalog/register`, transactions' `Check` operations).
 * `CheckID` defaults to `Name`; a new check is `critical` unless `Status` says.
 * @throws 400 naming the bad field (`<prefix><field>`), `Missing check ID`, or a check node other than `node`.
 */
export function parseCatalogCheck(c: Input, node: string, prefix: string): CheckDoc {
  const checkNode = str(c.Node, `${prefix}Node`) || node;
  if (checkNode !== node) throw badRequest(`Check node name ${checkNode} doesn't match ${node}`);
  const name = str(c.Name, `${prefix}Name`);
  const id = str(c.CheckID, `${prefix}CheckID`) || name;
  if (id === '') throw badRequest('Missing check ID');
  const definition = parseDefinition(object(c.Definition, `${prefix}Definition`), `${prefix}Definition.`);
  return {
    Node: node,
    CheckID: id,
    Name: name,
    Status: checkStatus(c.Status, 'critical'),
    Notes: str(c.Notes, `${prefix}Notes`),
    Output: str(c.Output, `${prefix}Output`),
    ServiceID: str(c.ServiceID, `${prefix}ServiceID`),
    ServiceName: '',
    ServiceTags: [],
    Type: str(c.Type, `${prefix}Type`),
    Interval: str(c.Interval, `${prefix}Interval`, definition.Interval ?? ''),
    Timeout: str(c.Timeout, `${prefix}Timeout`, definition.Timeout ?? ''),
    Definition: definition,
  };
}

/**
 * Parses a `PUT /catalog/register` body in datacenter `datacenter`.
 * @throws 400 `Must provide node`, `Must provide address if SkipNodeUpdate is not set`,
 *   or a field's type error; `Datacenter` naming another datacenter is forwarded before this.
 */
export function parseRegistration(input: Input, datacenter: string): Registration {
  const node = str(input.Node, 'Node');
  if (node === '') throw badRequest('Must provide node');
  const skipNodeUpdate = bool(input.SkipNodeUpdate, 'SkipNodeUpdate');
  const address = str(input.Address, 'Address');
  if (address === '' && !skipNodeUpdate) throw badRequest('Must provide address if SkipNodeUpdate is not set');
  const svc = object(input.Service, 'Service');
  const checks: CheckDoc[] = [];
  const one = object(input.Check, 'Check');
  if (one) checks.push(parseCatalogCheck(one, node, 'Check.'));
  if (input.Checks !== undefined && input.Checks !== null && !Array.isArray(input.Checks)) throw badRequest('Checks must be a list');
  ((input.Checks as unknown[] | undefined) ?? []).forEach((c, i) => checks.push(parseCatalogCheck(object(c, `Checks[${i}]`) ?? {}, node, `Checks[${i}].`)));
  return {
    node: {
      ID: str(input.ID, 'ID'),
      Node: node,
      Address: address,
      Datacenter: datacenter,
      TaggedAddresses: stringMap(input.TaggedAddresses, 'TaggedAddresses') ?? null,
      Meta: stringMap(input.NodeMeta, 'NodeMeta') ?? null,
    },
    skipNodeUpdate,
    service: svc && parseService(svc, node, 'Service', 'Service.'),
    checks,
  };
}

/** A denial naming the permission (built by the caller, which knows the accessor). */
export type Deny = (resource: 'node' | 'service', segment: string) => Error;

/** Whether writing `reg` would change its node (the reference's `ChangesNode`). */
function changesNode(reg: Registration, existing: NodeDoc | undefined): boolean {
  if (!existing) return true;
  if (reg.skipNodeUpdate) return false;
  return !same(reg.node, existing);
}

/**
 * The reference's `vetRegisterWithACL`: `node:write` when the node is new or changes, and
 * for node checks; `service:write` on the service (and on the service an existing ID
 * names), and on the service of a check for another service of the node.
 * @throws `deny(...)` (403) or 400 `Unknown service ID '<id>' for check ID '<id>'`.
 */
export function vetRegistration(read: Pick<Txn, 'get'>, authz: Authorizer, reg: Registration, deny: Deny): void {
  const node = reg.node.Node;
  const existing = read.get<NodeDoc>(CT.nodes, node);
  if (changesNode(reg, existing) && !authz.allowed('node', 'write', node)) throw deny('node', node);
  if (reg.service) {
    if (!authz.allowed('service', 'write', reg.service.Service)) throw deny('service', reg.service.Service);
    const prior = read.get<ServiceDoc>(CT.services, memberKey(node, reg.service.ID));
    if (prior && !authz.allowed('service', 'write', prior.Service)) throw deny('service', prior.Service);
  }
  for (const c of reg.checks) {
    if (c.ServiceID === '') {
      if (!authz.allowed('node', 'write', node)) throw deny('node', node);
      continue;
    }
    if (reg.service?.ID === c.ServiceID) continue;
    const other = read.get<ServiceDoc>(CT.services, memberKey(node, c.ServiceID));
    if (!other) throw badRequest(`Unknown service ID '${c.ServiceID}' for check ID '${c.CheckID}'`);
    if (!authz.allowed('service', 'write', other.Service)) throw deny('service', other.Service);
  }
}

/**
 * The reference's `vetDeregisterWithACL`: `node:write` allows everything; otherwise
 * `service:write` on the service removed (or on the service of the check removed); a
 * node check or the whole node needs `node:write`.
 * @throws `deny(...)` (403); 400 `Unknown service ID …` / `Unknown check ID …` when it is not there.
 */
export function vetDeregistration(read: Pick<Txn, 'get'>, authz: Authorizer, d: Deregistration, deny: Deny): void {
  if (authz.allowed('node', 'write', d.node)) return;
  if (d.serviceId) {
    const s = read.get<ServiceDoc>(CT.services, memberKey(d.node, d.serviceId));
    if (!s) throw badRequest(`Unknown service ID '${d.serviceId}' for service '${d.serviceId}'`);
    if (!authz.allowed('service', 'write', s.Service)) throw deny('service', s.Service);
  } else if (d.checkId) {
    const c = read.get<CheckDoc>(CT.checks, memberKey(d.node, d.checkId));
    if (!c) throw badRequest(`Unknown check ID '${d.checkId}' for check '${d.checkId}'`);
    if (c.ServiceID === '' || !authz.allowed('service', 'write', c.ServiceName))
      throw deny(c.ServiceID === '' ? 'node' : 'service', c.ServiceID === '' ? d.node : c.ServiceName);
  } else {
    throw deny('node', d.node);
  }
}

/** True when `a` and `b` hold the same fields (store indexes aside), whatever their key order. */
export function same(a: object, b: object): boolean {
  const strip = (o: object) => {
    const { CreateIndex: _c, ModifyIndex: _m, ...rest } = o as Partial<Indexed> & Record<string, unknown>;
    return canonical(rest);
  };
  return strip(a) === strip(b);
}

/** JSON text of `v` with the keys of every object sorted. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Stores `doc` unless the stored one already equals it; returns the stored document. */
export function putIfChanged<D extends object>(tx: Txn, table: string, id: string, doc: D): D & Indexed {
  const existing = tx.get<D>(table, id);
  if (existing && same(existing, doc)) return existing;
  return tx.put(table, id, doc);
}

/**
 * Applies `reg` in `tx` (the reference's `ensureRegistrationTxn`): the node (unless
 * `SkipNodeUpdate` and it exists), the service (its checks take its new name and tags),
 * then the checks, each filled with its service's name and tags.
 * @throws 400 `Missing node registration` / `Missing service registration`.
 */
export function applyRegistration(tx: Txn, reg: Registration): void {
  const node = reg.node.Node;
  const existing = tx.get<NodeDoc>(CT.nodes, node);
  if (!existing || !reg.skipNodeUpdate) {
    // A node registered without an ID keeps the one it has.
    putIfChanged(tx, CT.nodes, node, { ...reg.node, ID: reg.node.ID || existing?.ID || '' });
  }
  if (reg.service) {
    const s = reg.service;
    putIfChanged(tx, CT.services, memberKey(node, s.ID), s);
    for (const c of checksOf(tx, node)) {
      if (c.ServiceID === s.ID) putIfChanged(tx, CT.checks, memberKey(node, c.CheckID), { ...stripIndexes(c), ServiceName: s.Service, ServiceTags: s.Tags });
    }
  }
  for (const c of reg.checks) writeCheck(tx, c);
}

/** Stores check `c` (its service's name and tags filled in). @throws 400 when its node or service is not registered. */
export function writeCheck(tx: Txn, c: CheckDoc): CheckDoc & Indexed {
  if (!tx.get<NodeDoc>(CT.nodes, c.Node)) throw badRequest('Missing node registration');
  let filled = c;
  if (c.ServiceID !== '') {
    const s = tx.get<ServiceDoc>(CT.services, memberKey(c.Node, c.ServiceID));
    if (!s) throw badRequest('Missing service registration');
    filled = { ...c, ServiceName: s.Service, ServiceTags: s.Tags };
  }
  return putIfChanged(tx, CT.checks, memberKey(c.Node, c.CheckID), filled);
}

/** Applies `d` in `tx`: the node with all its services and checks, or one service with its checks, and/or one check. Absent things are no error. */
export function applyDeregistration(tx: Txn, d: Deregistration): void {
  if (!d.serviceId && !d.checkId) {
    for (const s of servicesOf(tx, d.node)) tx.delete(CT.services, memberKey(d.node, s.ID));
    for (const c of checksOf(tx, d.node)) tx.delete(CT.checks, memberKey(d.node, c.CheckID));
    tx.delete(CT.nodes, d.node);
    return;
  }
  if (d.serviceId) {
    tx.delete(CT.services, memberKey(d.node, d.serviceId));
    for (const c of checksOf(tx, d.node)) if (c.ServiceID === d.serviceId) tx.delete(CT.checks, memberKey(d.node, c.CheckID));
  }
  if (d.checkId) tx.delete(CT.checks, memberKey(d.node, d.checkId));
}

/**
 * The services of `node` in `tx`, in id order: read from the node's id range, so a
 * registration costs the same in a catalog of ten or ten thousand instances (a node
 * named `<node>/…` shares the range, hence the filter).
 */
export function servicesOf(tx: Pick<Txn, 'listPrefix'>, node: string): (ServiceDoc & Indexed)[] {
  return tx.listPrefix<ServiceDoc>(CT.services, nodePrefix(node)).filter((s) => s.Node === node);
}

/** The checks of `node` in `tx`, in id order (its id range, as {@link servicesOf}). */
export function checksOf(tx: Pick<Txn, 'listPrefix'>, node: string): (CheckDoc & Indexed)[] {
  return tx.listPrefix<CheckDoc>(CT.checks, nodePrefix(node)).filter((c) => c.Node === node);
}

/** `d` without its store indexes. */
export function stripIndexes<D extends object>(d: D & Partial<Indexed>): D {
  const { CreateIndex: _c, ModifyIndex: _m, ...rest } = d;
  return rest as D;
}
