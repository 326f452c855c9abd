/**
 * The discovery service's transactions (`PUT /v1/txn`; reference: Consul's transaction
 * API), reached as `MeshClient.txn`:
 *
 * ```ts
 * const { results, errors } = await mesh.txn([
 *   { KV: { Verb: 'cas', Key: 'app/config', Value: Buffer.from('v2').toString('base64'), Index: 42 } },
 *   { KV: { Verb: 'get', Key: 'app/version' } },
 * ]);
 * if (errors) console.log(errors[0].What); // rolled back: nothing was stored
 * ```
 *
 * @module
 */
import type { MeshCall } from './mesh-call.js';
import type { MeshCheckStatus, MeshHealthCheck, MeshNode, MeshNodeService } from './mesh-catalog-types.js';
import type { MeshKvEntry } from './mesh-kv.js';

/** KV verbs of a transaction. */
export type MeshTxnKvVerb =
  'set' | 'cas' | 'lock' | 'unlock' | 'get' | 'get-tree' | 'check-index' | 'check-session' | 'check-not-exists' | 'delete' | 'delete-tree' | 'delete-cas';
/** Node, service and check verbs. */
export type MeshTxnCatalogVerb = 'get' | 'set' | 'cas' | 'delete' | 'delete-cas';

/** One operation: exactly one of `KV`, `Node`, `Service`, `Check`. */
export interface MeshTxnOp {
  readonly KV?: {
    readonly Verb: MeshTxnKvVerb;
    readonly Key: string;
    /** base64. */
    readonly Value?: string;
    readonly Flags?: number;
    /** The `ModifyIndex` a `cas`, `check-index` or `delete-cas` expects. */
    readonly Index?: number;
    /** For `lock`, `unlock`, `check-session`. */
    readonly Session?: string;
    /** Enterprise switch only. */
    readonly Namespace?: string;
  };
  readonly Node?: {
    readonly Verb: MeshTxnCatalogVerb;
    readonly Node: {
      readonly Node: string;
      readonly Address?: string;
      readonly ID?: string;
      readonly Datacenter?: string;
      readonly TaggedAddresses?: Record<string, string>;
      readonly Meta?: Record<string, string>;
      readonly ModifyIndex?: number;
    };
  };
  readonly Service?: {
    readonly Verb: MeshTxnCatalogVerb;
    readonly Node: string;
    readonly Service: {
      readonly ID?: string;
      readonly Service?: string;
      readonly Tags?: readonly string[];
      readonly Address?: string;
      readonly Meta?: Record<string, string>;
      readonly Port?: number;
      readonly ModifyIndex?: number;
    };
  };
  readonly Check?: {
    readonly Verb: MeshTxnCatalogVerb;
    readonly Check: {
      readonly Node: string;
      readonly CheckID: string;
      readonly Name?: string;
      readonly Status?: MeshCheckStatus;
      readonly Notes?: string;
      readonly Output?: string;
      readonly ServiceID?: string;
      readonly ServiceName?: string;
      readonly ModifyIndex?: number;
    };
  };
}

/** One result: a KV entry (its `Value` only for `get` / `get-tree`), a node, a service or a check. */
export interface MeshTxnResult {
  readonly KV?: MeshKvEntry;
  readonly Node?: MeshNode;
  readonly Service?: MeshNodeService;
  readonly Check?: MeshHealthCheck;
}

/** Why the transaction was rolled back: the operation's position and the service's text. */
export interface MeshTxnError {
  readonly OpIndex: number;
  readonly What: string;
}

/** The outcome of {@link txn}: `errors` set (and `results` empty) when it was rolled back. */
export interface MeshTxnReply {
  readonly results: readonly MeshTxnResult[];
  readonly errors?: readonly MeshTxnError[];
  /** `X-Mesh-Index` (0 on a rollback). */
  readonly index: number;
}

/**
 * `PUT /v1/txn`: applies `ops` (at most 128) atomically. A rollback (409) resolves with its
 * `errors`; anything else ≥ 400 (400 bad operation, 413 limits, 403 unknown token) rejects with `MeshApiError`.
 */
export async function txn(call: MeshCall, ops: readonly MeshTxnOp[]): Promise<MeshTxnReply> {
  const r = await call<{ Results: MeshTxnResult[] | null; Errors: MeshTxnError[] | null }>('PUT', '/txn', { body: ops, acceptStatuses: [409] });
  return { results: r.body.Results ?? [], ...(r.body.Errors && { errors: r.body.Errors }), index: r.index };
}
