/**
 * The token settings every login-capable auth method stores per user or role
 * (`token_policies`, `token_ttl`, `token_max_ttl`, `token_period`, `token_bound_cidrs`;
 * the reference's `tokenutil` fields, reference/secrets.md §4.2) and the TTLs a login
 * token gets from them. Pure functions: no storage, no HTTP.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, commaList } from '../../../kernel/http/index.js';
import { parseCidrList } from '../../../kernel/util/cidr.js';
import { formatDuration, InputError, hasField, parseDuration } from '../../../kernel/util/duration.js';
import { DEFAULT_LEASE_TTL_S } from '../mounts/table.js';

/** Token settings of one user or role. Durations in seconds; 0 = use the mount default. */
export interface TokenSettings {
  /** Sanitised policy names (trimmed, lower-case, sorted, unique); never `root`. */
  token_policies: string[];
  token_ttl: number;
  token_max_ttl: number;
  /**
   * Non-zero: login tokens are periodic, each renewal resetting their TTL to this many
   * seconds with no maximum lifetime. Absent in entries stored before it existed (= 0).
   */
  token_period?: number;
  /** Blocks from which login tokens may be used (403 elsewhere); absent or empty = anywhere. */
  token_bound_cidrs?: string[];
}

/** Settings of a user or role that was created without any token field. */
export const EMPTY_TOKEN_SETTINGS: Readonly<TokenSettings> = Object.freeze({
  token_policies: [],
  token_ttl: 0,
  token_max_ttl: 0,
  token_period: 0,
  token_bound_cidrs: [],
});

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string ("1h30m"); 0 = the mount default' });

/** Field schemas of the token settings, for a route's `fields`. */
export const TOKEN_FIELDS = {
  token_policies: CommaList('policies of the tokens issued at login (`default` is always added)'),
  policies: CommaList('deprecated alias of token_policies'),
  token_ttl: { ...Duration, description: 'TTL of the tokens issued at login; 0 = the mount default (768h)' },
  token_max_ttl: { ...Duration, description: 'maximum lifetime of the tokens issued at login, renewals included; 0 = the mount maximum' },
  token_period: {
    ...Duration,
    description: 'if set, login tokens are periodic: every renewal resets their TTL to this value and they have no maximum lifetime',
  },
  token_bound_cidrs: CommaList('CIDR blocks from which the tokens issued at login may be used; empty = anywhere'),
};

/**
 * `["a","B"]` or `"a, B"` → `["a","b"]`: trimmed, lower-cased, unique, sorted (the
 * reference sanitises policy names this way). Errors: {@link InputError} naming `field`
 * when `root` is listed (auth methods cannot create root tokens).
 */
export function parsePolicies(v: unknown, field: string): string[] {
  const names = [...new Set(commaList(v).map((s) => s.toLowerCase()))].sort();
  if (names.includes('root')) throw new InputError(`${field}: the root policy cannot be assigned by an auth method`);
  return names;
}

/**
 * Applies the token fields present in `data` (validated request input) to `current`
 * and returns the new settings; absent fields keep their value. `period` (declared by
 * AppRole roles only) is the deprecated alias of `token_period`. Errors (400 naming the
 * field): both `policies` and `token_policies` (or `period` and `token_period`) given,
 * `root` listed, a negative or unparsable duration, `token_ttl` above a non-zero
 * `token_max_ttl`, a `token_bound_cidrs` item that is not a CIDR block.
 */
export function applyTokenFields(data: Readonly<Record<string, unknown>>, current: Readonly<TokenSettings> = EMPTY_TOKEN_SETTINGS): TokenSettings {
  if (hasField(data, 'policies') && hasField(data, 'token_policies'))
    throw new InputError('policies: cannot be given together with token_policies (it is an alias)');
  if (hasField(data, 'period') && hasField(data, 'token_period')) throw new InputError('period: cannot be given together with token_period (it is an alias)');
  const next: TokenSettings = { ...current, token_policies: [...current.token_policies] };
  for (const f of ['token_policies', 'policies'] as const) {
    if (hasField(data, f)) next.token_policies = parsePolicies(data[f], f);
  }
  for (const f of ['token_ttl', 'token_max_ttl', 'token_period', 'period'] as const) {
    if (!hasField(data, f)) continue;
    const s = parseDuration(data[f], f);
    if (s < 0) throw new InputError(`${f}: must not be negative`);
    next[f === 'period' ? 'token_period' : f] = s;
  }
  if (hasField(data, 'token_bound_cidrs')) next.token_bound_cidrs = parseCidrList(data.token_bound_cidrs, 'token_bound_cidrs');
  if (next.token_max_ttl && next.token_ttl > next.token_max_ttl) throw new InputError('token_ttl: must not be greater than token_max_ttl');
  return next;
}

/** The wire shape of token settings in a user or role read (`policies` mirrors `token_policies`). */
export function tokenSettingsView(s: Readonly<TokenSettings>): Record<string, unknown> {
  return {
    token_policies: [...s.token_policies],
    policies: [...s.token_policies],
    token_ttl: s.token_ttl,
    token_max_ttl: s.token_max_ttl,
    token_period: s.token_period ?? 0,
    token_bound_cidrs: [...(s.token_bound_cidrs ?? [])],
  };
}

/** A mount's lease settings in seconds (0 = the system default of 768h). */
export interface LeaseConfig {
  readonly default_lease_ttl: number;
  readonly max_lease_ttl: number;
}

/**
 * TTLs of a login token, in seconds (reference/secrets.md §4.1 defaults): the maximum is
 * `token_max_ttl`, else the mount's `max_lease_ttl`, else 768h; the TTL is `token_ttl`,
 * else the mount's `default_lease_ttl`, else 768h, capped by that maximum. A periodic
 * token (`token_period` set) gets the period as its TTL and no maximum (`maxTtlS` 0), as
 * the reference's periodic tokens; a period longer than the effective maximum (the
 * mount's `max_lease_ttl` or 768h, lowered by `token_max_ttl`) is capped to it with the
 * reference's warning (Vault `framework.CalculateTTL`: `period of "…" exceeded the
 * effective max_ttl of "…"; period value is capped accordingly`).
 */
export function loginTtls(s: Readonly<TokenSettings>, mount: LeaseConfig): { ttlS: number; maxTtlS: number; periodS?: number; warning?: string } {
  if (s.token_period) {
    const effectiveMax = Math.min(mount.max_lease_ttl || DEFAULT_LEASE_TTL_S, s.token_max_ttl || Infinity);
    if (s.token_period <= effectiveMax) return { ttlS: s.token_period, maxTtlS: 0, periodS: s.token_period };
    const warning = `period of ${JSON.stringify(formatDuration(s.token_period))} exceeded the effective max_ttl of ${JSON.stringify(formatDuration(effectiveMax))}; period value is capped accordingly`;
    return { ttlS: effectiveMax, maxTtlS: 0, periodS: effectiveMax, warning };
  }
  const maxTtlS = s.token_max_ttl || mount.max_lease_ttl || DEFAULT_LEASE_TTL_S;
  const ttlS = Math.min(s.token_ttl || mount.default_lease_ttl || DEFAULT_LEASE_TTL_S, maxTtlS);
  return { ttlS, maxTtlS };
}
