/**
 * Wire shapes of the secrets service API used by `SecretsClient`
 * (`reference/secrets.md` §1.3).
 *
 * @module
 */

/** The `auth` block of token-issuing responses (`reference/secrets.md` §1.3). */
export interface SecretAuth {
  client_token: string;
  accessor: string;
  policies: string[] | null;
  token_policies?: string[] | null;
  identity_policies?: string[] | null;
  metadata: Record<string, string> | null;
  /** Token lifetime in seconds; 0 means no expiry. */
  lease_duration: number;
  renewable: boolean;
  entity_id: string;
  token_type: string;
  orphan: boolean;
  num_uses: number;
  [extra: string]: unknown;
}

/** `wrap_info` of a response-wrapped answer. */
export interface WrapInfo {
  token: string;
  accessor: string;
  /** Seconds. */
  ttl: number;
  creation_time: string;
  creation_path: string;
  wrapped_accessor?: string;
}

/**
 * The response envelope of every logical endpoint answering with a body (`reference/secrets.md` §1.3).
 * `T` is the shape of `data`. Some `sys/` routes also copy `data` keys to the top level.
 */
export interface SecretResponse<T = Record<string, unknown>> {
  request_id: string;
  lease_id: string;
  renewable: boolean;
  /** Seconds. */
  lease_duration: number;
  data: T | null;
  wrap_info: WrapInfo | null;
  warnings: string[] | null;
  auth: SecretAuth | null;
  /** Engine type of the mount that answered (`kv`, `system`, `token`, …); absent on some servers. */
  mount_type?: string;
}

/** Query parameters; arrays become repeated parameters, `undefined` values are left out. */
export type QueryParams = Record<string, string | number | boolean | readonly (string | number)[] | undefined>;

/** Input of {@link SecretsClient.raw}. */
export interface RawRequestOptions {
  query?: QueryParams;
  /** Serialised as JSON when not `undefined`. */
  body?: unknown;
  /** Extra headers; they override the client's own (token, namespace) on equal names. */
  headers?: Record<string, string>;
}

/** Output of {@link SecretsClient.raw}: the HTTP answer as it came. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the body is JSON, the text otherwise, `undefined` when empty. */
  body: unknown;
}
