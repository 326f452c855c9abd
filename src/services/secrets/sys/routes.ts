/**
 * Every path of the `sys/` mount, in match order.
 * @module
 */
import type { EngineLookup, SecretsPath } from '../types.js';
import { auditPaths } from '../audit/routes.js';
import { authPaths } from './auth.routes.js';
import { capabilitiesPaths } from './capabilities.routes.js';
import { corsPath } from './cors.routes.js';
import { internalMountsPath } from './internal-mounts.routes.js';
import { leasesPaths } from './leases.routes.js';
import { metricsPath } from './metrics.routes.js';
import { mountsPaths } from './mounts.routes.js';
import { remountPaths } from './remount.routes.js';
import { namespacesPaths } from './namespaces.routes.js';
import { openapiSpecPath } from './openapi.routes.js';
import { policiesPaths } from './policies.routes.js';
import { wrappingPaths } from '../wrapping/wrapping.routes.js';
import { haStatusPath } from '../ha/status.js';

/**
 * The system backend's route table (the seal's own paths are in `seal.routes.ts`: they work
 * sealed). `engineOf` finds the engine of each mount the OpenAPI document describes: the
 * registry (engines.ts) holds this table, so it hands itself in.
 */
export function sysPaths(engineOf: EngineLookup): readonly SecretsPath[] {
  return [
    ...mountsPaths,
    ...remountPaths,
    ...policiesPaths,
    ...capabilitiesPaths,
    ...authPaths,
    corsPath,
    ...namespacesPaths,
    internalMountsPath,
    openapiSpecPath(engineOf),
    metricsPath,
    ...auditPaths,
    ...wrappingPaths,
    ...leasesPaths,
    haStatusPath,
  ];
}
