/**
 * Every path of the userpass auth method, in match order.
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { userpassLoginPaths } from './login.routes.js';
import { usersPaths } from './users.routes.js';

/** The userpass method's route table (reference/secrets.md §3.6, §4.2). */
export const userpassPaths: readonly SecretsPath[] = [...usersPaths, ...userpassLoginPaths];

/** Help description of a userpass mount's root. */
export const userpassHelp =
  'The userpass auth method lets users log in with a username and password. Manage users under users/; log in at login/<username> without a token.';
