/**
 * One call to the discovery service as the resource groups (mesh-acl.ts, mesh-kv.ts, …) make
 * it through the client (mesh.ts `MeshClient.call`), and the errors it rejects with. Apart
 * from mesh.ts, which imports the resource groups; re-exported by it.
 *
 * @module
 */
import { HttpJsonApiError } from './http-json.js';

/**
 * The service answered with an error status: `status` (≥ 400), `message` its plain-text body
 * (trimmed; `HTTP <status>` when empty), `request` the method and the path under `/v1`.
 */
export class MeshApiError extends HttpJsonApiError {
  override readonly name = 'MeshApiError';
}

/** The service could not be reached (refused, reset, TLS failure, timeout) or answered something that is not JSON. */
export class MeshConnectionError extends Error {
  override readonly name = 'MeshConnectionError';
}

/** One HTTP call: method, path under `/v1/`, optional query, body and token override. */
export interface MeshCallOptions {
  /** A list repeats the parameter (`tag=a&tag=b`). */
  readonly query?: Readonly<Record<string, string | number | readonly string[] | undefined>>;
  readonly body?: unknown;
  /** Use this token instead of the client's. */
  readonly token?: string;
  /** Extra time the call may take (blocking queries). */
  readonly extraTimeoutMs?: number;
  /** A body sent as it is instead of JSON (KV values). */
  readonly rawBody?: Buffer | string;
  /** True: a 404 resolves with an undefined body and its index (a missing KV key). */
  readonly allowNotFound?: boolean;
  /** Error statuses whose JSON body resolves like a success (agent health: 429, 503). */
  readonly acceptStatuses?: readonly number[];
  /** Aborting it gives the request up (a blocking query); the call rejects with {@link MeshConnectionError}. */
  readonly signal?: AbortSignal;
}

/** A JSON reply, its `X-Mesh-Index` (0 when absent) and its headers by lower-case name. */
export interface MeshReplyOf<T> {
  readonly body: T;
  readonly index: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** What the resource groups call to reach the service (see {@link MeshClient.call}). */
export type MeshCall = <T>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, options?: MeshCallOptions) => Promise<MeshReplyOf<T>>;
