/**
 * Every path of the `sys/` mount, in match order.
 * @module
 */
import type { SecretsPath } from '../types.js';
import { authPaths } from './auth.routes.js';
import { capabilitiesPaths } from './capabilities.routes.js';
import { mountsPaths } from './mounts.routes.js';
import { policiesPaths } from './policies.routes.js';

/** The system backend's route table (more families arrive with seal, policies, auth). */
export const sysPaths: readonly SecretsPath[] = [...mountsPaths, ...policiesPaths, ...capabilitiesPaths, ...authPaths];
