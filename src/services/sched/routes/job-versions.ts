/**
 * A job's versions (reference/sched-workloads.md "Jobs"; the reference's `Job.GetJobVersions`,
 * `Job.Revert`, `Job.Stable`):
 *
 * ```text
 * GET      /v1/job/:id/versions?diffs=&diff_version=                     read-job    {Versions, Diffs} (blocking)
 * POST|PUT /v1/job/:id/revert  {JobID, JobVersion, EnforcePriorVersion}  submit-job  JobRegistered
 * POST|PUT /v1/job/:id/stable  {JobID, JobVersion, Stable}               submit-job  JobRegistered
 * ```
 *
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import type { SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { jobDiff, type JobDiff } from '../jobs/diff.js';
import { renderJob } from '../jobs/render.js';
import type { Job } from '../jobs/types.js';
import { revertJob, setJobStability } from '../jobs/versions.js';
import { queryBool, requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { T } from '../state.js';
import { inNamespace, namespaceOf, readJob, storedJob, writeResult } from './job-common.js';

/**
 * The diffs of `versions` (newest first): without `against`, each version from the one
 * before it (the reference's `Diffs[i]` = version i+1 → version i, so one fewer than the
 * versions); with `against`, each other version from that one. Contextual, as the reference's.
 */
function versionDiffs(versions: readonly Job[], against: Job | undefined): JobDiff[] {
  if (against) return versions.filter((v) => v.Version !== against.Version).map((v) => jobDiff(against, v, { contextual: true }));
  return versions.slice(0, -1).map((v, i) => jobDiff(versions[i + 1], v, { contextual: true }));
}

/** `GET /v1/job/:id/versions`: `{Versions: [newest first], Diffs: [...] | null}`. @throws 404 `job versions not found`; 400 for a `diff_version` that is not kept. */
function versions(ctx: Ctx): SchedReply {
  const job = storedJob(ctx, 'job versions not found');
  const kept = ctx.deps.state
    .listPrefix<Job>(T.jobVersions, `${job.Namespace}/${job.ID}/`)
    .filter((v) => v.ID === job.ID)
    .reverse();
  const diffVersion = ctx.query.get('diff_version');
  let against: Job | undefined;
  if (diffVersion) {
    against = kept.find((v) => String(v.Version) === diffVersion);
    if (!against) throw schedBadRequest(`version ${diffVersion} of job "${job.ID}" not found`);
  }
  const Diffs = queryBool(ctx, 'diffs') || against ? versionDiffs(kept, against) : null;
  return { body: { Versions: kept.map((v) => renderJob(v)), Diffs }, index: ctx.deps.state.tableIndex(T.jobVersions) };
}

/** The body of a revert (the reference's `api.JobRevertRequest`). */
const RevertBody = Go.struct('api.JobRevertRequest', {
  JobID: Go.string("the path's job ID"),
  JobVersion: Go.int('the version to go back to'),
  EnforcePriorVersion: Go.any('only if the current version is this one (uint64, or null)'),
  ConsulToken: Go.string(),
  VaultToken: Go.string(),
});

/** The body of a stability change (the reference's `api.JobStabilityRequest`). */
const StableBody = Go.struct('api.JobStabilityRequest', { JobID: Go.string("the path's job ID"), JobVersion: Go.int(), Stable: Go.bool() });

/** The body's `JobID` must be the path's (empty is the path's). @throws 400 `JobID in payload did not match URL`. */
function checkJobId(ctx: Ctx, jobId: string): void {
  if (jobId !== '' && jobId !== ctx.params.id) throw schedBadRequest('JobID in payload did not match URL');
}

/** A version number from the body. @throws 400 naming `field` for a negative or non-integer value. */
function versionField(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw schedBadRequest(`json: cannot unmarshal ${JSON.stringify(v)} into Go struct field ${field} of type uint64`);
  return v;
}

/** `POST|PUT /v1/job/:id/revert` → the register reply (`EvalID`, `JobModifyIndex`, …). @throws the errors of {@link revertJob}. */
async function revert(ctx: Ctx, input: Static<typeof RevertBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  checkJobId(ctx, body.JobID);
  const prior =
    body.EnforcePriorVersion === null || body.EnforcePriorVersion === undefined
      ? undefined
      : versionField(body.EnforcePriorVersion, 'JobRevertRequest.EnforcePriorVersion');
  const version = versionField(body.JobVersion, 'JobRevertRequest.JobVersion');
  return writeResult(await revertJob(ctx.deps, { namespace: namespaceOf(ctx), id: ctx.params.id!, version }, prior));
}

/** `POST|PUT /v1/job/:id/stable` → `{Index, JobModifyIndex}`. @throws the errors of {@link setJobStability}. */
async function stable(ctx: Ctx, input: Static<typeof StableBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  checkJobId(ctx, body.JobID);
  const version = versionField(body.JobVersion, 'JobStabilityRequest.JobVersion');
  const index = await setJobStability(ctx.deps, { namespace: namespaceOf(ctx), id: ctx.params.id!, version }, body.Stable);
  return { body: { Index: index, JobModifyIndex: index }, index };
}

/** Routes of this file (see the module doc). */
export const jobVersionRoutes: readonly SchedRoute[] = [
  {
    pattern: 'job/:id+/versions',
    synopsis: 'The kept versions of a job, newest first, with their diffs (?diffs=true, or each against ?diff_version=)',
    blocking: [T.jobVersions],
    methods: {
      GET: {
        access: readJob,
        query: {
          diffs: Type.Boolean({ description: 'Also each version’s diff from the one before it.' }),
          diff_version: Type.Integer({ minimum: 0, description: 'Diff every other version against this one.' }),
        },
        handle: async (ctx) => versions(ctx),
      },
    },
  },
  {
    pattern: 'job/:id+/revert',
    synopsis: 'Register a kept version of the job again as its next version',
    methods: {
      POST: withBody(RevertBody, { access: inNamespace('submit-job'), handle: revert }),
      PUT: withBody(RevertBody, { access: inNamespace('submit-job'), handle: revert }),
    },
  },
  {
    pattern: 'job/:id+/stable',
    synopsis: 'Mark a version of the job stable or not',
    methods: {
      POST: withBody(StableBody, { access: inNamespace('submit-job'), handle: stable }),
      PUT: withBody(StableBody, { access: inNamespace('submit-job'), handle: stable }),
    },
  },
];
