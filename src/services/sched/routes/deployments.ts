/**
 * Deployments (issue 29 item 1; the reference's deployments HTTP API; contract 29 "Server";
 * deployments/):
 *
 * ```text
 * GET      /v1/deployments?prefix=&namespace=                   read-job (namespace `*`: those readable)  newest first (blocking)
 * GET      /v1/deployment/:id                                    read-job in its namespace    404 "deployment not found" (blocking)
 * GET      /v1/deployment/allocations/:id                        read-job in its namespace    allocation stubs (blocking)
 * POST|PUT /v1/deployment/promote/:id  {DeploymentID, All, Groups}                submit-job   DeploymentPromotion
 * POST|PUT /v1/deployment/fail/:id     {DeploymentID}                             submit-job   DeploymentStatusUpdate
 * POST|PUT /v1/deployment/pause/:id    {DeploymentID, Pause}                      submit-job   DeploymentStatusUpdate
 * POST|PUT /v1/deployment/allocation-health/:id {DeploymentID, HealthyAllocationIDs, UnhealthyAllocationIDs}  submit-job  DeploymentAllocHealth
 * GET      /v1/job/:id/deployments?all=                          read-job    the job's, newest first (blocking)
 * GET      /v1/job/:id/deployment                                read-job    the latest, or null (blocking)
 * ```
 *
 * Writes answer the reference's `DeploymentUpdateResponse` (`EvalID`, `EvalCreateIndex`,
 * `DeploymentModifyIndex`, `RevertedJobVersion`, `Index`).
 *
 * @module
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { ALL_NAMESPACES } from '../acl/index.js';
import { ANY_CALLER, type SchedAccess, type SchedRoute } from '../access.js';
import { allocStub } from '../alloc.js';
import type { Ctx, SchedDeps } from '../deps.js';
import type { Identity } from '../resolve.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { deploymentAllocs, type StoredDeployment } from '../deployments/doc.js';
import {
  deploymentNotFound,
  failDeployment,
  pauseDeployment,
  promoteDeployment,
  setAllocHealth,
  type DeploymentUpdateResponse,
} from '../deployments/operations.js';
import { PREFIX_QUERY, queryUuidPrefix, requireInput } from '../request.js';
import { T } from '../state.js';
import { namespaceOf, readJob } from './job-common.js';

/** Deployment `:id`. @throws 404 `deployment not found`. */
function stored(ctx: Ctx): StoredDeployment {
  const d = ctx.deps.state.get<StoredDeployment>(T.deployments, ctx.params.id!);
  if (!d) throw deploymentNotFound();
  return d;
}

/** `capability` in the namespace of deployment `:id` (looked up once the token resolved; 404 first for an unknown one). */
const inItsNamespace =
  (capability: 'read-job' | 'submit-job') =>
  (ctx: Ctx): SchedAccess => ({ namespace: () => stored(ctx).Namespace, anyOf: [capability] });

/** Newest first (the reference lists by create index, descending). */
const newestFirst = (ds: StoredDeployment[]) => ds.sort((x, y) => y.CreateIndex - x.CreateIndex);

/** `GET /v1/deployments`: of `?namespace=` (`*`: every namespace the token may read `read-job` in), IDs starting with `?prefix=`. */
function list(ctx: Ctx): SchedReply {
  const namespace = namespaceOf(ctx);
  const prefix = queryUuidPrefix(ctx);
  const readable = (ns: string) => ctx.caller.authorizer.allowNamespaceOperation(ns, 'read-job');
  const ds = ctx.deps.state
    .list<StoredDeployment>(T.deployments)
    .filter((d) => (namespace === ALL_NAMESPACES ? readable(d.Namespace) : d.Namespace === namespace) && d.ID.startsWith(prefix));
  return { body: newestFirst(ds), index: ctx.deps.state.tableIndex(T.deployments) };
}

/** The job's deployments (`:id` in `?namespace=`), newest first. */
const ofJob = (ctx: Ctx): StoredDeployment[] =>
  newestFirst(ctx.deps.state.listBy<StoredDeployment>(T.deployments, 'job', `${namespaceOf(ctx)}/${ctx.params.id!}`));

/** A write's reply with the query meta. */
const reply = (r: DeploymentUpdateResponse): SchedReply => ({ body: { ...r, KnownLeader: true, LastContact: 0 }, index: r.Index });

/** The body's `DeploymentID` must be the path's (empty is the path's). @throws 400 `Deployment ID does not match`. */
function checkId(ctx: Ctx, id: string): void {
  if (id !== '' && id !== ctx.params.id) throw schedBadRequest('Deployment ID does not match');
}

const PromoteBody = Go.struct('api.DeploymentPromoteRequest', {
  DeploymentID: Go.string("the path's deployment ID"),
  All: Go.bool('promote every group with canaries'),
  Groups: Go.any('the groups to promote (array of names, or null)'),
});
const FailBody = Go.struct('api.DeploymentFailRequest', { DeploymentID: Go.string("the path's deployment ID") });
const PauseBody = Go.struct('api.DeploymentPauseRequest', {
  DeploymentID: Go.string("the path's deployment ID"),
  Pause: Go.bool('true pauses, false resumes'),
});
const HealthBody = Go.struct('api.DeploymentAllocHealthRequest', {
  DeploymentID: Go.string("the path's deployment ID"),
  HealthyAllocationIDs: Go.any('allocation IDs to mark healthy (array or null)'),
  UnhealthyAllocationIDs: Go.any('allocation IDs to mark unhealthy (array or null)'),
});

/** A list of strings from the body at `field`, null meaning none. @throws 400 `json: cannot unmarshal … into Go struct field <field> of type []string`. */
function stringList(v: unknown, field: string): string[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v) || v.length > 10_000 || v.some((x) => typeof x !== 'string'))
    throw schedBadRequest(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go struct field ${field} of type []string`);
  return v as string[];
}

async function promote(ctx: Ctx, input: Static<typeof PromoteBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  checkId(ctx, body.DeploymentID);
  const groups = stringList(body.Groups, 'DeploymentPromoteRequest.Groups');
  return reply(await promoteDeployment(ctx.deps, ctx.params.id!, body.All || groups.length === 0 ? undefined : groups));
}

async function fail(ctx: Ctx, input: Static<typeof FailBody> | undefined): Promise<SchedReply> {
  checkId(ctx, input?.DeploymentID ?? '');
  return reply(await failDeployment(ctx.deps, ctx.params.id!));
}

async function pause(ctx: Ctx, input: Static<typeof PauseBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  checkId(ctx, body.DeploymentID);
  return reply(await pauseDeployment(ctx.deps, ctx.params.id!, body.Pause));
}

async function allocHealth(ctx: Ctx, input: Static<typeof HealthBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  checkId(ctx, body.DeploymentID);
  const healthy = stringList(body.HealthyAllocationIDs, 'DeploymentAllocHealthRequest.HealthyAllocationIDs');
  const unhealthy = stringList(body.UnhealthyAllocationIDs, 'DeploymentAllocHealthRequest.UnhealthyAllocationIDs');
  return reply(await setAllocHealth(ctx.deps, ctx.params.id!, healthy, unhealthy));
}

/** A write of deployment `:id` (POST and PUT, `submit-job` in its namespace). */
function writeRoute<S extends TObject>(
  pattern: string,
  synopsis: string,
  body: S,
  handle: (ctx: Ctx, input: Static<S> | undefined) => Promise<SchedReply>,
): SchedRoute {
  const op = withBody<S, SchedDeps, SchedAccess, Identity>(body, { access: inItsNamespace('submit-job'), handle });
  return { pattern, synopsis, methods: { POST: op, PUT: op } };
}

/** Routes of this file (see the module doc), before the job routes (`job/:id+` takes any rest). */
export const deploymentRoutes: readonly SchedRoute[] = [
  {
    pattern: 'deployments',
    synopsis: 'List deployments, newest first; ?namespace= (`*`: every namespace the token may read), ?prefix= (ID prefix)',
    blocking: [T.deployments],
    methods: {
      GET: {
        access: (ctx) => (namespaceOf(ctx) === ALL_NAMESPACES ? ANY_CALLER : { namespace: namespaceOf(ctx), anyOf: ['read-job'] }),
        query: PREFIX_QUERY,
        handle: async (ctx) => list(ctx),
      },
    },
  },
  {
    pattern: 'deployment/allocations/:id',
    synopsis: 'The allocations a deployment placed, as stubs',
    blocking: [T.allocs, T.deployments],
    methods: {
      GET: {
        access: inItsNamespace('read-job'),
        handle: async (ctx) => {
          const d = stored(ctx);
          return { body: deploymentAllocs(ctx.deps.state, d).map(allocStub), index: ctx.deps.state.tableIndex(T.allocs) };
        },
      },
    },
  },
  writeRoute('deployment/promote/:id', "Promote a deployment's canaries (all groups, or the named ones)", PromoteBody, promote),
  writeRoute('deployment/fail/:id', 'Mark a deployment failed (auto-reverting when its groups ask)', FailBody, fail),
  writeRoute('deployment/pause/:id', 'Pause or resume a deployment', PauseBody, pause),
  writeRoute('deployment/allocation-health/:id', "Set the health of a deployment's allocations by hand", HealthBody, allocHealth),
  {
    pattern: 'deployment/:id',
    synopsis: 'Read a deployment',
    blocking: [T.deployments],
    methods: {
      GET: {
        access: inItsNamespace('read-job'),
        handle: async (ctx) => {
          const d = stored(ctx);
          return { body: d, index: d.ModifyIndex };
        },
      },
    },
  },
  {
    pattern: 'job/:id+/deployments',
    synopsis: "A job's deployments, newest first",
    blocking: [T.deployments],
    methods: {
      GET: {
        access: readJob,
        query: { all: Type.Boolean({ description: 'Also the deployments of earlier jobs of this ID (Cairn keeps them with the job).' }) },
        handle: async (ctx) => ({ body: ofJob(ctx), index: ctx.deps.state.tableIndex(T.deployments) }),
      },
    },
  },
  {
    pattern: 'job/:id+/deployment',
    synopsis: "A job's latest deployment, or null",
    blocking: [T.deployments],
    methods: {
      GET: {
        access: readJob,
        handle: async (ctx) => ({ body: ofJob(ctx)[0] ?? null, index: ctx.deps.state.tableIndex(T.deployments) }),
      },
    },
  },
];
