/**
 * Typed helper for logging in to auth methods (`auth/<mount>/login…`,
 * `reference/secrets.md` §4.2). Login requests carry no token.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import type { SecretResponse } from './secrets-types.js';

const trimSlashes = (path: string) => path.replace(/^\/+|\/+$/g, '');

/**
 * Logins. Methods throw `SecretsApiError` on statuses ≥ 400 (400 `invalid username or
 * password` / `invalid role or secret ID`) and `SecretsConnectionError` without an answer.
 */
export class AuthClient {
  /** @param client The connection the requests go through (its namespace applies; its token is not sent). */
  constructor(private readonly client: SecretsTransport) {}

  /**
   * `POST auth/<path>` with `body`, without a token. `path` is the login path below `auth/`
   * (`userpass/login/alice`, `approle/login`; a leading `auth/` is accepted too).
   * Returns the envelope; its `auth` block holds `client_token`.
   *
   * @throws Error when the answer has no `auth` block.
   */
  async login(path: string, body: Record<string, unknown>): Promise<SecretResponse<unknown>> {
    const rel = trimSlashes(path).replace(/^auth\//, '');
    const res = await this.client.withToken(undefined).write<unknown>(`auth/${rel}`, body);
    if (!res?.auth) throw new Error(`auth/${rel} returned no auth block`);
    return res;
  }

  /** Userpass login at `mount` (default `userpass`): `POST auth/<mount>/login/<username> {"password"}`. */
  userpass(username: string, password: string, mount = 'userpass'): Promise<SecretResponse<unknown>> {
    return this.login(`${trimSlashes(mount)}/login/${username}`, { password });
  }

  /** AppRole login at `mount` (default `approle`): `POST auth/<mount>/login {"role_id","secret_id"}`. */
  approle(roleId: string, secretId: string | undefined, mount = 'approle'): Promise<SecretResponse<unknown>> {
    const body: Record<string, unknown> = { role_id: roleId };
    if (secretId !== undefined) body.secret_id = secretId;
    return this.login(`${trimSlashes(mount)}/login`, body);
  }

  /**
   * JWT login at `mount` (default `jwt`): `POST auth/<mount>/login {"role","jwt"}`; an
   * empty `role` means the mount's `default_role`. 400 `error validating token: …` for a
   * token that does not verify.
   */
  jwt(role: string | undefined, jwt: string, mount = 'jwt'): Promise<SecretResponse<unknown>> {
    const body: Record<string, unknown> = { jwt };
    if (role) body.role = role;
    return this.login(`${trimSlashes(mount)}/login`, body);
  }

  /**
   * TLS certificate login at `mount` (default `cert`): `POST auth/<mount>/login {"name"}`,
   * the credential being the client certificate this client presents (its `clientCert` and
   * `clientKey` options, or `SECRETS_CLIENT_CERT` / `SECRETS_CLIENT_KEY`). `name` limits
   * the login to one trusted certificate entry; empty = any that matches. 400
   * `client certificate must be supplied`, `invalid certificate or no client certificate
   * supplied`, `no chain matching all constraints could be found for this login certificate`.
   */
  cert(name?: string, mount = 'cert'): Promise<SecretResponse<unknown>> {
    return this.login(`${trimSlashes(mount)}/login`, name ? { name } : {});
  }

  /**
   * Starts an OIDC browser login at `mount` (default `oidc`): `POST auth/<mount>/oidc/auth_url`
   * without a token. Returns the provider URL to open. 400 `unauthorized redirect_uri: …`
   * when the role does not allow `redirectUri`.
   */
  async oidcAuthUrl(o: { role?: string; redirectUri: string; clientNonce?: string }, mount = 'oidc'): Promise<string> {
    const body: Record<string, unknown> = { redirect_uri: o.redirectUri };
    if (o.role) body.role = o.role;
    if (o.clientNonce) body.client_nonce = o.clientNonce;
    const res = await this.client.withToken(undefined).write<{ auth_url: string }>(`auth/${trimSlashes(mount)}/oidc/auth_url`, body);
    const url = res?.data?.auth_url;
    if (!url) throw new Error(`auth/${trimSlashes(mount)}/oidc/auth_url returned no auth_url`);
    return url;
  }

  /**
   * Completes an OIDC browser login: `POST auth/<mount>/oidc/callback {state, code, client_nonce}`
   * with the provider's redirect parameters, without a token (POST rather than the
   * reference CLI's GET, so that HA standbys forward it to the active server, which holds
   * the state). Returns the login envelope.
   * 400 `Provider login failed: Expired or missing OAuth state.` for an unknown or used state.
   */
  async oidcCallback(o: { state: string; code: string; clientNonce?: string }, mount = 'oidc'): Promise<SecretResponse<unknown>> {
    const body: Record<string, unknown> = { state: o.state, code: o.code };
    if (o.clientNonce) body.client_nonce = o.clientNonce;
    return this.login(`${trimSlashes(mount)}/oidc/callback`, body);
  }
}
