/**
 * The operations of a `PUT /v1/txn` body (issue 16 scope 6; reference/mesh-catalog.md
 * "Transactions"; the reference's `api.TxnOps` and its HTTP endpoint's `convertOps`),
 * parsed and checked before anything is read or written:
 *
 * - `{KV: {Verb, Key, Value (base64), Flags, Index, Session, Namespace}}`;
 * - `{Node: {Verb, Node: {ID, Node, Address, Datacenter, TaggedAddresses, Meta, ModifyIndex}}}`;
 * - `{Service: {Verb, Node, Service: {ID, Service, Tags, Address, Meta, Port, Weights, …, ModifyIndex}}}`;
 * - `{Check: {Verb, Check: {Node, CheckID, Name, Status, ServiceID, Definition, …, ModifyIndex}}}`.
 *
 * Every shape error is a 400 naming the operation and field (`[2].KV.Verb …`); a value past
 * `limits.kv_max_value_size` is the reference's 413.
 *
 * @module
 */
import { badRequest, CairnError } from '../../../kernel/http/index.js';
import { int, object, str, stringMap, type Input } from '../catalog/fields.js';
import type { CheckDoc, NodeDoc, ServiceDoc } from '../catalog/model.js';
import { parseCatalogCheck, parseService } from '../catalog/register.js';
import { checkKey } from '../routes/kv.js';

/** The reference's limit on operations in one transaction (`maxTxnOps`: 128 in current releases, 64 in older ones). */
export const MAX_TXN_OPS = 128;

/** KV verbs that only read (a transaction of reads only is served like a read). */
const KV_READ_VERBS = ['get', 'get-tree', 'check-index', 'check-session', 'check-not-exists'] as const;
/** KV verbs that write. */
const KV_WRITE_VERBS = ['set', 'cas', 'lock', 'unlock', 'delete', 'delete-tree', 'delete-cas'] as const;
/** Verbs of node, service and check operations. */
const CATALOG_VERBS = ['get', 'set', 'cas', 'delete', 'delete-cas'] as const;

/** A KV verb. */
type KvVerb = (typeof KV_READ_VERBS)[number] | (typeof KV_WRITE_VERBS)[number];
/** A node, service or check verb. */
type CatalogVerb = (typeof CATALOG_VERBS)[number];

/** A KV operation. */
export interface KvOp {
  readonly kind: 'KV';
  readonly verb: KvVerb;
  readonly key: string;
  /** base64, null when empty. */
  readonly value: string | null;
  readonly flags: number;
  /** `Index`: the `ModifyIndex` a `cas`, `check-index` or `delete-cas` expects. */
  readonly index: number;
  readonly session: string;
  /** `Namespace` as given (enterprise switch), undefined when absent. */
  readonly namespace?: string;
}

/** A node operation; `node` is complete for `set`/`cas`, only `Node` matters otherwise. */
export interface NodeOp {
  readonly kind: 'Node';
  readonly verb: CatalogVerb;
  readonly node: NodeDoc;
  /** `Node.ModifyIndex`, for `cas` / `delete-cas`. */
  readonly index: number;
}

/** A service operation on `node`: `service` for `set`/`cas`; `id` (and `name` when given) for every verb. */
export interface ServiceOp {
  readonly kind: 'Service';
  readonly verb: CatalogVerb;
  readonly node: string;
  readonly id: string;
  /** `Service.Service`, `''` when not given (get / delete). */
  readonly name: string;
  readonly service?: ServiceDoc;
  readonly index: number;
}

/** A check operation; `check` is complete for `set`/`cas`. */
export interface CheckOp {
  readonly kind: 'Check';
  readonly verb: CatalogVerb;
  readonly check: CheckDoc;
  readonly index: number;
}

/** One operation of a transaction. */
export type TxnOp = KvOp | NodeOp | ServiceOp | CheckOp;

/** True when `op` writes nothing. */
export function isRead(op: TxnOp): boolean {
  return op.kind === 'KV' ? (KV_READ_VERBS as readonly string[]).includes(op.verb) : op.verb === 'get';
}

/** `v` as one of `verbs`. @throws 400 `<field> must be one of …`. */
function verbOf<V extends string>(v: unknown, verbs: readonly V[], field: string): V {
  const verb = str(v, field);
  if (!(verbs as readonly string[]).includes(verb)) throw badRequest(`${field} must be one of ${verbs.join(', ')}${verb === '' ? '' : `, not "${verb}"`}`);
  return verb as V;
}

/** An unsigned whole number (`Flags`, `Index`, `ModifyIndex`), 0 when absent. @throws 400 naming the field. */
function uint(v: unknown, field: string): number {
  const n = int(v, field);
  if (n < 0 || !Number.isSafeInteger(n)) throw badRequest(`${field} must be an unsigned integer up to ${Number.MAX_SAFE_INTEGER}`);
  return n;
}

/** The name of the single operation field of `o`. @throws 400 unless exactly one of KV, Node, Service, Check is set. */
function kindOf(o: Input, at: string): TxnOp['kind'] {
  const kinds = (['KV', 'Node', 'Service', 'Check'] as const).filter((k) => o[k] !== undefined && o[k] !== null);
  if (kinds.length !== 1) throw badRequest(`${at} must hold exactly one of KV, Node, Service, Check`);
  return kinds[0]!;
}

/** Checks a key the way `PUT /v1/kv/<key>` does, naming the field. @throws 400. */
function keyOf(v: unknown, field: string, emptyOk: boolean): string {
  const key = str(v, field);
  try {
    checkKey(key, emptyOk);
  } catch (err) {
    throw badRequest(`${field}: ${(err as Error).message}`);
  }
  return key;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A base64 `Value` (null when absent or empty).
 * @throws 400 when it is not base64; 413 `Value for key "<k>" is too large (<n> > <max> bytes)` (the reference's text).
 */
function valueOf(v: unknown, field: string, key: string, maxValueSize: number): string | null {
  const text = str(v, field);
  if (text === '') return null;
  if (!BASE64.test(text)) throw badRequest(`${field} must be base64`);
  const size = Buffer.byteLength(text, 'base64');
  if (size > maxValueSize) throw new CairnError('payload_too_large', `Value for key ${JSON.stringify(key)} is too large (${size} > ${maxValueSize} bytes)`);
  return text;
}

/** Runs a shared parser (catalog/register.ts), giving its texts that do not name a field the operation's place (`[1].Service.Service: Must provide …`). */
function placed<R>(where: string, parse: () => R): R {
  try {
    return parse();
  } catch (err) {
    if (err instanceof CairnError && err.status === 400 && !err.message.startsWith('[')) throw badRequest(`${where}: ${err.message}`);
    throw err;
  }
}

/** `{KV: …}`: a key checked as `/v1/kv` checks it, a value within `maxValueSize` bytes. */
function parseKv(o: Input, at: string, maxValueSize: number): KvOp {
  const verb = verbOf(o.Verb, [...KV_WRITE_VERBS, ...KV_READ_VERBS], `${at}.Verb`);
  const key = keyOf(o.Key, `${at}.Key`, verb === 'get-tree' || verb === 'delete-tree');
  const session = str(o.Session, `${at}.Session`);
  if ((verb === 'lock' || verb === 'unlock' || verb === 'check-session') && session === '') throw badRequest(`${at}.Session is required for verb ${verb}`);
  const namespace = o.Namespace === undefined || o.Namespace === null ? undefined : str(o.Namespace, `${at}.Namespace`);
  return {
    kind: 'KV',
    verb,
    key,
    value: valueOf(o.Value, `${at}.Value`, key, maxValueSize),
    flags: uint(o.Flags, `${at}.Flags`),
    index: uint(o.Index, `${at}.Index`),
    session,
    ...(namespace !== undefined && namespace !== '' && { namespace }),
  };
}

/** `{Node: {Verb, Node: {…}}}`; the node's `Datacenter` defaults to this one. */
function parseNode(o: Input, at: string, datacenter: string): NodeOp {
  const verb = verbOf(o.Verb, CATALOG_VERBS, `${at}.Verb`);
  const n = object(o.Node, `${at}.Node`) ?? {};
  const name = str(n.Node, `${at}.Node.Node`);
  if (name === '') throw badRequest(`${at}.Node.Node: Must provide node`);
  const address = str(n.Address, `${at}.Node.Address`);
  if ((verb === 'set' || verb === 'cas') && address === '') throw badRequest(`${at}.Node.Address: Must provide address`);
  return {
    kind: 'Node',
    verb,
    index: uint(n.ModifyIndex, `${at}.Node.ModifyIndex`),
    node: {
      ID: str(n.ID, `${at}.Node.ID`),
      Node: name,
      Address: address,
      Datacenter: str(n.Datacenter, `${at}.Node.Datacenter`) || datacenter,
      TaggedAddresses: stringMap(n.TaggedAddresses, `${at}.Node.TaggedAddresses`) ?? null,
      Meta: stringMap(n.Meta, `${at}.Node.Meta`) ?? null,
    },
  };
}

/** `{Service: {Verb, Node, Service: {…}}}`: a whole service for `set` / `cas` (catalog/register.ts `parseService`), its ID otherwise. */
function parseServiceOp(o: Input, at: string): ServiceOp {
  const verb = verbOf(o.Verb, CATALOG_VERBS, `${at}.Verb`);
  const node = str(o.Node, `${at}.Node`);
  if (node === '') throw badRequest(`${at}.Node: Must provide node`);
  const s = object(o.Service, `${at}.Service`) ?? {};
  const index = uint(s.ModifyIndex, `${at}.Service.ModifyIndex`);
  if (verb === 'set' || verb === 'cas') {
    const service = placed(`${at}.Service`, () => parseService(s, node, 'Service', `${at}.Service.`));
    return { kind: 'Service', verb, node, index, id: service.ID, name: service.Service, service };
  }
  // get / delete need the ID only (the name stands for it when that is all there is, as for registrations).
  const name = str(s.Service, `${at}.Service.Service`);
  const id = str(s.ID, `${at}.Service.ID`) || name;
  if (id === '') throw badRequest(`${at}.Service.ID: Must provide service ID`);
  return { kind: 'Service', verb, node, index, id, name };
}

/** `{Check: {Verb, Check: {…}}}`, read as a catalog registration's check. */
function parseCheckOp(o: Input, at: string): CheckOp {
  const verb = verbOf(o.Verb, CATALOG_VERBS, `${at}.Verb`);
  const c = object(o.Check, `${at}.Check`) ?? {};
  const node = str(c.Node, `${at}.Check.Node`);
  if (node === '') throw badRequest(`${at}.Check.Node: Must provide node`);
  const check = placed(`${at}.Check`, () => parseCatalogCheck(c, node, `${at}.Check.`));
  // The reference keeps a check's ServiceName for the ACL check: the stored service's name wins when there is one (apply.ts).
  return {
    kind: 'Check',
    verb,
    index: uint(c.ModifyIndex, `${at}.Check.ModifyIndex`),
    check: { ...check, ServiceName: str(c.ServiceName, `${at}.Check.ServiceName`) },
  };
}

/** Limits and defaults the parse needs. */
export interface ParseLimits {
  /** `limits.kv_max_value_size`, bytes. */
  readonly maxValueSize: number;
  /** This agent's datacenter (a node's default `Datacenter`). */
  readonly datacenter: string;
}

/**
 * The operations of a decoded body.
 * @throws 400 `Failed to parse body: …` when it is not a list; 413 `Transaction contains too
 *   many operations (<n> > 128)`; 400 naming the operation and field of a bad one (`[1].KV.Key …`).
 */
export function parseTxnOps(body: unknown, limits: ParseLimits): TxnOp[] {
  if (!Array.isArray(body)) throw badRequest('Failed to parse body: the body must be a JSON list of operations');
  if (body.length > MAX_TXN_OPS) throw new CairnError('payload_too_large', `Transaction contains too many operations (${body.length} > ${MAX_TXN_OPS})`);
  return body.map((raw, i) => {
    const at = `[${i}]`;
    const o = object(raw, at) ?? {};
    const kind = kindOf(o, at);
    const inner = object(o[kind], `${at}.${kind}`) ?? {};
    switch (kind) {
      case 'KV':
        return parseKv(inner, `${at}.KV`, limits.maxValueSize);
      case 'Node':
        return parseNode(inner, `${at}.Node`, limits.datacenter);
      case 'Service':
        return parseServiceOp(inner, `${at}.Service`);
      case 'Check':
        return parseCheckOp(inner, `${at}.Check`);
    }
  });
}
