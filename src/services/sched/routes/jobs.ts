/**
 * Jobs (reference/sched-workloads.md "Jobs"). `?namespace=` (default `default`) names the
 * job's namespace; a register body's `Job.Namespace` wins over it.
 *
 * ```text
 * GET      /v1/jobs?prefix=&namespace=&filter=&per_page=&next_token=   list-jobs      stubs, paged (blocking)
 * POST|PUT /v1/jobs                  {Job, EnforceIndex, JobModifyIndex, PreserveCounts}  submit-job  JobRegistered
 * POST     /v1/jobs/parse            {JobHCL, Canonicalize}             parse-job | submit-job
 * GET      /v1/job/:id                                                  read-job       (blocking)
 * POST|PUT /v1/job/:id               register (the body's Job.ID must be :id)       submit-job
 * DELETE   /v1/job/:id?purge=                                           submit-job     JobDeregistered
 * GET      /v1/job/:id/allocations?all= | /evaluations | /summary   read-job  (blocking)
 * (versions, revert and stable: job-versions.ts)
 * POST|PUT /v1/job/:id/evaluate                                         submit-job     EvaluationUpdated
 * POST|PUT /v1/job/:id/scale         {Count, Target:{Group}}            scale-job | submit-job  JobRegistered
 * ```
 *
 * Job `Status` is computed when read from the job's allocations and evaluations
 * (jobs/status.ts), so reads block on the job, allocation and evaluation tables.
 * `POST /v1/job/:id/plan` is the scheduler's (it runs the placement).
 *
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import { ALL_NAMESPACES } from '../acl/index.js';
import { allocStub, type StoredAlloc } from '../alloc.js';
import { ANY_CALLER, type SchedAccess, type SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { decodeJob } from '../jobs/decode.js';
import { parseJobHcl } from '../jobs/hcl.js';
import { renderEval, renderJob, jobStub, type StoredJob } from '../jobs/render.js';
import { allocsOfJob, childCounts, evalsOfJob, jobStatus, jobSummary, relationsByJob } from '../jobs/status.js';
import { jobKey, type Job } from '../jobs/types.js';
import { validateJob } from '../jobs/validate.js';
import { vaultWarnings } from '../jobs/vault.js';
import { withConsulIdentities } from '../jobs/consul-identities.js';
import { deregisterJob, evaluateJob, registerJob, scaleJob } from '../jobs/write.js';
import { compileListFilter, nextTokenHeader, paginate } from '../paginate.js';
import { PAGED_QUERY, PREFIX_QUERY, queryBool, queryPerPage, queryPrefix, requireInput } from '../request.js';
import { nullAsEmpty } from '../body.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { T } from '../state.js';
import { fieldOf } from '../go-struct.js';
import { inNamespace, namespaceOf, readJob, storedJob, writeResult } from './job-common.js';

/** The tables a job read depends on (its status and summary come from allocations and evaluations). */
const JOB_TABLES = [T.jobs, T.allocs, T.evals];

/** The reference's `Warnings` text (`MergeMultierrorWarnings`): `""` for none, else `<n> warning(s):` and one `* <warning>` line each. */
function warningsText(warnings: readonly string[]): string {
  return warnings.length === 0 ? '' : `${warnings.length} warning(s):\n${warnings.map((w) => `\n* ${w}`).join('')}`;
}

/** The body of a register (the reference's `api.JobRegisterRequest`; `Job` decoded by jobs/decode.ts, whose texts name `api.Job`). */
const RegisterBody = Go.struct('api.JobRegisterRequest', {
  Job: Go.any('the job (api.Job)'),
  EnforceIndex: Go.bool(),
  JobModifyIndex: Go.int(),
  PreserveCounts: Go.bool(),
  PolicyOverride: Go.bool(),
});

/** A register request: the job and the register options. */
interface RegisterRequest {
  readonly job: Job;
  readonly enforceIndex: boolean;
  readonly jobModifyIndex: number;
  readonly preserveCounts: boolean;
}

/** Each request's decoded {@link RegisterRequest}, made once by its access rule for the handler. */
const registers = new WeakMap<Ctx, RegisterRequest>();

/** The register request of the declared body, decoded once per request. @throws 400 `Request body is empty`, `Job must be specified`, the job decoder's texts. */
function decodeRegister(ctx: Ctx): RegisterRequest {
  const known = registers.get(ctx);
  if (known) return known;
  const body = requireInput(ctx.input<Static<typeof RegisterBody>>());
  if (body.Job === null) throw schedBadRequest('Job must be specified');
  const job = decodeJob(body.Job, { namespace: namespaceOf(ctx), region: ctx.deps.config.region });
  const r = { job, enforceIndex: body.EnforceIndex, jobModifyIndex: body.JobModifyIndex, preserveCounts: body.PreserveCounts };
  registers.set(ctx, r);
  return r;
}

/** `submit-job` in the namespace of the job the body registers; the body's decode 400s first. */
const registerAccess = (ctx: Ctx): SchedAccess => ({ namespace: decodeRegister(ctx).job.Namespace, anyOf: ['submit-job'] });

/** Decodes and checks a register body. @throws as {@link decodeRegister}; the checks of validate.ts. */
function registerRequest(ctx: Ctx): RegisterRequest {
  const r = decodeRegister(ctx);
  validateJob(r.job, ctx.deps.config.region);
  return r;
}

/** `POST|PUT /v1/jobs`, and `POST|PUT /v1/job/:id` with `pathId`: register (module doc). @throws as {@link registerRequest}; 400 `Job ID does not match name`; the errors of `registerJob`. */
async function register(ctx: Ctx, pathId?: string): Promise<SchedReply> {
  const r = registerRequest(ctx);
  if (pathId !== undefined && r.job.ID !== pathId) throw schedBadRequest('Job ID does not match name');
  const written = await registerJob(ctx.deps, withConsulIdentities(r.job, ctx.deps.config.consulIdentities), { ...r, triggeredBy: 'job-register' });
  return writeResult({ ...written, Warnings: warningsText(vaultWarnings(r.job.TaskGroups.flatMap((g) => g.Tasks))) });
}

/**
 * `GET /v1/jobs`: stubs in `<namespace>.<id>` order (the paging token), narrowed by `prefix`
 * (job ID prefix) and `filter` (over the full job as read), paged. One namespace needs
 * `list-jobs` there (403 otherwise); `*` lists every namespace where the token has it.
 */
async function listJobs(ctx: Ctx): Promise<SchedReply> {
  const who = ctx.caller;
  const ns = namespaceOf(ctx);
  const prefix = queryPrefix(ctx);
  const perPage = queryPerPage(ctx);
  const filter = compileListFilter(ctx.query.get('filter'));
  const nextToken = ctx.query.get('next_token') ?? '';
  const { state } = ctx.deps;
  const index = state.tableIndex(...JOB_TABLES);
  const relations = relationsByJob(state);
  const listable = new Map<string, boolean>();
  const mayList = (n: string) => {
    let ok = listable.get(n);
    if (ok === undefined) listable.set(n, (ok = who.authorizer.allowNamespaceOperation(n, 'list-jobs')));
    return ok;
  };
  const statusOf = (j: StoredJob) => {
    const rel = relations.get(jobKey(j.Namespace, j.ID));
    return jobStatus(j, rel?.allocs ?? [], rel?.evals ?? []);
  };
  const jobs = ns === ALL_NAMESPACES ? state.list<Job>(T.jobs).filter((j) => mayList(j.Namespace)) : state.listPrefix<Job>(T.jobs, `${ns}/`);
  // Keys are `<namespace>/<id>`; the token `<namespace>.<id>` (namespace names hold no dot) compares in the same order.
  const keyOfToken = (t: string) => t.replace('.', '/');
  const page = paginate({
    items: jobs.filter((j) => j.ID.startsWith(prefix)),
    tokenOf: (j) => `${j.Namespace}.${j.ID}`,
    before: (token, next) => keyOfToken(token) < keyOfToken(next),
    perPage,
    nextToken,
    filter,
    filterOn: (j) => renderJob(j, statusOf(j)),
  });
  const body = page.items.map((j) => {
    const rel = relations.get(jobKey(j.Namespace, j.ID));
    const children = j.ParameterizedJob ? childCounts(ctx.deps.state, j.Namespace, j.ID) : undefined;
    return jobStub(j, statusOf(j), jobSummary(j, rel?.allocs ?? [], rel?.evals ?? [], children));
  });
  return { body, index, headers: nextTokenHeader(page.nextToken) };
}

/** The body of a parse (the reference's `api.JobsParseRequest`). */
const ParseBody = Go.struct('api.JobsParseRequest', { JobHCL: Go.string('the job in HCL'), Canonicalize: Go.bool(), HCLv1: Go.bool(), Variables: Go.string() });

/** `POST /v1/jobs/parse`: body `{JobHCL, Canonicalize}` → the job as JSON (jobs/hcl.ts). @throws 400 `Request body is empty`, `Job HCL must be specified`, the parser's and checks' texts; 403 without `parse-job` or `submit-job`. */
async function parseJob(ctx: Ctx, input: Static<typeof ParseBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  if (body.JobHCL === '') throw schedBadRequest('Job HCL must be specified');
  const raw = parseJobHcl(body.JobHCL, 'input.hcl');
  if (!body.Canonicalize) return { body: raw };
  const job = decodeJob(raw, { namespace: namespaceOf(ctx), region: ctx.deps.config.region });
  validateJob(job, ctx.deps.config.region);
  return { body: renderJob({ ...job, CreateIndex: 0, ModifyIndex: 0 }) };
}

/** The body of a scale (the reference's `api.ScalingRequest`; `Count` checked by {@link scale}, which names `ScalingRequest.Count`). */
const ScaleBody = Go.struct('api.ScalingRequest', {
  Count: Go.any('the new count (int64); null leaves it'),
  Target: Go.map('{"Group": "<group>", "Job"?: "<job ID>"}'),
  Message: Go.string(),
  Error: Go.bool(),
  Meta: Go.object(),
  EnforceIndex: Go.bool(),
  JobModifyIndex: Go.int(),
  PolicyOverride: Go.bool(),
});

/** `POST|PUT /v1/job/:id/scale`: body `{Count, Target: {Group}, EnforceIndex?, JobModifyIndex?}`. @throws 400 `Request body is empty`, `missing task group name for scaling action`; 403 without `scale-job` or `submit-job`; the errors of `scaleJob`. */
async function scale(ctx: Ctx, input: Static<typeof ScaleBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  const ns = namespaceOf(ctx);
  // Null when absent (Go's zero value), though the declared type cannot say so.
  const target = (body.Target as Record<string, string> | null) ?? {};
  const group = fieldOf(target, 'Group');
  if (typeof group !== 'string' || group === '') throw schedBadRequest('missing task group name for scaling action');
  const targetJob = fieldOf(target, 'Job');
  if (typeof targetJob === 'string' && targetJob !== '' && targetJob !== ctx.params.id) throw schedBadRequest('job ID in payload did not match URL');
  const count = body.Count;
  if (count !== null && (typeof count !== 'number' || !Number.isSafeInteger(count))) {
    throw schedBadRequest(`json: cannot unmarshal ${typeof count} into Go struct field ScalingRequest.Count of type int64`);
  }
  const r = await scaleJob(
    ctx.deps,
    { namespace: ns, id: ctx.params.id!, group, count: count ?? undefined },
    { enforceIndex: body.EnforceIndex, jobModifyIndex: body.JobModifyIndex },
  );
  return writeResult(r);
}

/** The optional body of an evaluate (the reference's `api.JobEvaluateRequest`); empty or `null`: every field its zero value. */
const EvaluateBody = nullAsEmpty(Go.struct('api.JobEvaluateRequest', { JobID: Go.string("the path's job ID, or empty"), EvalOptions: Go.object() }));

/** Routes of this file (see the module doc). */
export const jobRoutes: readonly SchedRoute[] = [
  {
    pattern: 'jobs',
    synopsis: 'List jobs as stubs (?namespace=, `*` for every namespace; ?prefix=, ?filter=, paging); register a job',
    blocking: JOB_TABLES,
    methods: {
      GET: {
        access: (ctx) => (namespaceOf(ctx) === ALL_NAMESPACES ? ANY_CALLER : inNamespace('list-jobs')(ctx)),
        query: { ...PREFIX_QUERY, ...PAGED_QUERY },
        handle: listJobs,
      },
      POST: { access: registerAccess, body: RegisterBody, handle: (ctx) => register(ctx) },
      PUT: { access: registerAccess, body: RegisterBody, handle: (ctx) => register(ctx) },
    },
  },
  {
    pattern: 'jobs/parse',
    synopsis: 'Parse an HCL job file into the job JSON (with Canonicalize: the defaults a register applies)',
    methods: {
      POST: withBody(ParseBody, { access: inNamespace('parse-job', 'submit-job'), handle: parseJob }),
      PUT: withBody(ParseBody, { access: inNamespace('parse-job', 'submit-job'), handle: parseJob }),
    },
  },
  {
    pattern: 'job/:id+/allocations',
    synopsis: 'The allocations of a job as stubs (?all=true: also those of an earlier job with the same ID)',
    blocking: [T.allocs],
    methods: {
      /** Alloc stubs; `[]` for a job that does not exist (as the reference). */
      GET: {
        access: readJob,
        query: { all: Type.Boolean({ description: 'Also the allocations of an earlier job of the same ID.' }) },
        handle: async (ctx) => {
          const ns = namespaceOf(ctx);
          const all = queryBool(ctx, 'all');
          const { state } = ctx.deps;
          const job = state.get<Job>(T.jobs, jobKey(ns, ctx.params.id!));
          const allocs = allocsOfJob(state, ns, ctx.params.id!).filter((a) => {
            const snapshot = (a as StoredAlloc & { Job?: Job | null }).Job;
            return all || !job || !snapshot || snapshot.CreateIndex === job.CreateIndex;
          });
          return { body: allocs.map(allocStub), index: state.tableIndex(T.allocs) };
        },
      },
    },
  },
  {
    pattern: 'job/:id+/evaluations',
    synopsis: 'The evaluations of a job',
    blocking: [T.evals],
    methods: {
      GET: {
        access: readJob,
        handle: async (ctx) => {
          const evals = evalsOfJob(ctx.deps.state, namespaceOf(ctx), ctx.params.id!);
          return { body: evals.map(renderEval), index: ctx.deps.state.tableIndex(T.evals) };
        },
      },
    },
  },
  {
    pattern: 'job/:id+/summary',
    synopsis: "A job's allocation counts per task group",
    blocking: JOB_TABLES,
    methods: {
      /** `{JobID, Namespace, Summary: {group: {Queued, Complete, Failed, Running, Starting, Lost, Unknown}}, Children}`; 404 `job not found`. */
      GET: {
        access: readJob,
        handle: async (ctx) => {
          const job = storedJob(ctx);
          const { state } = ctx.deps;
          return {
            body: jobSummary(
              job,
              allocsOfJob(state, job.Namespace, job.ID),
              evalsOfJob(state, job.Namespace, job.ID),
              childCounts(state, job.Namespace, job.ID),
            ),
            index: state.tableIndex(...JOB_TABLES),
          };
        },
      },
    },
  },
  {
    pattern: 'job/:id+/evaluate',
    synopsis: 'Create a new evaluation of a job as it is',
    methods: {
      POST: { access: evaluateAccess, body: EvaluateBody, handle: evaluate },
      PUT: { access: evaluateAccess, body: EvaluateBody, handle: evaluate },
    },
  },
  {
    pattern: 'job/:id+/scale',
    synopsis: 'Set the count of a task group (a new job version and a job-scaling evaluation)',
    methods: {
      POST: withBody(ScaleBody, { access: inNamespace('scale-job', 'submit-job'), handle: scale }),
      PUT: withBody(ScaleBody, { access: inNamespace('scale-job', 'submit-job'), handle: scale }),
    },
  },
];

/** `POST|PUT /v1/job/:id/evaluate` (body optional: `{JobID, EvalOptions}`). @throws 400 `Job ID does not match`; 403 without `submit-job`; 404 `job not found`. */
async function evaluate(ctx: Ctx): Promise<SchedReply> {
  return writeResult(await evaluateJob(ctx.deps, namespaceOf(ctx), ctx.params.id!));
}

/**
 * `submit-job` in the request's namespace, once the optional body checked out.
 * @throws 400 `Job ID does not match` (before the ACL check, as the reference; the kernel's decoding 400s before it).
 */
function evaluateAccess(ctx: Ctx): SchedAccess {
  const jobId = ctx.input<Static<typeof EvaluateBody>>()?.JobID ?? '';
  if (jobId !== '' && jobId !== ctx.params.id) throw schedBadRequest('Job ID does not match');
  return inNamespace('submit-job')(ctx);
}

/**
 * A job itself (`GET|POST|PUT|DELETE /v1/job/:id`). Its ID may hold `/` (a dispatched or
 * periodic child: `<parent>/dispatch-…`), so it is declared after every `job/:id/<action>`
 * route (routes/index.ts): as the reference's handler, a known action suffix is the action,
 * anything else is part of the ID.
 */
export const jobCrudRoutes: readonly SchedRoute[] = [
  {
    pattern: 'job/:id+',
    synopsis: 'Read, register, stop (or with ?purge=true delete) a job',
    blocking: JOB_TABLES,
    methods: {
      /** The job with its status computed from its allocations and evaluations. */
      GET: {
        access: readJob,
        handle: async (ctx) => {
          const job = storedJob(ctx);
          const { state } = ctx.deps;
          const status = jobStatus(job, allocsOfJob(state, job.Namespace, job.ID), evalsOfJob(state, job.Namespace, job.ID));
          return { body: renderJob(job, status), index: state.tableIndex(...JOB_TABLES) };
        },
      },
      POST: { access: registerAccess, body: RegisterBody, handle: (ctx) => register(ctx, ctx.params.id!) },
      PUT: { access: registerAccess, body: RegisterBody, handle: (ctx) => register(ctx, ctx.params.id!) },
      /** `{EvalID, EvalCreateIndex, JobModifyIndex, …}`; 404 `job not found`; 403 without `submit-job`. */
      DELETE: {
        query: { purge: Type.Boolean({ description: 'Remove the job at once instead of marking it stopped.' }) },
        access: inNamespace('submit-job'),
        handle: async (ctx) => {
          const r = await deregisterJob(ctx.deps, namespaceOf(ctx), ctx.params.id!, queryBool(ctx, 'purge'));
          return writeResult(r, { VolumeEvalID: '', VolumeEvalIndex: 0 });
        },
      },
    },
  },
];
