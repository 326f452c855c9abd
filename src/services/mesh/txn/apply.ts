/**
 * Applies the operations of a transaction inside one state-store transaction (issue 16
 * scope 6; the reference's state store `txnKVS`, `txnNode`, `txnService`, `txnCheck` and
 * its `Txn.preCheck` / `vetKVOp` / `vetNodeTxnOp` / `vetCheckTxnOp`), through the same
 * functions as `/v1/kv` (kv-store.ts, sessions/store.ts) and `/v1/catalog` (catalog/register.ts),
 * so one rule holds whichever way a write arrives.
 *
 * An operation that cannot be done fails with an {@link OpFailure} holding the reference's
 * text (`failed to set key "k", index is stale`); the caller collects them and throws the
 * whole state transaction away when there is one, so either every operation commits or none.
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { permissionDenied, type Authorizer } from '../acl/index.js';
import { CT, memberKey, renderCheck, renderNode, renderNodeService, type CheckDoc, type NodeDoc, type ServiceDoc } from '../catalog/model.js';
import { applyDeregistration, applyRegistration, putIfChanged, writeCheck } from '../catalog/register.js';
import { casKv, deleteKv, deleteKvCas, deleteKvTree, KV, kvId, setKv, type KvDoc } from '../kv-store.js';
import { renderKv } from '../routes/kv.js';
import { acquireKv, reconcileSessions, releaseKv, ST, type LockDelayDoc } from '../sessions/store.js';
import { nsOf } from '../state.js';
import type { CheckOp, KvOp, NodeOp, ServiceOp, TxnOp } from './ops.js';

/** An operation that cannot be done: `message` is the reference's text, reported as `What`. */
export class OpFailure extends Error {}

/** One result of an operation, before rendering (a `get-tree` gives one per key). */
export type OpResult =
  | { readonly kind: 'KV'; readonly doc: KvDoc & Indexed; readonly withValue: boolean }
  | { readonly kind: 'Node'; readonly doc: NodeDoc & Indexed }
  | { readonly kind: 'Service'; readonly doc: ServiceDoc & Indexed }
  | { readonly kind: 'Check'; readonly doc: CheckDoc & Indexed };

const q = JSON.stringify;

/**
 * Why `who` may not do `op` (the reference's `Permission denied: …` text), or undefined.
 * Reads of a key, node, service or check are not refused: their results are filtered
 * ({@link visible}). `check-index` / `check-session` need `key:read` (their outcome tells
 * the key's state), `delete-tree` write on the whole prefix, other KV verbs (`check-not-exists`
 * too, as the reference) `key:write`; node operations `node:write`; service operations `service:write` on the service named
 * and on the one stored under the ID; check operations `node:write` for a node check,
 * `service:write` on its service otherwise.
 */
export function denial(read: Pick<Txn, 'get'>, authz: Authorizer, accessorId: string | undefined, op: TxnOp): string | undefined {
  const deny = (resource: 'key' | 'node' | 'service', access: 'read' | 'write', segment: string) =>
    permissionDenied(accessorId, resource, access, segment).message;
  switch (op.kind) {
    case 'KV':
      if (op.verb === 'get' || op.verb === 'get-tree') return undefined;
      if (op.verb === 'check-index' || op.verb === 'check-session') return authz.allowed('key', 'read', op.key) ? undefined : deny('key', 'read', op.key);
      if (op.verb === 'delete-tree') return authz.keyWritePrefix(op.key) ? undefined : deny('key', 'write', op.key);
      return authz.allowed('key', 'write', op.key) ? undefined : deny('key', 'write', op.key);
    case 'Node':
      if (op.verb === 'get') return undefined;
      return authz.allowed('node', 'write', op.node.Node) ? undefined : deny('node', 'write', op.node.Node);
    case 'Service': {
      if (op.verb === 'get') return undefined;
      const stored = read.get<ServiceDoc>(CT.services, memberKey(op.node, op.id))?.Service;
      for (const name of new Set([op.name, stored].filter((n): n is string => !!n))) {
        if (!authz.allowed('service', 'write', name)) return deny('service', 'write', name);
      }
      return undefined;
    }
    case 'Check': {
      if (op.verb === 'get') return undefined;
      const c = op.check;
      if (c.ServiceID === '') return authz.allowed('node', 'write', c.Node) ? undefined : deny('node', 'write', c.Node);
      const name = read.get<ServiceDoc>(CT.services, memberKey(c.Node, c.ServiceID))?.Service ?? c.ServiceName;
      return authz.allowed('service', 'write', name) ? undefined : deny('service', 'write', name);
    }
  }
}

/** Whether `who` may see result `r` (the reference's `filterACL` of transaction results). */
export function visible(authz: Authorizer, r: OpResult): boolean {
  switch (r.kind) {
    case 'KV':
      return authz.allowed('key', 'read', r.doc.Key);
    case 'Node':
      return authz.allowed('node', 'read', r.doc.Node);
    case 'Service':
      return authz.allowed('service', 'read', r.doc.Service);
    case 'Check':
      return authz.allowed('node', 'read', r.doc.Node) && (r.doc.ServiceName === '' || authz.allowed('service', 'read', r.doc.ServiceName));
  }
}

/** `r` as the reply shows it: `{KV: …}` (value only for `get` / `get-tree`), `{Node: …}`, `{Service: …}`, `{Check: …}`. */
export function renderResult(r: OpResult, enterprise: boolean | undefined): Record<string, unknown> {
  switch (r.kind) {
    case 'KV':
      return { KV: { ...renderKv(r.doc, enterprise), ...(!r.withValue && { Value: null }) } };
    case 'Node':
      return { Node: renderNode(r.doc) };
    case 'Service':
      return { Service: renderNodeService(r.doc) };
    case 'Check':
      return { Check: renderCheck(r.doc) };
  }
}

/**
 * Does `op` in `tx` (a store transaction, or a view of the state that refuses writes for a
 * transaction of reads) at `nowMs` (epoch ms), a KV operation in namespace `ns`.
 * @returns its results (none for deletes and `check-not-exists`).
 * @throws {OpFailure} with the reference's text when it cannot be done.
 */
export function applyOp(tx: Txn, op: TxnOp, ns: string, nowMs: number): OpResult[] {
  switch (op.kind) {
    case 'KV':
      return applyKv(tx, op, ns, nowMs);
    case 'Node':
      return applyNode(tx, op, nowMs);
    case 'Service':
      return applyService(tx, op, nowMs);
    case 'Check':
      return applyCheck(tx, op, nowMs);
  }
}

/** A KV operation (the reference's `txnKVS`). */
function applyKv(tx: Txn, op: KvOp, ns: string, nowMs: number): OpResult[] {
  const id = kvId(ns, op.key);
  const write = { value: op.value, flags: op.flags };
  const entry = (): KvDoc & Indexed => tx.get<KvDoc>(KV.entries, id)!;
  const written = (): OpResult[] => [{ kind: 'KV', doc: entry(), withValue: false }];
  switch (op.verb) {
    case 'set':
      return [{ kind: 'KV', doc: setKv(tx, ns, op.key, write), withValue: false }];
    case 'cas':
      if (!casKv(tx, { ns, key: op.key }, op.index, write)) throw new OpFailure(`failed to set key ${q(op.key)}, index is stale`);
      return written();
    case 'lock': {
      const delay = tx.get<LockDelayDoc>(ST.lockDelays, id);
      if (delay && delay.Until > nowMs) throw new OpFailure(`failed to lock key ${q(op.key)} due to lock delay`);
      const r = acquireKv(tx, { ns, key: op.key, session: op.session }, write, nowMs);
      if (typeof r === 'object') throw new OpFailure(r.error);
      if (!r) throw new OpFailure(`failed to lock key ${q(op.key)}, lock is already held`);
      return written();
    }
    case 'unlock': {
      const r = releaseKv(tx, { ns, key: op.key, session: op.session }, write);
      if (typeof r === 'object') throw new OpFailure(r.error);
      if (!r) throw new OpFailure(`failed to unlock key ${q(op.key)}, lock isn't held, or is held by another session`);
      return written();
    }
    case 'get': {
      const doc = tx.get<KvDoc>(KV.entries, id);
      if (!doc) throw new OpFailure(`key ${q(op.key)} doesn't exist`);
      return [{ kind: 'KV', doc, withValue: true }];
    }
    case 'get-tree':
      // tx.list, not the sorted scan: the transaction's own earlier writes must show.
      return tx
        .list<KvDoc>(KV.entries)
        .filter((d) => nsOf(d) === ns && d.Key.startsWith(op.key))
        .map((doc) => ({ kind: 'KV', doc, withValue: true }));
    case 'check-index': {
      const doc = tx.get<KvDoc>(KV.entries, id);
      if (!doc) throw new OpFailure(`failed index check for key ${q(op.key)}, key doesn't exist`);
      if (doc.ModifyIndex !== op.index) throw new OpFailure(`failed index check for key ${q(op.key)}, current modify index ${doc.ModifyIndex} != ${op.index}`);
      return [{ kind: 'KV', doc, withValue: false }];
    }
    case 'check-session': {
      const doc = tx.get<KvDoc>(KV.entries, id);
      if (!doc) throw new OpFailure(`failed session check for key ${q(op.key)}, key doesn't exist`);
      if (doc.Session !== op.session)
        throw new OpFailure(`failed session check for key ${q(op.key)}, current session ${q(doc.Session ?? '')} != ${q(op.session)}`);
      return [{ kind: 'KV', doc, withValue: false }];
    }
    case 'check-not-exists':
      if (tx.get<KvDoc>(KV.entries, id)) throw new OpFailure(`key ${q(op.key)} exists`);
      return [];
    case 'delete':
      deleteKv(tx, ns, op.key, nowMs);
      return [];
    case 'delete-tree':
      deleteKvTree(tx, ns, op.key, nowMs);
      return [];
    case 'delete-cas':
      if (!deleteKvCas(tx, { ns, key: op.key }, op.index, nowMs)) throw new OpFailure(`failed to delete key ${q(op.key)}, index is stale`);
      return [];
  }
}

/**
 * The reference's catalog check-and-set rule (`ensureNodeCASTxn` and kin): index 0 passes
 * only when nothing is stored, another index only when it is the stored `ModifyIndex`.
 */
function casPasses(existing: Indexed | undefined, index: number): boolean {
  return index === 0 ? existing === undefined : existing?.ModifyIndex === index;
}

/** Runs a catalog write, turning its 400 (`Missing node registration`, …) into the operation's failure. */
function catalogWrite<R>(fn: () => R): R {
  try {
    return fn();
  } catch (err) {
    if (err instanceof CairnError && err.status === 400) throw new OpFailure(err.message);
    throw err;
  }
}

/** A node operation (`txnNode`); a delete takes the node's services and checks and ends its sessions. */
function applyNode(tx: Txn, op: NodeOp, nowMs: number): OpResult[] {
  const name = op.node.Node;
  const existing = tx.get<NodeDoc>(CT.nodes, name);
  switch (op.verb) {
    case 'get':
      if (!existing) throw new OpFailure(`node ${q(name)} doesn't exist`);
      return [{ kind: 'Node', doc: existing }];
    case 'cas':
    case 'set': {
      if (op.verb === 'cas' && !casPasses(existing, op.index)) throw new OpFailure(`failed to set node ${q(name)}, index is stale`);
      // A node written without an ID keeps the one it has (as a registration).
      return [{ kind: 'Node', doc: putIfChanged(tx, CT.nodes, name, { ...op.node, ID: op.node.ID || existing?.ID || '' }) }];
    }
    case 'delete-cas':
    case 'delete':
      // The reference's deleteNodeCASTxn (and its service and check kin): a missing one fails too.
      if (op.verb === 'delete-cas' && (!existing || existing.ModifyIndex !== op.index)) throw new OpFailure(`failed to delete node ${q(name)}, index is stale`);
      applyDeregistration(tx, { node: name });
      reconcileSessions(tx, name, nowMs);
      return [];
  }
}

/** A service operation (`txnService`) on a registered node; the service's checks follow its name and tags. */
function applyService(tx: Txn, op: ServiceOp, nowMs: number): OpResult[] {
  const key = memberKey(op.node, op.id);
  const existing = tx.get<ServiceDoc>(CT.services, key);
  switch (op.verb) {
    case 'get':
      if (!existing) throw new OpFailure(`service ${q(op.id)} on node ${q(op.node)} doesn't exist`);
      return [{ kind: 'Service', doc: existing }];
    case 'cas':
    case 'set': {
      if (op.verb === 'cas' && !casPasses(existing, op.index)) throw new OpFailure(`failed to set service ${q(op.id)} on node ${q(op.node)}, index is stale`);
      const node = tx.get<NodeDoc>(CT.nodes, op.node);
      if (!node) throw new OpFailure('Missing node registration');
      // The node as stored, not rewritten: the registration then only writes the service and renames its checks.
      applyRegistration(tx, { node, skipNodeUpdate: true, service: op.service!, checks: [] });
      return [{ kind: 'Service', doc: tx.get<ServiceDoc>(CT.services, key)! }];
    }
    case 'delete-cas':
    case 'delete':
      if (op.verb === 'delete-cas' && (!existing || existing.ModifyIndex !== op.index))
        throw new OpFailure(`failed to delete service ${q(op.id)} on node ${q(op.node)}, index is stale`);
      applyDeregistration(tx, { node: op.node, serviceId: op.id });
      reconcileSessions(tx, op.node, nowMs);
      return [];
  }
}

/** A check operation (`txnCheck`); a check stored critical ends the sessions tied to it. */
function applyCheck(tx: Txn, op: CheckOp, nowMs: number): OpResult[] {
  const c = op.check;
  const existing = tx.get<CheckDoc>(CT.checks, memberKey(c.Node, c.CheckID));
  switch (op.verb) {
    case 'get':
      if (!existing) throw new OpFailure(`check ${q(c.CheckID)} on node ${q(c.Node)} doesn't exist`);
      return [{ kind: 'Check', doc: existing }];
    case 'cas':
    case 'set': {
      if (op.verb === 'cas' && !casPasses(existing, op.index)) throw new OpFailure(`failed to set check ${q(c.CheckID)} on node ${q(c.Node)}, index is stale`);
      const doc = catalogWrite(() => writeCheck(tx, c));
      // A check going critical ends the sessions tied to it, as a registration's would.
      reconcileSessions(tx, c.Node, nowMs);
      return [{ kind: 'Check', doc }];
    }
    case 'delete-cas':
    case 'delete':
      if (op.verb === 'delete-cas' && (!existing || existing.ModifyIndex !== op.index))
        throw new OpFailure(`failed to delete check ${q(c.CheckID)} on node ${q(c.Node)}, index is stale`);
      applyDeregistration(tx, { node: c.Node, checkId: c.CheckID });
      reconcileSessions(tx, c.Node, nowMs);
      return [];
  }
}
