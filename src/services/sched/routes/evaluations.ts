/**
 * Evaluations (reference/sched-workloads.md "Evaluations and placement"): what the jobs API,
 * node changes and the scheduler write to `T.evals`, read here.
 *
 * ```text
 * GET /v1/evaluations?namespace=&prefix=&status=&job=&filter=&per_page=&next_token=   read-job  (blocking)
 * GET /v1/evaluation/:id                                                              read-job  (blocking)
 * GET /v1/evaluation/:id/allocations                                                  read-job  (blocking)
 * ```
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { ALL_NAMESPACES } from '../acl/index.js';
import { allocStub, type StoredAlloc } from '../alloc.js';
import { ANY_CALLER, type SchedAccess, type SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, type SchedReply } from '../http.js';
import { renderEval } from '../jobs/render.js';
import type { Evaluation } from '../jobs/types.js';
import { compileListFilter, nextTokenHeader, paginate } from '../paginate.js';
import { PAGED_QUERY, PREFIX_QUERY, queryPerPage, queryUuidPrefix } from '../request.js';
import { DEFAULT_NAMESPACE, T } from '../state.js';

/** A `<CreateIndex>.<ID>` token as its two parts (the reference's `CreateIndexAndIDTokenizer`). */
function tokenParts(t: string): [number, string] {
  const dot = t.indexOf('.');
  return dot < 0 ? [Number(t) || 0, ''] : [Number(t.slice(0, dot)) || 0, t.slice(dot + 1)];
}

/** Does token `a` sort before token `b` (create index as a number, then ID)? */
function tokenBefore(a: string, b: string): boolean {
  const [ai, aid] = tokenParts(a);
  const [bi, bid] = tokenParts(b);
  return ai < bi || (ai === bi && aid < bid);
}

/**
 * `GET /v1/evaluations`: evaluations oldest first (create index, then ID; token
 * `<CreateIndex>.<ID>`), narrowed by `prefix` (UUID prefix rule), `status`, `job` (job ID) or
 * `filter` (over the evaluation as read), paged. One namespace needs `read-job` there;
 * `*` lists every namespace where the token has it.
 * @throws 400 `Filter expression cannot be used with other filter parameters` (the
 *   reference's text, for `filter` with `status` or `job`); filter, prefix and paging errors.
 */
async function listEvals(ctx: Ctx): Promise<SchedReply> {
  const who = ctx.caller;
  const ns = namespaceOf(ctx);
  const status = ctx.query.get('status') ?? '';
  const jobId = ctx.query.get('job') ?? '';
  const filterText = ctx.query.get('filter');
  if (filterText && (status !== '' || jobId !== '')) throw schedBadRequest('Filter expression cannot be used with other filter parameters');
  const filter = compileListFilter(filterText);
  const prefix = queryUuidPrefix(ctx);
  const perPage = queryPerPage(ctx);
  const { state } = ctx.deps;
  const readable = new Map<string, boolean>();
  const mayRead = (n: string) => {
    let ok = readable.get(n);
    if (ok === undefined) readable.set(n, (ok = who.authorizer.allowNamespaceOperation(n, 'read-job')));
    return ok;
  };
  const evals = state
    .list<Evaluation>(T.evals)
    .filter((e) => (ns === ALL_NAMESPACES ? mayRead(e.Namespace) : e.Namespace === ns))
    .filter((e) => e.ID.startsWith(prefix) && (status === '' || e.Status === status) && (jobId === '' || e.JobID === jobId))
    .sort((a, b) => a.CreateIndex - b.CreateIndex || (a.ID < b.ID ? -1 : 1));
  const page = paginate({
    items: evals,
    tokenOf: (e) => `${e.CreateIndex}.${e.ID}`,
    before: tokenBefore,
    perPage,
    nextToken: ctx.query.get('next_token') ?? '',
    filter,
    filterOn: renderEval,
  });
  return { body: page.items.map(renderEval), index: state.tableIndex(T.evals), headers: nextTokenHeader(page.nextToken) };
}

/** The request's `?namespace=` (default `default`; `*`: every namespace). */
const namespaceOf = (ctx: Ctx) => ctx.query.get('namespace') || DEFAULT_NAMESPACE;

/** `read-job` in the namespace; for `*`, any caller, the list showing the namespaces where it has it. */
const listAccess = (ctx: Ctx): SchedAccess => (namespaceOf(ctx) === ALL_NAMESPACES ? ANY_CALLER : { namespace: namespaceOf(ctx), anyOf: ['read-job'] });

/** The evaluation `:id`. @throws 404 `eval not found`. */
function storedEval(ctx: Ctx): Evaluation & { CreateIndex: number; ModifyIndex: number } {
  const e = ctx.deps.state.get<Evaluation>(T.evals, ctx.params.id!);
  if (!e) throw schedNotFound('eval not found');
  return e;
}

/** `read-job` in the namespace of evaluation `:id`, looked up once the token resolved (its 404 then). */
const evalAccess = (ctx: Ctx): SchedAccess => ({ namespace: () => storedEval(ctx).Namespace, anyOf: ['read-job'] });

/** Routes of this file (see the module doc). */
export const evaluationRoutes: readonly SchedRoute[] = [
  {
    pattern: 'evaluations',
    synopsis: 'List evaluations (?namespace=, `*`; ?prefix=, ?status=, ?job=, ?filter=, paging)',
    blocking: [T.evals],
    methods: {
      GET: {
        access: listAccess,
        query: {
          ...PREFIX_QUERY,
          ...PAGED_QUERY,
          status: Type.String({ description: 'Only evaluations in this status (not with `filter`).' }),
          job: Type.String({ description: 'Only the evaluations of this job ID (not with `filter`).' }),
        },
        handle: listEvals,
      },
    },
  },
  {
    pattern: 'evaluation/:id',
    synopsis: 'Read an evaluation',
    blocking: [T.evals],
    methods: {
      GET: {
        access: evalAccess,
        handle: async (ctx) => {
          const e = storedEval(ctx);
          return { body: renderEval(e), index: e.ModifyIndex };
        },
      },
    },
  },
  {
    pattern: 'evaluation/:id/allocations',
    synopsis: 'The allocations an evaluation placed, as stubs',
    blocking: [T.allocs, T.evals],
    methods: {
      GET: {
        access: evalAccess,
        handle: async (ctx) => {
          const e = storedEval(ctx);
          const allocs = ctx.deps.state.list<StoredAlloc>(T.allocs).filter((a) => a.EvalID === e.ID);
          return { body: allocs.map(allocStub), index: ctx.deps.state.tableIndex(T.allocs, T.evals) };
        },
      },
    },
  },
];
