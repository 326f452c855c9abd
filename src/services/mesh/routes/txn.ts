/**
 * `PUT /v1/txn` (issue 16 scope 6; reference/mesh-catalog.md "Transactions"; the
 * reference's `agent/txn_endpoint.go` and `agent/consul/txn_endpoint.go`): a list of up to
 * {@link MAX_TXN_OPS} KV, node, service and check operations (txn/ops.ts) applied in one
 * state-store transaction, so every write commits or none does.
 *
 * - 200 `{"Results": [{"KV": {…}}, {"Node": {…}}, …], "Errors": null}` with `X-Mesh-Index`
 *   (the commit's index; for a transaction of reads only, the index of the tables read). A
 *   KV result carries its `Value` for `get` / `get-tree` only (null otherwise, as the reference).
 * - 409 `{"Results": null, "Errors": [{"OpIndex": n, "What": "…"}]}` when any operation was
 *   refused by the ACLs (checked for every operation before any runs) or failed (a stale
 *   `cas`, a failed `check-index`, a missing key for `get`…): nothing is stored.
 * - 413 for a body past `limits.txn_max_req_len` (512 KiB), more than 128 operations, or a
 *   value past `limits.kv_max_value_size`; 400 naming the operation and field of a bad one.
 * - Reads are not refused by the ACLs: their results are left out
 *   (`X-Mesh-Results-Filtered-By-ACLs: true`); `check-index` / `check-session` need
 *   `key:read`, writes the write permission of what they write (txn/apply.ts `denial`).
 * - A transaction of reads only writes nothing and takes no index of its own.
 *
 * @module
 */
import { badRequest, CairnError, parseJsonBody, type HttpRequest } from '../../../kernel/http/index.js';
import type { Txn } from '../../../kernel/store/index.js';
import { CT } from '../catalog/model.js';
import { DEFAULT_KV_MAX_VALUE_SIZE, DEFAULT_TXN_MAX_REQ_LEN } from '../config.js';
import { ANY_CALLER, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import type { MeshReply } from '../http.js';
import { KV } from '../kv-store.js';
import { scopeOf } from '../ns-scope.js';
import type { Identity } from '../resolve.js';
import { ST } from '../sessions/store.js';
import { applyOp, denial, OpFailure, renderResult, visible, type OpResult } from '../txn/apply.js';
import { isRead, MAX_TXN_OPS, parseTxnOps, type TxnOp } from '../txn/ops.js';

/** One refused or failed operation, as the reply lists it. */
interface TxnError {
  readonly OpIndex: number;
  readonly What: string;
}

/** Thrown inside the store transaction to discard it (the caller answers 409 with `errors`). */
class Rollback extends Error {
  constructor(readonly errors: readonly TxnError[]) {
    super('transaction rolled back');
  }
}

/** The tables a transaction reads: the index a read-only one reports. */
const TXN_TABLES = [KV.entries, KV.tombstones, CT.nodes, CT.services, CT.checks, ST.sessions];

/** The state as a {@link Txn} that only reads: a transaction of reads runs on it without a store transaction. */
function readView(ctx: Ctx): Txn {
  const { state } = ctx.deps;
  const refuse = (): never => {
    throw new Error('txn: a read-only transaction tried to write');
  };
  return {
    index: state.tableIndex(...TXN_TABLES),
    get: (table, id) => state.get(table, id),
    getBy: (table, index, key) => state.getBy(table, index, key),
    list: (table) => state.list(table),
    listPrefix: (table, prefix) => state.listPrefix(table, prefix),
    listBy: (table, group, key) => state.listBy(table, group, key),
    put: refuse,
    delete: refuse,
  };
}

/** The operations of one transaction, with the namespace each runs in (same order). */
interface TxnBatch {
  readonly ops: readonly TxnOp[];
  readonly namespaces: readonly string[];
}

/**
 * Runs `batch.ops` in `tx`: the ACL checks of every operation first (any refusal: nothing runs),
 * then each operation in order, later ones seeing the earlier ones' writes. Every failure
 * is collected (as the reference, which goes on to report them all).
 * @returns the results, or the errors when there was one.
 */
function runOps(tx: Txn, { ops, namespaces }: TxnBatch, who: Identity, nowMs: number): { results: OpResult[] } | { errors: TxnError[] } {
  const errors: TxnError[] = [];
  ops.forEach((op, i) => {
    const why = denial(tx, who.authorizer, who.accessorId, op);
    if (why) errors.push({ OpIndex: i, What: why });
  });
  if (errors.length > 0) return { errors };
  const results: OpResult[] = [];
  ops.forEach((op, i) => {
    try {
      results.push(...applyOp(tx, op, namespaces[i]!, nowMs));
    } catch (err) {
      if (!(err instanceof OpFailure)) throw err;
      errors.push({ OpIndex: i, What: err.message });
    }
  });
  return errors.length > 0 ? { errors } : { results };
}

/**
 * The decoded body. @throws 413 past `limits.txn_max_req_len` (or `kv_max_value_size` when
 * that is larger, as the reference keeps for older configurations); 400 `Failed to parse body: …`.
 */
function bodyOf(ctx: Ctx): unknown {
  const { txnMaxReqLen, kvMaxValueSize } = ctx.deps.config;
  const limit = Math.max(txnMaxReqLen ?? DEFAULT_TXN_MAX_REQ_LEN, kvMaxValueSize ?? DEFAULT_KV_MAX_VALUE_SIZE);
  const size = ctx.req.body.length;
  if (size > limit) throw new CairnError('payload_too_large', `Request body(${size} bytes) too large, max size: ${limit} bytes. See limits.txn_max_req_len.`);
  if (size === 0) throw badRequest('Failed to parse body: the body is empty: expected a JSON list of operations');
  try {
    return parseJsonBody(ctx.req.body);
  } catch (err) {
    throw badRequest(`Failed to parse body: ${(err as Error).message}`);
  }
}

/** Each request's operations, parsed once: by its access rule, before the caller is resolved, and read again by the handler. */
const parsed = new WeakMap<HttpRequest, readonly TxnOp[]>();

/** The request's operations. @throws 413 / 400 as {@link bodyOf} and `parseTxnOps` say. */
function opsOf(ctx: Ctx): readonly TxnOp[] {
  let ops = parsed.get(ctx.req);
  if (!ops) {
    const { config } = ctx.deps;
    ops = parseTxnOps(bodyOf(ctx), { maxValueSize: config.kvMaxValueSize ?? DEFAULT_KV_MAX_VALUE_SIZE, datacenter: config.datacenter });
    parsed.set(ctx.req, ops);
  }
  return ops;
}

/** `PUT /v1/txn` (module doc). */
async function txn(ctx: Ctx): Promise<MeshReply> {
  const { state, config, now } = ctx.deps;
  const ops = opsOf(ctx);
  const who = ctx.caller;
  // A KV operation's own `Namespace` comes first (the body level of the namespace rules).
  const namespaces = ops.map((op) => scopeOf(ctx, who.token ? who : undefined, op.kind === 'KV' ? op.namespace : undefined));
  const at = now();
  let outcome: { results: OpResult[] } | { errors: TxnError[] };
  let index: number;
  if (ops.every(isRead)) {
    const view = readView(ctx);
    outcome = runOps(view, { ops, namespaces }, who, at);
    index = view.index;
  } else {
    try {
      const done = await state.txn((tx) => {
        const o = runOps(tx, { ops, namespaces }, who, at);
        if ('errors' in o) throw new Rollback(o.errors);
        return o.results;
      }, 'txn');
      outcome = { results: done.result };
      index = done.index;
    } catch (err) {
      if (!(err instanceof Rollback)) throw err;
      outcome = { errors: [...err.errors] };
      index = 0;
    }
  }
  if ('errors' in outcome) return { status: 409, body: { Results: null, Errors: outcome.errors } };
  const shown = outcome.results.filter((r) => visible(who.authorizer, r));
  const headers = shown.length < outcome.results.length ? { 'X-Mesh-Results-Filtered-By-ACLs': 'true' } : undefined;
  return { index, headers, body: { Results: shown.map((r) => renderResult(r, config.enterprise)), Errors: null } };
}

/**
 * The transaction route: any caller whose token resolves, once the body parsed (a bad one is
 * a 400 / 413 whoever sends it); each operation's own permission is checked with the others
 * inside the transaction (a refusal is a 409 naming it, as the reference).
 */
export const txnRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'txn',
    synopsis: `Apply up to ${MAX_TXN_OPS} KV, node, service and check operations atomically`,
    methods: { PUT: { access: (ctx) => (opsOf(ctx), ANY_CALLER), handle: txn } },
  },
];
