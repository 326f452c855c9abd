/**
 * Replication endpoints (Cairn's; the reference replicates over server RPC, reference/sched.md
 * §2.3): the authoritative region serves whole ACL documents to other regions' replicators,
 * and every region reports its replication status.
 *
 * @module
 */
import { REPLICATED, REPLICATED_KINDS, type ReplicatedKind } from '../replication.js';
import { ACL_MANAGEMENT, type SchedRoute } from '../access.js';
import { atLeastOne } from '../http.js';
import type { TokenDoc } from '../state.js';

/**
 * `GET /v1/internal/acl/replicate/<kind>` for each kind of {@link REPLICATED} (`policies`,
 * `roles`, `tokens` — global ones only —, `auth-methods`, `binding-rules`): an array of
 * the stored documents as they are, `X-Sched-Index` = that table's index (blocking on it).
 * @throws 400 `ACL support disabled`; 403 `Permission denied` (not management).
 */
function replicateRoute(kind: ReplicatedKind): SchedRoute {
  const { table } = REPLICATED[kind];
  return {
    pattern: `internal/acl/replicate/${kind}`,
    synopsis: `Every replicated ${kind} document, secrets included (management token; blocking)`,
    blocking: [table],
    methods: {
      GET: {
        access: ACL_MANAGEMENT,
        handle: async (ctx) => {
          const docs = ctx.deps.state.list<Record<string, unknown>>(table);
          const body = kind === 'tokens' ? docs.filter((d) => (d as unknown as TokenDoc).Global) : docs;
          return { body, index: ctx.deps.state.tableIndex(table) };
        },
      },
    },
  };
}

/** Routes of this file. */
export const replicationRoutes: readonly SchedRoute[] = [
  ...REPLICATED_KINDS.map(replicateRoute),
  {
    pattern: 'acl/replication',
    synopsis: "This region's ACL replication status",
    methods: {
      /**
       * `GET /v1/acl/replication`: `{Enabled, Running, SourceRegion, ReplicatedIndexes,
       * LastSuccess, LastError, LastErrorMessage}`; `Enabled: false` in the authoritative
       * region. Only the leader of a region sharing a state replicates: a follower forwards
       * to it. @throws 400 `ACL support disabled`; 403 (not management); 500 `No cluster leader`.
       */
      GET: {
        access: ACL_MANAGEMENT,
        forward: (ctx) => (ctx.deps.replicator ? 'leader' : undefined),
        handle: async (ctx) => {
          const body = ctx.deps.replicator?.status() ?? {
            Enabled: false,
            Running: false,
            SourceRegion: '',
            ReplicatedIndexes: {},
            LastSuccess: '',
            LastError: '',
            LastErrorMessage: '',
          };
          return { body, index: atLeastOne(ctx.deps.state.index) };
        },
      },
    },
  },
];
