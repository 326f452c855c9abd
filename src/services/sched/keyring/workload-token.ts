/**
 * A task's default identity presented to the scheduler's own API as a token (issue 27 scope
 * 2; the reference accepts workload identities on its API with an implicit policy): the JWT
 * must be signed by a key of this region's keyring (any state: a token of a retired key stays
 * good until its key is collected), carry the audience `cairn-sched`, be the `default`
 * identity (`sub` ends in `:default`), not be expired or not yet valid, and name a live
 * allocation whose namespace, ID and job match its claims. Its caller may read its own job
 * (access.ts: rules that name the job) and nothing else.
 *
 * @module
 */
import type { StateStore } from '../../../kernel/store/index.js';
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import { T } from '../state.js';
import { DEFAULT_AUDIENCE, DEFAULT_IDENTITY } from './identity.js';
import type { Keyring } from './keyring.js';

/** The workload a valid identity token stands for. */
export interface Workload {
  readonly namespace: string;
  /** The allocation's own job ID (for a dispatched child: the child's). */
  readonly jobId: string;
  readonly allocId: string;
  readonly task: string;
}

/** Seconds a token's `nbf` / `iat` may lie in the future (clocks of servers sharing a state differ a little). */
const CLOCK_SKEW_S = 5;

/** A JWT's shape: three base64url parts, the first a JSON object (`eyJ`). */
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The workload of `secret` when it is a valid default identity (module doc); undefined otherwise. */
export function workloadOf(keyring: Keyring, state: StateStore, secret: string, nowMs: number): Workload | undefined {
  if (!JWT_SHAPE.test(secret)) return undefined;
  const read = keyring.verify(secret);
  if (!read) return undefined;
  const c = read.claims;
  const nowS = nowMs / 1000;
  const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (!aud.includes(DEFAULT_AUDIENCE)) return undefined;
  if (typeof c.sub !== 'string' || !c.sub.endsWith(`:${DEFAULT_IDENTITY}`)) return undefined;
  if (c.exp !== undefined && !(typeof c.exp === 'number' && c.exp > nowS)) return undefined;
  if (typeof c.nbf === 'number' && c.nbf > nowS + CLOCK_SKEW_S) return undefined;
  const { cairn_namespace: ns, cairn_job_id: job, cairn_allocation_id: allocId, cairn_task: task } = c;
  if (typeof ns !== 'string' || typeof job !== 'string' || typeof allocId !== 'string' || typeof task !== 'string') return undefined;
  const alloc = state.get<StoredAlloc>(T.allocs, allocId);
  if (!alloc || allocTerminal(alloc) || alloc.Namespace !== ns || (alloc.Job?.ParentID || alloc.JobID) !== job) return undefined;
  return { namespace: ns, jobId: alloc.JobID, allocId, task };
}
