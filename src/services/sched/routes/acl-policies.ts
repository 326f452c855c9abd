/** PLACEHOLDER: filled in by its owner. @module */
import type { SchedDeps } from '../deps.js';
import type { SchedRoute } from '../http.js';

/** Routes of this file. */
export const aclPolicyRoutes: readonly SchedRoute<SchedDeps>[] = [];
