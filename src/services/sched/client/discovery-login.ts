/**
 * Logging workloads in at the discovery service's JWT auth method (issue 27 scope 4;
 * reference/integration.md §4, the reference client's `DeriveTokenWithJWT` and
 * `RevokeTokens`): shared by the task hook (discovery-token.ts) and the services' tokens
 * (services/service-tokens.ts). Tokens are never logged; only their accessor is.
 *
 * @module
 */
import { MeshApiError, MeshClient, type MeshToken } from '../../../sdk/index.js';
import { ServerError } from './server-api.js';

/** Time limit of one call to the discovery service, in ms. */
const CALL_TIMEOUT_MS = 10_000;

/** A client of the discovery agent at `address` sending `token` (none: anonymous). */
function meshAt(address: string, token?: string): MeshClient {
  return new MeshClient({ address, ...(token !== undefined && { token }), timeoutMs: CALL_TIMEOUT_MS });
}

/**
 * Whether `err` is final: the discovery service or the servers answered a 4xx other than 429
 * (no binding rule matched, a bad audience, an unknown auth method or identity). Anything
 * else (refused, reset, timeout, 5xx, 429) is transient and worth retrying.
 */
export function finalError(err: unknown): boolean {
  const status = err instanceof MeshApiError || err instanceof ServerError ? err.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 429;
}

/**
 * `POST /v1/acl/login` at `authMethod` with the workload's `jwt`; `meta` is kept on the token
 * (`requested_by`, as the reference's). @throws MeshApiError (403: refused) or a connection error.
 */
export async function login(
  address: string,
  o: { readonly authMethod: string; readonly jwt: string; readonly meta: Record<string, string> },
): Promise<MeshToken> {
  const mesh = meshAt(address);
  try {
    return await mesh.login({ AuthMethod: o.authMethod, BearerToken: o.jwt, Meta: o.meta });
  } finally {
    await mesh.close();
  }
}

/** Whether `secret` is still a token of the discovery service (`GET /v1/acl/token/self`): false for 403/404; @throws a transient error. */
export async function stillValid(address: string, secret: string): Promise<boolean> {
  const mesh = meshAt(address, secret);
  try {
    await mesh.tokens.readSelf();
    return true;
  } catch (err) {
    if (finalError(err)) return false;
    throw err;
  } finally {
    await mesh.close();
  }
}

/** `POST /v1/acl/logout` with `secret`; an unknown token is already gone. @throws a transient error. */
export async function logout(address: string, secret: string): Promise<void> {
  const mesh = meshAt(address, secret);
  try {
    await mesh.logout(secret);
  } catch (err) {
    if (!finalError(err)) throw err;
  } finally {
    await mesh.close();
  }
}
