/**
 * Typed helper for logging in to auth methods (`auth/<mount>/login…`,
 * `reference/secrets.md` §4.2). Login requests carry no token.
 *
 * @module
 */
import type { SecretsClient } from './secrets.js';
import type { SecretResponse } from './secrets-types.js';

const trimSlashes = (path: string) => path.replace(/^\/+|\/+$/g, '');

/**
 * Logins. Methods throw `SecretsApiError` on statuses ≥ 400 (400 `invalid username or
 * password` / `invalid role or secret ID`) and `SecretsConnectionError` without an answer.
 */
export class AuthClient {
  /** @param client The connection the requests go through (its namespace applies; its token is not sent). */
  constructor(private readonly client: SecretsClient) {}

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
}
