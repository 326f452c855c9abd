/**
 * Every path of the transit engine (mount type `transit`, reference/secrets-engines.md §6:
 * encryption as a service — keys never leave the engine unless made exportable).
 *
 * @module
 */
import type { SecretsPath } from '../types.js';
import { configPaths } from './config.routes.js';
import { cryptPaths } from './crypt.routes.js';
import { exportPaths } from './export.routes.js';
import { keyPaths } from './keys.routes.js';
import { signPaths } from './sign.routes.js';
import { utilPaths } from './util.routes.js';

/** The route table of a transit mount. */
export const transitPaths: readonly SecretsPath[] = [...keyPaths, ...cryptPaths, ...signPaths, ...utilPaths, ...exportPaths, ...configPaths];

/** Root help of a transit mount. */
export const transitHelp =
  'The transit engine encrypts, decrypts, signs and HMACs data with named keys that never leave it: encrypt/ and decrypt/ with keys/ to manage the keys, sign/ and verify/, hmac/, datakey/, hash/ and random/.';
