/**
 * Namespaces (the reference's `command/agent/namespace_endpoint.go`, `nomad/namespace_endpoint.go`):
 *
 * ```text
 * GET          /v1/namespaces?prefix=     namespaces the token may use at all   (blocking on namespaces)
 * GET          /v1/namespace/:name        any capability in it, else 403       (blocking on namespaces)
 * POST|PUT     /v1/namespace              management; body {"Name", "Description", "Meta"}
 * POST|PUT     /v1/namespace/:name        management; body Name must be the path's
 * DELETE       /v1/namespace/:name        management; not `default`, not while it has non-terminal jobs, allocations or CSI volumes
 * ```
 *
 * Writes answer 200 with an empty body and `X-Sched-Index`, as the reference. The reference
 * answers its write failures 500; here bad input is 400, a missing namespace 404 and a
 * namespace still in use 409 (reference/README.md rule 3). Namespace writes produce no
 * events (reference/sched.md §3.4 has no namespace topic).
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import type { Indexed } from '../../../kernel/store/index.js';
import { CairnError, withBody } from '../../../kernel/http/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { clientTerminal, type StoredAlloc } from '../alloc.js';
import { jobStatusIn } from '../jobs/status.js';
import type { Job } from '../jobs/types.js';
import { multiError } from '../auth/errors.js';
import { contentHash } from '../auth/stamp.js';
import type { StoredVolume } from '../csi/volume.js';
import { ANY_CALLER, type SchedAccess, type SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { PREFIX_QUERY, queryPrefix, requireInput } from '../request.js';
import { DEFAULT_NAMESPACE, T, type NamespaceDoc } from '../state.js';

/** Valid names (the reference's `validNamespaceName`). */
const NAME = /^[a-zA-Z0-9-]{1,128}$/;
/** Longest `Description`, in bytes (the reference's `maxNamespaceDescriptionLength`). */
const MAX_NAMESPACE_DESCRIPTION_BYTES = 256;

/**
 * A namespace as the API shows it (the reference's `structs.Namespace`): `Quota` `""`,
 * `Capabilities` and `NodePoolConfiguration` null (not modelled), `Hash` the base64
 * blake2b-256 of name and description.
 */
function renderNamespace(n: NamespaceDoc & Indexed): Record<string, unknown> {
  return {
    Name: n.Name,
    Description: n.Description,
    Quota: '',
    Capabilities: null,
    NodePoolConfiguration: null,
    Meta: n.Meta ?? null,
    Hash: contentHash([n.Name, n.Description]),
    CreateIndex: n.CreateIndex,
    ModifyIndex: n.ModifyIndex,
  };
}

/** Namespace writes: a management token (anyone with ACLs off). */
const MANAGEMENT: SchedAccess = { management: true };

/** The body of a namespace write (the reference's `structs.Namespace`; `Meta` values strings). */
const NamespaceBody = Go.struct('structs.Namespace', { Name: Go.string(), Description: Go.string(), Meta: Go.map('metadata; null when absent') });
type NamespaceInput = Static<typeof NamespaceBody>;

/**
 * Creates or replaces the namespace the decoded body `body` names (the reference's
 * `namespaceUpdate` and `Namespace.UpsertNamespaces`; its route declares {@link NamespaceBody},
 * whose decoding 400s come first). `pathName` undefined: `POST|PUT /v1/namespace`. @throws 400 `Request body is empty`, `Namespace name does not match request
 * path`, `Invalid namespace "<n>": 1 error occurred:\n\t* invalid name "<n>". Must match
 * regex ^[a-zA-Z0-9-]{1,128}$\n\n` (and `description longer than 256`); 403 unless management.
 */
async function upsert(ctx: Ctx, body: NamespaceInput | undefined, pathName: string | undefined): Promise<SchedReply> {
  const { Name: name, Description: description, Meta: meta } = requireInput(body);
  if (pathName !== undefined && name !== pathName) throw schedBadRequest('Namespace name does not match request path');
  const errors: string[] = [];
  if (!NAME.test(name)) errors.push(`invalid name "${name}". Must match regex ${NAME.source}`);
  if (Buffer.byteLength(description) > MAX_NAMESPACE_DESCRIPTION_BYTES) errors.push(`description longer than ${MAX_NAMESPACE_DESCRIPTION_BYTES}`);
  if (errors.length > 0) throw schedBadRequest(`Invalid namespace "${name}": ${multiError(errors)}`);
  const { index } = await ctx.deps.state.txn((tx) => {
    tx.put<NamespaceDoc>(T.namespaces, name, { Name: name, Description: description, Meta: meta ?? null });
  });
  return writeReply(index);
}

/**
 * Deletes namespace `:name` (the reference's `Namespace.DeleteNamespaces`). @throws 400
 * `can not delete default namespace`; 404 `namespace not found`; 409 `namespace "<n>" has
 * non-terminal jobs in regions: [<region>]` (a job that is not `dead`, jobs/status.ts), `… has
 * non-terminal allocations in regions: [<region>]`, `namespace "<n>" contains at least one CSI
 * volume`; 403 unless management.
 */
async function remove(ctx: Ctx): Promise<SchedReply> {
  const name = ctx.params.name!;
  if (name === DEFAULT_NAMESPACE) throw schedBadRequest('can not delete default namespace');
  const { index } = await ctx.deps.state.txn((tx) => {
    if (!tx.get(T.namespaces, name)) throw schedNotFound('namespace not found');
    if (tx.listPrefix<Job>(T.jobs, `${name}/`).some((j) => jobStatusIn(tx, j) !== 'dead')) {
      throw new CairnError('conflict', `namespace "${name}" has non-terminal jobs in regions: [${ctx.deps.config.region}]`);
    }
    if (tx.list<StoredAlloc>(T.allocs).some((a) => a.Namespace === name && !clientTerminal(a))) {
      throw new CairnError('conflict', `namespace "${name}" has non-terminal allocations in regions: [${ctx.deps.config.region}]`);
    }
    if (tx.list<StoredVolume>(T.csiVolumes).some((v) => v.Namespace === name))
      throw new CairnError('conflict', `namespace "${name}" contains at least one CSI volume`);
    tx.delete(T.namespaces, name);
  });
  return writeReply(index);
}

/** Routes of this file (see the module doc). */
export const namespaceRoutes: readonly SchedRoute[] = [
  {
    pattern: 'namespaces',
    synopsis: 'List the namespaces the token may use; ?prefix= (name prefix)',
    blocking: [T.namespaces],
    methods: {
      /** Namespaces in name order that the token may use at all (`allowNamespace`); index at least 1, as the reference. */
      GET: {
        access: ANY_CALLER,
        query: PREFIX_QUERY,
        handle: async (ctx) => {
          const prefix = queryPrefix(ctx);
          const list = ctx.deps.state.list<NamespaceDoc>(T.namespaces).filter((n) => n.Name.startsWith(prefix) && ctx.caller.authorizer.allowNamespace(n.Name));
          return { body: list.map(renderNamespace), index: ctx.deps.state.tableIndex(T.namespaces) };
        },
      },
    },
  },
  {
    pattern: 'namespace',
    synopsis: 'Create or update the namespace the body names (management)',
    methods: {
      POST: withBody(NamespaceBody, { access: MANAGEMENT, handle: (ctx: Ctx, body) => upsert(ctx, body, undefined) }),
      PUT: withBody(NamespaceBody, { access: MANAGEMENT, handle: (ctx: Ctx, body) => upsert(ctx, body, undefined) }),
    },
  },
  {
    pattern: 'namespace/:name',
    synopsis: 'Read, create or update, or delete a namespace',
    blocking: [T.namespaces],
    methods: {
      /** The namespace; 403 unless the token may use it at all; 404 `Namespace not found`. */
      GET: {
        access: (ctx) => ({ namespaceVisible: ctx.params.name! }),
        handle: async (ctx) => {
          const n = ctx.deps.state.get<NamespaceDoc>(T.namespaces, ctx.params.name!);
          if (!n) throw schedNotFound('Namespace not found');
          return { body: renderNamespace(n), index: n.ModifyIndex };
        },
      },
      POST: withBody(NamespaceBody, { access: MANAGEMENT, handle: (ctx: Ctx, body) => upsert(ctx, body, ctx.params.name) }),
      PUT: withBody(NamespaceBody, { access: MANAGEMENT, handle: (ctx: Ctx, body) => upsert(ctx, body, ctx.params.name) }),
      DELETE: { access: MANAGEMENT, handle: remove },
    },
  },
];
