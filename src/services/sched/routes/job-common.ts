/**
 * What the job routes share (jobs.ts, job-versions.ts): the request's namespace, the
 * access rules in it, the stored job of `:id`, and a write's reply.
 *
 * @module
 */
import type { NamespaceCapability } from '../acl/index.js';
import type { SchedAccess } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedNotFound, type SchedReply } from '../http.js';
import type { StoredJob } from '../jobs/render.js';
import { jobKey, type Job } from '../jobs/types.js';
import type { JobWriteResult } from '../jobs/write.js';
import { DEFAULT_NAMESPACE, T } from '../state.js';

/** `?namespace=`, default `default`. */
export const namespaceOf = (ctx: Ctx) => ctx.query.get('namespace') || DEFAULT_NAMESPACE;

/** One of the capabilities `anyOf` in the request's namespace. */
export const inNamespace =
  (...anyOf: NamespaceCapability[]) =>
  (ctx: Ctx): SchedAccess => ({ namespace: namespaceOf(ctx), anyOf });

/** `read-job` in the request's namespace; a task's workload identity also passes it for its own job (`:id`). */
export const readJob = (ctx: Ctx): SchedAccess => ({ namespace: namespaceOf(ctx), anyOf: ['read-job'], job: ctx.params.id });

/** The job `:id` in `?namespace=`. @throws 404 `job not found` (or `notFound`). */
export function storedJob(ctx: Ctx, notFound = 'job not found'): StoredJob {
  const job = ctx.deps.state.get<Job>(T.jobs, jobKey(namespaceOf(ctx), ctx.params.id!));
  if (!job) throw schedNotFound(notFound);
  return job;
}

/** A write's reply: the result with the query meta in the body and the headers (the reference's `setMeta`). */
export function writeResult(r: JobWriteResult, extra: Record<string, unknown> = {}): SchedReply {
  return { body: { ...r, ...extra, KnownLeader: true, LastContact: 0 }, index: r.Index };
}
