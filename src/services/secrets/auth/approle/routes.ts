/**
 * Every path of the AppRole auth method, in match order.
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { approleLoginPaths } from './login.routes.js';
import { roleFieldPaths } from './role-field.routes.js';
import { rolePaths } from './role.routes.js';
import { secretIdPaths } from './secret-id.routes.js';
import { tidyPaths } from './tidy.routes.js';

/** The AppRole method's route table (reference/secrets.md §3.6, §4.2; the reference's AppRole API). */
export const approlePaths: readonly SecretsPath[] = [...rolePaths, ...roleFieldPaths, ...secretIdPaths, ...tidyPaths, ...approleLoginPaths];

/** Help description of an AppRole mount's root. */
export const approleHelp =
  'The AppRole auth method lets machines log in with a role ID and a secret ID. Manage roles under role/, issue secret IDs at role/<name>/secret-id (or register your own at role/<name>/custom-secret-id), look them up and destroy them by value or accessor, log in at login without a token, and clear expired secret IDs at tidy/secret-id.';
