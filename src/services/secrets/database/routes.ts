/**
 * The database secrets engine (mount type `database`, PostgreSQL plugin only;
 * reference/secrets-engines.md §5): its paths, its lease callbacks and its periodic
 * static-role rotation.
 *
 * @module
 */
import type { SecretsPath } from '../types.js';
import { configPaths } from './config.routes.js';
import { rolePaths } from './role.routes.js';

export { credsLeases as databaseLeases } from './creds.js';
export { rotateDue as databasePeriodic } from './rotation.js';

/** Every path of the database engine. */
export const databasePaths: readonly SecretsPath[] = [...configPaths, ...rolePaths];

/** Root help of a database mount. */
export const databaseHelp =
  'The database backend issues database credentials dynamically (creds/), each a user under a lease removed when the lease ends, and rotates the passwords of existing users (static-roles/). PostgreSQL only (postgresql-database-plugin).';
