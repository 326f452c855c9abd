/**
 * The registry of auth method types users may enable through `sys/auth`
 * (reference/secrets.md §3.6): each type's routes and root help text. The built-in
 * `token` method is not in it: it is always mounted and cannot be enabled twice.
 *
 * @module
 */
import type { SecretsPath } from '../types.js';
import { approleHelp, approlePaths } from './approle/routes.js';
import { certHelp, certPaths } from './cert/routes.js';
import { jwtHelp, jwtPaths } from './jwt/routes.js';
import { kubernetesHelp, kubernetesPaths } from './kubernetes/routes.js';
import { userpassHelp, userpassPaths } from './userpass/routes.js';

/** One auth method type: its route declarations and the description root help shows. */
export interface AuthMethod {
  readonly paths: readonly SecretsPath[];
  readonly description: string;
}

/** Auth method types by name. */
export const AUTH_METHODS: ReadonlyMap<string, AuthMethod> = new Map([
  ['userpass', { paths: userpassPaths, description: userpassHelp }],
  ['approle', { paths: approlePaths, description: approleHelp }],
  ['jwt', { paths: jwtPaths, description: jwtHelp }],
  ['oidc', { paths: jwtPaths, description: jwtHelp }],
  ['kubernetes', { paths: kubernetesPaths, description: kubernetesHelp }],
  ['cert', { paths: certPaths, description: certHelp }],
]);
