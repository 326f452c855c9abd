/**
 * Dispatching a parameterized job (issue 29 item 4; the reference's `Job.Dispatch`,
 * jobs/parameterized.ts):
 *
 * ```text
 * POST|PUT /v1/job/:id/dispatch  {JobID, Payload (base64), Meta, IdPrefixTemplate}  dispatch-job  JobRegistered
 * ```
 *
 * @module
 */
import { withBody } from '../../../kernel/http/index.js';
import type { Static } from '@sinclair/typebox';
import type { SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, type SchedReply } from '../http.js';
import { dispatchJob } from '../jobs/dispatch.js';
import { requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { inNamespace, namespaceOf } from './job-common.js';

/** The body of a dispatch (the reference's `api.JobDispatchRequest`). */
const DispatchBody = Go.struct('api.JobDispatchRequest', {
  JobID: Go.string("the path's job ID, or empty"),
  Payload: Go.string('the payload in base64 (at most 16 KiB decoded)'),
  Meta: Go.map('meta keys of the parameterized block'),
  IdPrefixTemplate: Go.string('accepted, not used: the child ID is <job>/dispatch-<unix>-<8 hex>'),
});

/** `POST|PUT /v1/job/:id/dispatch` → `{DispatchedJobID, EvalID, EvalCreateIndex, JobCreateIndex, Index}`. @throws the errors of `dispatchJob`; 400 `JobID in payload did not match URL`. */
async function dispatch(ctx: Ctx, input: Static<typeof DispatchBody> | undefined): Promise<SchedReply> {
  const body = requireInput(input);
  if (body.JobID !== '' && body.JobID !== ctx.params.id) throw schedBadRequest('JobID in payload did not match URL');
  const r = await dispatchJob(ctx.deps, namespaceOf(ctx), ctx.params.id!, { payload: body.Payload, meta: (body.Meta as Record<string, string> | null) ?? {} });
  return { body: { ...r, KnownLeader: true, LastContact: 0 }, index: r.Index };
}

/** Routes of this file (see the module doc). */
export const jobDispatchRoutes: readonly SchedRoute[] = [
  {
    pattern: 'job/:id+/dispatch',
    synopsis: 'Dispatch a parameterized job: a child job with the payload and meta given',
    methods: {
      POST: withBody(DispatchBody, { access: inNamespace('dispatch-job'), handle: dispatch }),
      PUT: withBody(DispatchBody, { access: inNamespace('dispatch-job'), handle: dispatch }),
    },
  },
];
