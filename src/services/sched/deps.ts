/**
 * What the scheduler service's route handlers share: their dependencies and their context.
 * Who may call a route is its declaration's (access.ts). The dependencies themselves
 * ({@link SchedDeps}) are service-deps.ts, which domain code imports.
 *
 * @module
 */
import type { SchedContext } from './http.js';
import type { Identity } from './resolve.js';
import type { SchedDeps } from './service-deps.js';

// The route handlers name their dependencies through here, with their context.
export type { SchedDeps } from './service-deps.js';

/** A scheduler handler's context; `ctx.caller` is the caller its route's access rule admitted (access.ts). */
export type Ctx = SchedContext<SchedDeps, Identity>;
