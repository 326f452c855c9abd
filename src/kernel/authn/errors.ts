/**
 * The one error type of the authentication kernel. Its message is the reference's text
 * (reference/mesh.md §3.4, §4.3, §4.4, §5), so a service can pass it through unchanged;
 * its `kind` tells the service which of its own statuses to answer with (the discovery
 * service answers most of them with 500, the scheduler with 400 or 401).
 *
 * @module
 */

/**
 * What failed, for the service's status mapping:
 * - `config`: an auth-method or binding config is invalid (write time);
 * - `unreachable`: the JWKS / discovery URL or the provider could not be reached (write time);
 * - `token`: a bearer token or ID token did not validate (signature, claims, audience);
 * - `claims`: a claim could not be mapped to an identity field;
 * - `bind`: a binding rule produced an invalid name;
 * - `redirect_uri`: the OIDC redirect URI is missing or not allowed;
 * - `oidc_state`: the OIDC state is unknown, expired or its client nonce does not match;
 * - `oidc_exchange`: the provider refused the code or could not be reached at callback;
 * - `lookup`: the Kubernetes TokenReview or ServiceAccount lookup failed or said no.
 */
export type AuthnErrorKind = 'config' | 'unreachable' | 'token' | 'claims' | 'bind' | 'redirect_uri' | 'oidc_state' | 'oidc_exchange' | 'lookup';

/** An authentication failure whose message is the reference's text; see {@link AuthnErrorKind}. */
export class AuthnError extends Error {
  constructor(
    readonly kind: AuthnErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AuthnError';
  }
}

/** The message of anything thrown, for wrapping into a reference text (`error verifying token: <msg>`). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
