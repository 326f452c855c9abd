/**
 * How the scheduler client's resource groups (sched-volumes.ts, sched-jobs.ts,
 * sched-allocs.ts) reach the service: the shape of one call, which `SchedClient` (sched.ts)
 * implements with its token, namespace and region and hands to each group.
 *
 * @module
 */
import type { HttpJsonMethod } from './http-json.js';
import type { SchedRead } from './sched-types.js';

/** HTTP methods the API uses. */
export type SchedMethod = HttpJsonMethod;

/** One HTTP call: query, JSON body, extra headers and extra time. */
export interface SchedCallOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** More request headers, lower-case names (`x-sched-csi-secrets`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra time the call may take, in ms (blocking queries). */
  readonly extraTimeoutMs?: number;
}

/** What a call resolves with: the parsed body, `X-Sched-Index`, and every reply header by lower-case name. */
export interface SchedCallReply<T> extends SchedRead<T> {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * One request to `/v1<path>` (see `SchedClient.call`).
 * @throws SchedApiError on a status ≥ 400; SchedConnectionError when unreachable or on a non-JSON reply.
 */
export type SchedCall = <T>(method: SchedMethod, path: string, o?: SchedCallOptions) => Promise<SchedCallReply<T>>;

/**
 * A streaming GET of `/v1<path>` (logs, file reads): the reply's body chunks as they arrive.
 * @throws SchedApiError on a status ≥ 400; SchedConnectionError when unreachable.
 */
export type SchedStreamGet = (
  path: string,
  query: Readonly<Record<string, string | number | boolean | undefined>>,
  signal?: AbortSignal,
) => AsyncGenerator<Uint8Array, void>;

/** Longest a blocking read may take on top of the client's limit: the server's 300 s cap, its wait/16 jitter and a margin, in ms. */
export const BLOCKING_EXTRA_MS = 330_000;
