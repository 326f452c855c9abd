/**
 * The jobs API's writes (reference/sched-workloads.md "Jobs"): register (also scale), stop,
 * purge and re-evaluate. Each is one state transaction that writes the job, its version
 * document and a `pending` evaluation for the scheduler on the leader (types.ts module doc),
 * labelled `JobRegistered`, `JobDeregistered` or `EvaluationUpdated` (state.ts `LABEL`), so
 * the event stream types them as the reference does.
 *
 * Versions: a register whose job differs from the stored one (anything but status, indexes,
 * version and submit time) is a new version with a new `JobModifyIndex`; an identical one
 * keeps both, and still gets an evaluation (the reference's `SpecChanged`). The last
 * {@link TRACKED_VERSIONS} versions are kept.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import type { SchedDeps } from '../service-deps.js';
import { schedBadRequest, schedNotFound } from '../http.js';
import { LABEL, T, type NamespaceDoc } from '../state.js';
import { TRACKED_VERSIONS } from './defaults.js';
import type { StoredJob } from './render.js';
import { allocsOfJob, evalsOfJob, jobStatus } from './status.js';
import { jobKey, jobVersionKey, newEvaluation, type Evaluation, type Job } from './types.js';
import { jobLevelUpdate } from './update.js';

/** What a job write replies (the reference's `JobRegisterResponse` / `JobDeregisterResponse`); `EvalID` `''` when no evaluation was made. */
export interface JobWriteResult {
  readonly EvalID: string;
  readonly EvalCreateIndex: number;
  readonly JobModifyIndex: number;
  readonly Warnings: string;
  readonly Index: number;
}

/** Options of {@link registerJob}. */
export interface RegisterOptions {
  /** `EnforceIndex`: register only if the stored job's `JobModifyIndex` is `jobModifyIndex` (0: only if there is none). */
  readonly enforceIndex: boolean;
  readonly jobModifyIndex: number;
  /** `PreserveCounts`: groups that exist in the stored job keep their count. */
  readonly preserveCounts: boolean;
  /** The evaluation's `TriggeredBy` (`job-register`, or `job-scaling` for a scale). */
  readonly triggeredBy: string;
}

/** The reference's error prefix for `EnforceIndex` failures (`RegisterEnforceIndexErrPrefix`). */
const ENFORCE_INDEX_PREFIX = 'Enforcing job modify index';

/** 404 `job not found`. */
export const jobNotFound = () => schedNotFound('job not found');

/**
 * The fields that say nothing about what the job runs, left out when comparing versions; a
 * group's `Update` that only repeats the job's strategy is left out too, so a job stored
 * before groups carried it compares equal to its re-registration.
 */
function spec(job: Job): string {
  const { Status: _s, StatusDescription: _d, Stable: _st, Version: _v, SubmitTime: _t, CreateIndex: _c, ModifyIndex: _m, JobModifyIndex: _j, ...rest } = job;
  const inherited = JSON.stringify(jobLevelUpdate(job));
  const groups = job.TaskGroups.map((g) => {
    if (g.Update === undefined || JSON.stringify(g.Update) !== inherited) return g;
    const { Update: _u, ...other } = g;
    return other;
  });
  return JSON.stringify({ ...rest, TaskGroups: groups });
}

/** Does `next` differ from `prev` in anything a user wrote (the reference's `Job.SpecChanged`)? */
export function specChanged(prev: Job, next: Job): boolean {
  return spec(prev) !== spec(next);
}

/**
 * What a register may not change of a stored job (the reference's `validateJobUpdate`):
 * its type, and whether it is parameterized or periodic. @throws 400 with the reference's texts.
 */
function checkJobUpdate(old: Job, next: Job): void {
  if (old.Type !== next.Type) throw schedBadRequest(`cannot update job from type "${old.Type}" to "${next.Type}"`);
  if (old.ParameterizedJob && !next.ParameterizedJob) throw schedBadRequest('cannot update parameterized job to being non-parameterized');
  if (!old.ParameterizedJob && next.ParameterizedJob) throw schedBadRequest('cannot update non-parameterized job to being parameterized');
  if (old.Periodic && !next.Periodic) throw schedBadRequest('cannot update periodic job to being non-periodic');
  if (!old.Periodic && next.Periodic) throw schedBadRequest('cannot update non-periodic job to being periodic');
}

/** Writes `eval` and returns it stored. */
function putEval(tx: Txn, e: Evaluation): Evaluation & Indexed {
  return tx.put(T.evals, e.ID, e);
}

/**
 * Stores `job` as the next version of what `tx` holds (or as version 0), with its version
 * document and a pending evaluation triggered by `triggeredBy` (none for a parameterized or periodic job); older versions beyond the
 * last {@link TRACKED_VERSIONS} are deleted. Returns the stored job and evaluation.
 */
export function storeJob(
  tx: Txn,
  job: Job,
  existing: StoredJob | undefined,
  { triggeredBy, nowNs }: { triggeredBy: string; nowNs: number },
): { job: StoredJob; evaluation: (Evaluation & Indexed) | undefined } {
  const changed = !existing || specChanged(existing, job);
  const base: Job = {
    ...job,
    Version: !existing ? 0 : changed ? existing.Version + 1 : existing.Version,
    JobModifyIndex: changed ? tx.index : existing.JobModifyIndex,
    SubmitTime: changed ? nowNs : existing.SubmitTime,
    Stable: changed ? false : existing.Stable,
  };
  // The job first, then its evaluation (the reference's event order), its status counting that evaluation.
  // A parameterized or periodic job gets none: only its children are scheduled.
  const e = base.ParameterizedJob || base.Periodic ? undefined : newEvaluation(randomUUID(), base, { triggeredBy, nowNs });
  const status = jobStatus(base, allocsOfJob(tx, job.Namespace, job.ID), [...evalsOfJob(tx, job.Namespace, job.ID), ...(e ? [e] : [])]);
  const stored = tx.put(T.jobs, jobKey(job.Namespace, job.ID), { ...base, Status: status });
  const evaluation = e && putEval(tx, e);
  if (changed) {
    tx.put(T.jobVersions, jobVersionKey(job.Namespace, job.ID, stored.Version), stored);
    for (const old of tx.listPrefix<Job>(T.jobVersions, `${job.Namespace}/${job.ID}/`)) {
      if (old.ID === job.ID && old.Version <= stored.Version - TRACKED_VERSIONS) tx.delete(T.jobVersions, jobVersionKey(old.Namespace, old.ID, old.Version));
    }
  }
  return { job: stored, evaluation };
}

/** A write's reply for evaluation `e` (none: `EvalID` `""`, as the reference's register of a parameterized job). */
export const result = (e: (Evaluation & Indexed) | undefined, jobModifyIndex: number, index: number): JobWriteResult => ({
  EvalID: e?.ID ?? '',
  EvalCreateIndex: e?.CreateIndex ?? 0,
  JobModifyIndex: jobModifyIndex,
  Warnings: '',
  Index: index,
});

/**
 * Registers `job` (decoded and checked: decode.ts, validate.ts), label `JobRegistered`.
 * @throws 400 `job "<id>" is in nonexistent namespace "<ns>"`; 400 `Enforcing job modify
 *   index <n>: job does not exist` / `Enforcing job modify index <n>: job exists with
 *   conflicting job modify index: <m>` (the reference's texts; it answers 500).
 */
export async function registerJob(deps: SchedDeps, job: Job, o: RegisterOptions): Promise<JobWriteResult> {
  const nowNs = deps.now() * 1e6;
  const { result: r, index } = await deps.state.txn((tx) => {
    if (!tx.get<NamespaceDoc>(T.namespaces, job.Namespace)) throw schedBadRequest(`job "${job.ID}" is in nonexistent namespace "${job.Namespace}"`);
    const existing = tx.get<Job>(T.jobs, jobKey(job.Namespace, job.ID));
    if (o.enforceIndex) {
      if (!existing && o.jobModifyIndex !== 0) throw schedBadRequest(`${ENFORCE_INDEX_PREFIX} ${o.jobModifyIndex}: job does not exist`);
      if (existing && existing.JobModifyIndex !== o.jobModifyIndex) {
        throw schedBadRequest(`${ENFORCE_INDEX_PREFIX} ${o.jobModifyIndex}: job exists with conflicting job modify index: ${existing.JobModifyIndex}`);
      }
    }
    if (existing) checkJobUpdate(existing, job);
    let next = job;
    if (o.preserveCounts && existing) {
      const counts = new Map(existing.TaskGroups.map((g) => [g.Name, g.Count]));
      next = { ...job, TaskGroups: job.TaskGroups.map((g) => (counts.has(g.Name) ? { ...g, Count: counts.get(g.Name)! } : g)) };
    }
    const stored = storeJob(tx, next, existing, { triggeredBy: o.triggeredBy, nowNs });
    return result(stored.evaluation, stored.job.JobModifyIndex, tx.index);
  }, LABEL.jobRegister);
  return { ...r, Index: index };
}

/**
 * Stops job `namespace`/`id` (`Stop: true`, a new version) or, with `purge`, deletes it and
 * its versions; either way with a pending `job-deregister` evaluation (the scheduler stops
 * its allocations). Label `JobDeregistered`. @throws 404 `job not found`.
 */
export async function deregisterJob(deps: SchedDeps, namespace: string, id: string, purge: boolean): Promise<JobWriteResult> {
  const nowNs = deps.now() * 1e6;
  const { result: r, index } = await deps.state.txn((tx) => {
    const existing = tx.get<Job>(T.jobs, jobKey(namespace, id));
    if (!existing) throw jobNotFound();
    if (purge) {
      tx.delete(T.jobs, jobKey(namespace, id));
      for (const v of tx.listPrefix<Job>(T.jobVersions, `${namespace}/${id}/`))
        if (v.ID === id) tx.delete(T.jobVersions, jobVersionKey(namespace, id, v.Version));
      const e = putEval(tx, newEvaluation(randomUUID(), { ...existing, JobModifyIndex: tx.index }, { triggeredBy: 'job-deregister', nowNs }));
      return result(e, tx.index, tx.index);
    }
    const stored = storeJob(tx, { ...existing, Stop: true }, existing, { triggeredBy: 'job-deregister', nowNs });
    return result(stored.evaluation, stored.job.JobModifyIndex, tx.index);
  }, LABEL.jobDeregister);
  return { ...r, Index: index };
}

/** A scaling request: the job, its group, and the group's new count. */
export interface JobScale {
  readonly namespace: string;
  /** The job's ID. */
  readonly id: string;
  /** The task group's name. */
  readonly group: string;
  /** The new count; undefined: no change. */
  readonly count: number | undefined;
}

/**
 * Sets group `group`'s count of job `namespace`/`id` to `count` (a new version) with a
 * `job-scaling` evaluation; label `JobRegistered`. `count` undefined changes nothing and
 * makes no evaluation (the reference records only the scaling event then).
 * @throws 404 `job not found`; 400 `task group "<g>" specified for scaling does not exist in
 *   job`; 400 `scaling action count can't be negative`; 400 `Enforcing job modify index …`.
 */
export async function scaleJob(
  deps: SchedDeps,
  { namespace, id, group, count }: JobScale,
  enforce: { enforceIndex: boolean; jobModifyIndex: number },
): Promise<JobWriteResult> {
  const existing = deps.state.get<Job>(T.jobs, jobKey(namespace, id));
  if (!existing) throw jobNotFound();
  if (!existing.TaskGroups.some((g) => g.Name === group)) throw schedBadRequest(`task group "${group}" specified for scaling does not exist in job`);
  if (count === undefined) return { EvalID: '', EvalCreateIndex: 0, JobModifyIndex: existing.JobModifyIndex, Warnings: '', Index: existing.ModifyIndex };
  if (count < 0) throw schedBadRequest("scaling action count can't be negative");
  const job: Job = { ...existing, TaskGroups: existing.TaskGroups.map((g) => (g.Name === group ? { ...g, Count: count } : g)) };
  return registerJob(deps, job, { ...enforce, preserveCounts: false, triggeredBy: 'job-scaling' });
}

/** A pending `job-register` evaluation of job `namespace`/`id` as it is (`POST /v1/job/:id/evaluate`); label `EvaluationUpdated`. @throws 404 `job not found`. */
export async function evaluateJob(deps: SchedDeps, namespace: string, id: string): Promise<JobWriteResult> {
  const nowNs = deps.now() * 1e6;
  const { result: r, index } = await deps.state.txn((tx) => {
    const job = tx.get<Job>(T.jobs, jobKey(namespace, id));
    if (!job) throw jobNotFound();
    const e = putEval(tx, newEvaluation(randomUUID(), job, { triggeredBy: 'job-register', nowNs }));
    return result(e, job.JobModifyIndex, tx.index);
  }, LABEL.evalUpdate);
  return { ...r, Index: index };
}
