/**
 * Every path of the PKI secrets engine (mount type `pki`; reference/secrets-engines.md §7),
 * most specific first.
 *
 * @module
 */
import type { SecretsPath } from '../types.js';
import { caPaths } from './ca.routes.js';
import { configPaths } from './config.routes.js';
import { fetchPaths } from './fetch.routes.js';
import { issuePaths } from './issue.routes.js';
import { revokePaths } from './revoke.routes.js';
import { rolePaths } from './role.routes.js';
import { tidyPaths } from './tidy.routes.js';

/** See the module doc. */
export const pkiPaths: readonly SecretsPath[] = [...caPaths, ...configPaths, ...rolePaths, ...issuePaths, ...revokePaths, ...tidyPaths, ...fetchPaths];

/** Root help of a PKI mount. */
export const pkiHelp =
  'The PKI backend issues X.509 certificates: generate a root (root/generate/internal) or an intermediate (intermediate/generate, root/sign-intermediate, intermediate/set-signed), write roles (roles/:name), then issue/:role or sign/:role; revoke, and read the CA and CRL without a token (ca/pem, crl).';
