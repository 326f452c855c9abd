/**
 * The registry of auth method types users may enable through `sys/auth`
 * (reference/secrets.md §3.6): each type's routes and root help text. The built-in
 * `token` method is not in it: it is always mounted and cannot be enabled twice.
 *
 * @module
 */
import type { TokenEntry } from '../token/store.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { approleHelp, approlePaths } from './approle/routes.js';
import { certHelp, certPaths, checkCertRenewal } from './cert/routes.js';
import { jwtHelp, jwtPaths } from './jwt/routes.js';
import { kubernetesHelp, kubernetesPaths } from './kubernetes/routes.js';
import { userpassHelp, userpassPaths } from './userpass/routes.js';

/**
 * What a method checks before a token it issued is renewed (the reference's auth
 * `renew` callbacks): `req` is the renewal request re-targeted at the method's mount
 * (`mount`, `storage`). Throws (a 4xx) to refuse the renewal.
 */
export type RenewalCheck = (req: SecretsRequest, token: TokenEntry) => Promise<void>;

/** One auth method type: its route declarations, the description root help shows, its renewal check. */
export interface AuthMethod {
  readonly paths: readonly SecretsPath[];
  readonly description: string;
  readonly renew?: RenewalCheck;
}

/** Auth method types by name. */
export const AUTH_METHODS: ReadonlyMap<string, AuthMethod> = new Map([
  ['userpass', { paths: userpassPaths, description: userpassHelp }],
  ['approle', { paths: approlePaths, description: approleHelp }],
  ['jwt', { paths: jwtPaths, description: jwtHelp }],
  ['oidc', { paths: jwtPaths, description: jwtHelp }],
  ['kubernetes', { paths: kubernetesPaths, description: kubernetesHelp }],
  ['cert', { paths: certPaths, description: certHelp, renew: checkCertRenewal }],
]);
