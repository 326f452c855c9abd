/**
 * One call to the scheduler service as the API groups (sched-jobs.ts, sched-volumes.ts, …)
 * make it through the client (sched.ts `SchedClient.call`). Apart from sched.ts, which
 * builds on those groups; re-exported by it.
 *
 * @module
 */
import type { HttpJsonMethod } from './http-json.js';
import type { SchedRead } from './sched-types.js';

/** One HTTP call: query, JSON body, extra headers and extra time. */
export interface SchedCallOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** More request headers, lower-case names (`x-sched-csi-secrets`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra time the call may take, in ms (blocking queries). */
  readonly extraTimeoutMs?: number;
}

/** What `SchedClient.call` (sched.ts) resolves with: the parsed body, `X-Sched-Index`, and every reply header by lower-case name. */
export interface SchedCallReply<T> extends SchedRead<T> {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** HTTP methods the API uses. */
export type SchedMethod = HttpJsonMethod;
