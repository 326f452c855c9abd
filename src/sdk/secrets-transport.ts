/**
 * What the secrets sub-clients (secrets-kv.ts, secrets-sys.ts, …) call on the client that
 * makes them (secrets.ts `SecretsClient`; see its members for the behaviour and errors).
 * Named here so that the sub-clients do not import the module that imports them.
 *
 * @module
 */
import type { QueryParams, RawRequestOptions, RawResponse, SecretResponse } from './secrets-types.js';

/** See the module doc. */
export interface SecretsTransport {
  /** `GET /v1/<path>`; `undefined` when nothing is there. */
  read<T = Record<string, unknown>>(path: string, query?: QueryParams): Promise<SecretResponse<T> | undefined>;
  /** `POST /v1/<path>` with `body` as JSON. */
  write<T = Record<string, unknown>>(path: string, body?: unknown): Promise<SecretResponse<T> | undefined>;
  /** The keys under `path`; `undefined` when nothing is there. */
  list(path: string): Promise<SecretResponse<{ keys: string[] }> | undefined>;
  /** `DELETE /v1/<path>`. */
  delete(path: string, query?: QueryParams): Promise<SecretResponse | undefined>;
  /** Any method on `/v1/<path>`, the answer whatever its status. */
  raw(method: string, path: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** The same server with another token (`undefined`: none). */
  withToken(token: string | undefined): SecretsTransport;
  /** The same server asking for response wrapping with TTL `ttl` (seconds or a duration). */
  withWrapTtl(ttl: string | number | undefined): SecretsTransport;
  /** Whether requests carry a token. */
  readonly hasToken: boolean;
}
