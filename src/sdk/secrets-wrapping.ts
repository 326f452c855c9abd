/**
 * Response wrapping (`sys/wrapping/*`) and the token-private `cubbyhole/` engine
 * (`reference/secrets.md` §1.3; the reference's wrapping API). To receive any response
 * wrapped, use a client made by `SecretsClient.withWrapTtl` (or the `wrapTtl` option):
 * its replies carry only `wrap_info`.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import type { SecretResponse, WrapInfo } from './secrets-types.js';

/** What `sys/wrapping/lookup` shows of a wrapping token. */
export interface WrappingLookup {
  creation_path: string;
  /** RFC 3339. */
  creation_time: string;
  /** Seconds. */
  creation_ttl: number;
}

/**
 * The wrapping endpoints. Methods throw `SecretsApiError` on statuses ≥ 400 (400
 * `wrapping token is not valid or does not exist` for an unknown, used or expired token)
 * and `SecretsConnectionError` without an answer.
 */
export class WrappingClient {
  /** @param client The connection the requests go through (its token and namespace apply). */
  constructor(private readonly client: SecretsTransport) {}

  /**
   * Wraps `data` (any JSON object) in a new wrapping token living `ttl` (seconds, or a
   * duration such as `"5m"`); returns its `wrap_info` (`POST sys/wrapping/wrap`).
   */
  async wrap(data: Record<string, unknown>, ttl: string | number): Promise<WrapInfo> {
    return wrapInfoOf(await this.client.withWrapTtl(ttl).write('sys/wrapping/wrap', data));
  }

  /**
   * Returns the response wrapped in `token`, once (`POST sys/wrapping/unwrap`): the
   * envelope exactly as it would have come unwrapped (`data`, or `auth` for a wrapped
   * login or token). Without `token`, the client's own token is the wrapping token. Like
   * the reference's client, a client without a token sends `token` as its request token
   * (the wrapping token may unwrap itself), and otherwise in the body.
   */
  async unwrap<T = Record<string, unknown>>(token?: string): Promise<SecretResponse<T> | undefined> {
    if (token === undefined || !this.client.hasToken) return (token ? this.client.withToken(token) : this.client).write<T>('sys/wrapping/unwrap', {});
    return this.client.write<T>('sys/wrapping/unwrap', { token });
  }

  /** The creation path, time and TTL of wrapping token `token`, without using it (`POST sys/wrapping/lookup`, unauthenticated). */
  async lookup(token: string): Promise<WrappingLookup> {
    const res = await this.client.write<WrappingLookup>('sys/wrapping/lookup', { token });
    if (!res?.data) throw new Error('sys/wrapping/lookup returned no data');
    return res.data;
  }

  /** Moves what `token` holds to a new wrapping token with the same creation TTL; the old one stops working (`POST sys/wrapping/rewrap`). */
  async rewrap(token: string): Promise<WrapInfo> {
    return wrapInfoOf(await this.client.write('sys/wrapping/rewrap', { token }));
  }
}

function wrapInfoOf(res: SecretResponse<unknown> | undefined): WrapInfo {
  if (!res?.wrap_info) throw new Error('the server returned no wrap_info');
  return res.wrap_info;
}

const clean = (path: string) => path.replace(/^\/+|\/+$/g, '');

/**
 * The calling token's cubbyhole (`cubbyhole/<path>`): storage no other token can read,
 * deleted with the token. Methods throw `SecretsApiError` on statuses ≥ 400.
 */
export class CubbyholeClient {
  /** @param client The connection the requests go through: its token owns the cubbyhole. */
  constructor(private readonly client: SecretsTransport) {}

  /** The data at `path`, or `undefined` when there is none. */
  async read(path: string): Promise<Record<string, unknown> | undefined> {
    return (await this.client.read(`cubbyhole/${clean(path)}`))?.data ?? undefined;
  }

  /** Replaces the data at `path` with `data` (a non-empty JSON object). */
  async write(path: string, data: Record<string, unknown>): Promise<void> {
    await this.client.write(`cubbyhole/${clean(path)}`, data);
  }

  /** Keys under `path` (folders end in `/`); empty when there are none. */
  async list(path = ''): Promise<string[]> {
    return (await this.client.list(`cubbyhole/${clean(path)}`))?.data?.keys ?? [];
  }

  /** Deletes the data at `path`; no error when there is none. */
  async delete(path: string): Promise<void> {
    await this.client.delete(`cubbyhole/${clean(path)}`);
  }
}
