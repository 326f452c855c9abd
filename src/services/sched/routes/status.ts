/**
 * Status routes: `GET /v1/status/leader`, `GET /v1/status/peers`, `GET /v1/regions`
 * (the reference's status and regions endpoints; no ACL). An agent alone (SQLite) is its
 * region's only server and its own leader. Servers sharing a state on PostgreSQL
 * (`storage "postgresql"`) report the one holding the leadership, as its advertised
 * `host:port` (`advertise.http`); they know no other membership than that.
 *
 * @module
 */
import { PUBLIC } from '../../../kernel/http/index.js';
import type { SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';

/** The leader's `host:port`: this agent alone or leading, else the one the shared state names; undefined when none is known. */
function leaderAddress(ctx: Ctx): string | undefined {
  const { leadership, advertise } = ctx.deps;
  return !leadership || leadership.isLeader ? advertise.address : leadership.leaderAddress;
}

/** Routes of this file. */
export const statusRoutes: readonly SchedRoute[] = [
  {
    pattern: 'status/leader',
    synopsis: "The address of the region's leader",
    methods: {
      /** `GET /v1/status/leader`: the leader's `host:port` as a JSON string; `""` when no leader is known. */
      GET: { access: PUBLIC, handle: async (ctx) => ({ body: leaderAddress(ctx) ?? '' }) },
    },
  },
  {
    pattern: 'status/peers',
    synopsis: "The region's servers this agent knows",
    methods: {
      /**
       * `GET /v1/status/peers`: the `host:port` of the servers this agent knows in its region,
       * sorted: the leader and this agent (one entry alone or leading); `[]` when no leader is
       * known (the region cannot serve writes).
       */
      GET: {
        access: PUBLIC,
        handle: async (ctx) => {
          const leader = leaderAddress(ctx);
          return { body: leader === undefined ? [] : [...new Set([leader, ctx.deps.advertise.address])].sort() };
        },
      },
    },
  },
  {
    pattern: 'regions',
    synopsis: 'Every region this agent knows, sorted',
    methods: { GET: { access: PUBLIC, handle: async (ctx) => ({ body: [ctx.deps.config.region, ...Object.keys(ctx.deps.config.regionAddresses)].sort() }) } },
  },
];
