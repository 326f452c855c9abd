/**
 * Every path of the `jwt` / `oidc` auth method (one method under two type names, as in
 * the reference), in match order.
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { jwtConfigPaths } from './config.routes.js';
import { jwtLoginPaths } from './login.routes.js';
import { jwtOidcPaths } from './oidc.routes.js';
import { jwtRolePaths } from './role.routes.js';

/** The jwt method's route table (reference: vault-plugin-auth-jwt). */
export const jwtPaths: readonly SecretsPath[] = [...jwtConfigPaths, ...jwtRolePaths, ...jwtLoginPaths, ...jwtOidcPaths];

/** Help description of a jwt/oidc mount's root. */
export const jwtHelp =
  'The JWT/OIDC auth method logs in workloads with a signed JWT (login) and people through an OpenID provider in the browser (oidc/auth_url, oidc/callback). Configure keys and the OIDC client under config/, roles under role/.';
