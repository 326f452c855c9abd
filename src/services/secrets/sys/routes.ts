/**
 * Every path of the `sys/` mount, in match order.
 * @module
 */
import type { SecretsPath } from '../types.js';
import { mountsPaths } from './mounts.routes.js';

/** The system backend's route table (more families arrive with seal, policies, auth). */
export const sysPaths: readonly SecretsPath[] = [...mountsPaths];
