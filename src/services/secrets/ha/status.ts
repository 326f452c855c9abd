/**
 * `GET /v1/sys/ha-status` (the reference's HA status: "the active node and the peers that
 * it's heard from since it became active"): the body is `{"nodes": [...]}` (also under
 * `data`, as the reference's system backend injects it at the top level, where its
 * client and `operator members` read it). It needs a token with `read` on
 * `sys/ha-status`, only the root namespace has it, and a standby (performance or not)
 * forwards it to the active server, which alone knows the standbys
 * (kernel/store/pg-ha-echo.ts).
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';
import type { SecretsPath } from '../types.js';

/** Logical paths a standby never serves itself, even a performance standby's read: only the active server can answer them. */
export const ACTIVE_ONLY_PATHS: ReadonlySet<string> = new Set(['sys/ha-status']);

/** `sys/ha-status`. */
export const haStatusPath: SecretsPath = {
  pattern: 'ha-status',
  synopsis: 'The active server and the standbys it heard from since it became active',
  operations: {
    read: {
      summary: 'Read the HA status',
      handle: async (r) => {
        // A performance standby's core has none: the path is forwarded before it gets here (handler.ts).
        if (!r.core.haStatus) throw new CairnError('unavailable', 'only the active server knows the HA status');
        return { data: { nodes: await r.core.haStatus() }, topLevel: true };
      },
    },
  },
};
