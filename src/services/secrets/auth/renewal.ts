/**
 * The auth method's say when a login token is renewed: the token's creating mount
 * (its `path`, e.g. `auth/cert/login`) is found in the request's namespace and its
 * method's {@link RenewalCheck} runs, if it has one (today: `cert`, which wants the
 * login's certificate again).
 *
 * @module
 */
import type { TokenEntry } from '../token/store.js';
import type { SecretsRequest } from '../types.js';
import { AUTH_METHODS } from './methods.js';

/**
 * Runs the renewal check of the auth method that issued `token`; resolves at once for
 * tokens of the token method, of a mount since disabled, or of a method without a check.
 * Errors: whatever the method's check throws (4xx naming the reason).
 */
export async function checkLoginRenewal(req: SecretsRequest, token: TokenEntry): Promise<void> {
  if (!token.path.startsWith('auth/') || token.path.startsWith('auth/token/')) return;
  const mount = req.ns.mounts.route(token.path);
  const check = mount?.path.startsWith('auth/') ? AUTH_METHODS.get(mount.type)?.renew : undefined;
  if (mount && check) await check({ ...req, mount, storage: req.core.storageFor(mount) }, token);
}
