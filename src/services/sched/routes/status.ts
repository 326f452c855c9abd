/**
 * Status routes: `GET /v1/status/leader`, `GET /v1/status/peers`, `GET /v1/regions`
 * (the reference's status and regions endpoints; no ACL). Every Cairn scheduler agent is
 * its region's only server, so it is its own leader.
 *
 * @module
 */
import type { Ctx, SchedDeps } from '../deps.js';
import type { SchedRoute } from '../http.js';

/** `host:port` this agent serves on, as the reference reports its leader's RPC address. */
function selfAddress(ctx: Ctx): string {
  return ctx.deps.advertise.address;
}

/** Routes of this file. */
export const statusRoutes: readonly SchedRoute<SchedDeps>[] = [
  {
    pattern: 'status/leader',
    synopsis: 'The address of the region\'s leader (this agent)',
    methods: { GET: async (ctx) => ({ body: selfAddress(ctx) }) },
  },
  {
    pattern: 'status/peers',
    synopsis: 'The region\'s servers',
    methods: { GET: async (ctx) => ({ body: [selfAddress(ctx)] }) },
  },
  {
    pattern: 'regions',
    synopsis: 'Every region this agent knows, sorted',
    methods: { GET: async (ctx) => ({ body: [ctx.deps.config.region, ...Object.keys(ctx.deps.config.regionAddresses)].sort() }) },
  },
];
