/**
 * Typed helper for the token auth method (`auth/token/…`, `reference/secrets.md` §4.1).
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import type { SecretAuth, SecretResponse } from './secrets-types.js';

/** Options of {@link TokenClient.create}; every field is optional and sent only when set. */
export interface TokenCreateOptions {
  /** Policies of the new token; must be a subset of the caller's unless it is root. */
  policies?: string[];
  /** Lifetime: duration string (`"1h"`, `"30m"`) or seconds. */
  ttl?: string | number;
  /** Hard upper bound on the lifetime including renewals: duration string or seconds. */
  explicitMaxTtl?: string | number;
  /** Periodic token: renewable forever by this period (duration string or seconds). */
  period?: string | number;
  /** Shown in audit and lookup (default `token`). */
  displayName?: string;
  /** Free-form string pairs kept with the token. */
  meta?: Record<string, string>;
  /** Create an orphan token (no parent; survives revocation of the caller). */
  noParent?: boolean;
  /** Do not attach the `default` policy. */
  noDefaultPolicy?: boolean;
  /** Whether the token can be renewed (server default: true). */
  renewable?: boolean;
  /** Number of requests the token may make; 0 = unlimited. */
  numUses?: number;
  /** `service` (default) or `batch`. */
  type?: 'service' | 'batch';
  /** Choose the token ID (root callers only). */
  id?: string;
}

/** `data` of a token lookup (`reference/secrets.md` §4.1). */
export interface TokenLookupData {
  accessor: string;
  /** Unix seconds. */
  creation_time: number;
  /** Seconds. */
  creation_ttl: number;
  display_name: string;
  entity_id: string;
  /** RFC 3339, or `null` for tokens that never expire. */
  expire_time: string | null;
  explicit_max_ttl: number;
  id: string;
  meta: Record<string, string> | null;
  num_uses: number;
  orphan: boolean;
  path: string;
  policies: string[];
  renewable: boolean;
  /** Remaining lifetime in seconds; 0 = no expiry. */
  ttl: number;
  type: string;
  [extra: string]: unknown;
}

function body(options: TokenCreateOptions): Record<string, unknown> {
  const mapped: Record<string, unknown> = {
    policies: options.policies,
    ttl: options.ttl,
    explicit_max_ttl: options.explicitMaxTtl,
    period: options.period,
    display_name: options.displayName,
    meta: options.meta,
    no_parent: options.noParent,
    no_default_policy: options.noDefaultPolicy,
    renewable: options.renewable,
    num_uses: options.numUses,
    type: options.type,
    id: options.id,
  };
  return Object.fromEntries(Object.entries(mapped).filter(([, v]) => v !== undefined));
}

/**
 * Token endpoints. Methods throw `SecretsApiError` on statuses ≥ 400 (403 for a missing,
 * unknown or expired token) and `SecretsConnectionError` without an answer.
 */
export class TokenClient {
  constructor(private readonly client: SecretsTransport) {}

  /** Creates a child token (`POST auth/token/create`) and returns its `auth` block (`client_token`, `accessor`, …). */
  async create(options: TokenCreateOptions = {}): Promise<SecretAuth> {
    const res = await this.createEnvelope(options);
    if (!res?.auth) throw new Error('auth/token/create returned no auth block');
    return res.auth;
  }

  /** Like {@link create} but returns the whole envelope (with `warnings`, e.g. for unknown policies). */
  createEnvelope(options: TokenCreateOptions = {}): Promise<SecretResponse<null> | undefined> {
    return this.client.write<null>('auth/token/create', body(options));
  }

  /**
   * Looks up `token`, or the client's own token when absent (`GET auth/token/lookup-self`;
   * otherwise `POST auth/token/lookup {"token":…}`). Returns the envelope; its `data` is the token's state.
   */
  async lookup(token?: string): Promise<SecretResponse<TokenLookupData>> {
    const res =
      token === undefined
        ? await this.client.read<TokenLookupData>('auth/token/lookup-self')
        : await this.client.write<TokenLookupData>('auth/token/lookup', { token });
    if (!res) throw new Error('token lookup returned no data');
    return res;
  }

  /**
   * Renews the client's own token (`POST auth/token/renew-self`) by `increment` (seconds or a
   * duration; absent: its creation TTL), capped at its maximum TTL. Returns the `auth` block
   * (`lease_duration` in seconds: what is left after the renewal).
   * @throws SecretsApiError 400 `token is not renewable`; 403 for a token expired or revoked.
   */
  async renewSelf(increment?: string | number): Promise<SecretAuth> {
    const res = await this.client.write<null>('auth/token/renew-self', increment === undefined ? {} : { increment });
    if (!res?.auth) throw new Error('auth/token/renew-self returned no auth block');
    return res.auth;
  }

  /** Revokes the client's own token and its children (`POST auth/token/revoke-self`, 204). */
  async revokeSelf(): Promise<void> {
    await this.client.write('auth/token/revoke-self');
  }
}
