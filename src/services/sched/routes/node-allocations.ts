/**
 * `GET /v1/node/:id/allocations` (the reference's route; its clients watch the same set over
 * the `Node.GetAllocs` RPC): every allocation placed on node `:id`, in full, with the job
 * snapshot each one runs (`Job`) and its `TaskStates`. A blocking query on the allocations
 * table (`?index=&wait=`): the client agent watches its allocations with it.
 *
 * Authorised by the node's own `SecretID` in `X-Sched-Token` (node-secret.ts) or a token
 * with `node:read`. Only the node itself, by its secret, gets each allocation's
 * `SignedIdentities` (its tasks' default identity JWTs, keyring/alloc-identities.ts): they
 * are credentials, and a `node:read` token is not the workload's.
 *
 * @module
 */
import { renderAlloc, type StoredAlloc } from '../alloc.js';
import type { SchedRoute } from '../access.js';
import { schedNotFound } from '../http.js';
import type { PlacedAllocFields } from '../jobs/types.js';
import { T, type NodeDoc } from '../state.js';
import type { Indexed } from '../../../kernel/store/index.js';
import { isNodeSecret } from '../node-secret.js';

/** A stored allocation that may carry the placed fields (jobs/types.ts). */
export type FullAlloc = StoredAlloc & Partial<PlacedAllocFields> & Indexed;

/** An allocation as the node's allocation list shows it: {@link renderAlloc} with the job snapshot, task states and resources. */
export function renderFullAlloc(a: FullAlloc): Record<string, unknown> {
  return {
    ...renderAlloc(a),
    Job: a.Job ?? null,
    TaskStates: a.TaskStates ?? null,
    AllocatedResources: a.AllocatedResources ?? null,
    AllocModifyIndex: a.AllocModifyIndex ?? a.ModifyIndex,
  };
}

/** Routes of this file. */
export const nodeAllocationRoutes: readonly SchedRoute[] = [
  {
    pattern: 'node/:id/allocations',
    synopsis: 'List the allocations of a node, in full (the client agent watches it)',
    blocking: [T.allocs],
    methods: {
      /**
       * The node's allocations in ID order ({@link renderFullAlloc}); `X-Sched-Index` the
       * allocations table's index. @throws 404 `node not found`.
       */
      GET: {
        access: (ctx) => ({ node: 'read', or: { node: ctx.params.id! } }),
        handle: async (ctx) => {
          const nodeId = ctx.params.id!;
          if (!ctx.deps.state.get<NodeDoc>(T.nodes, nodeId)) throw schedNotFound('node not found');
          const allocs = ctx.deps.state.list<FullAlloc>(T.allocs).filter((a) => a.NodeID === nodeId);
          const own = isNodeSecret(ctx, nodeId);
          const body = allocs.map((a) => (own && a.SignedIdentities ? { ...renderFullAlloc(a), SignedIdentities: a.SignedIdentities } : renderFullAlloc(a)));
          return { body, index: ctx.deps.state.tableIndex(T.allocs) };
        },
      },
    },
  },
];
