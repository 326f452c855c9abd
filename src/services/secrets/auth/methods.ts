/**
 * The registry of auth method types users may enable through `sys/auth`
 * (reference/secrets.md §3.6): each type's routes and root help text. The built-in
 * `token` method is not in it: it is always mounted and cannot be enabled twice.
 *
 * @module
 */
import { approleHelp, approlePaths } from './approle/routes.js';
import { certHelp, certPaths, checkCertRenewal } from './cert/routes.js';
import { jwtHelp, jwtPaths } from './jwt/routes.js';
import { kubernetesHelp, kubernetesPaths } from './kubernetes/routes.js';
import type { AuthMethods } from './method.js';
import { userpassHelp, userpassPaths } from './userpass/routes.js';

/** Auth method types by name. */
export const AUTH_METHODS: AuthMethods = new Map([
  ['userpass', { paths: userpassPaths, description: userpassHelp }],
  ['approle', { paths: approlePaths, description: approleHelp }],
  ['jwt', { paths: jwtPaths, description: jwtHelp }],
  ['oidc', { paths: jwtPaths, description: jwtHelp }],
  ['kubernetes', { paths: kubernetesPaths, description: kubernetesHelp }],
  ['cert', { paths: certPaths, description: certHelp, renew: checkCertRenewal }],
]);
