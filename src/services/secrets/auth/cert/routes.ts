/**
 * Every path of the `cert` auth method, in match order.
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { certEntryPaths } from './certs.routes.js';
import { certConfigPaths } from './config.routes.js';
import { certLoginPaths } from './login.routes.js';

export { checkCertRenewal } from './renew.js';

/** The cert method's route table (reference: Vault `builtin/credential/cert`). */
export const certPaths: readonly SecretsPath[] = [...certConfigPaths, ...certEntryPaths, ...certLoginPaths];

/** Help description of a cert mount's root. */
export const certHelp =
  'The cert auth method logs in clients with the TLS client certificate of their connection, checked against the trusted certificates (CAs or pinned client certificates) under certs/.';
