/**
 * Status mapping of the authentication kernel's errors for the secrets service's login
 * methods: the reference answers a bad token, bad claims or a failed OIDC exchange with
 * 400 and its text, and a failed Kubernetes review with 403 `permission denied`.
 *
 * @module
 */
import { AuthnError } from '../../../kernel/authn/index.js';
import { badRequest, forbidden } from '../../../kernel/http/index.js';

/**
 * Rethrows `err` as the service error a client sees: a kernel `token` error as
 * `<tokenPrefix><message>` (400), `lookup` as 403, `unreachable` as
 * `error configuring token validator: …` (400), any other kernel error as its text (400).
 * Anything else is rethrown unchanged.
 */
export function rethrowAuthn(err: unknown, tokenPrefix = 'error validating token: '): never {
  if (!(err instanceof AuthnError)) throw err;
  switch (err.kind) {
    case 'token':
      throw badRequest(tokenPrefix + err.message);
    case 'lookup':
      throw forbidden();
    case 'unreachable':
      throw badRequest(`error configuring token validator: ${err.message}`);
    default:
      throw badRequest(err.message);
  }
}
