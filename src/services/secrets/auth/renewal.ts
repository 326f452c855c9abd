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
import type { AuthMethods } from './method.js';

/**
 * Runs the renewal check of the auth method that issued `token`, found in `methods` (the
 * registry, auth/methods.ts, handed to the token routes); resolves at once for tokens of
 * the token method, of a mount since disabled, or of a method without a check.
 * Errors: whatever the method's check throws (4xx naming the reason).
 */
export async function checkLoginRenewal(req: SecretsRequest, token: TokenEntry, methods: AuthMethods): Promise<void> {
  if (!token.path.startsWith('auth/') || token.path.startsWith('auth/token/')) return;
  const mount = req.ns.mounts.route(token.path);
  const check = mount?.path.startsWith('auth/') ? methods.get(mount.type)?.renew : undefined;
  if (mount && check) await check({ ...req, mount, storage: req.core.storageFor(mount) }, token);
}
