/**
 * Output in the reference CLI's table style: `Key`/`Value` columns joined by four spaces,
 * `n/a` for empty cells, Go `%v` rendering of values, `== Title ==` section headers.
 *
 * @module
 */
import type { SecretResponse } from '../sdk/index.js';

/** Renders a value as Go's `%v` would: `[a b]`, `map[k:v]`, `<nil>`. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(formatValue).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, v]) => `${k}:${formatValue(v)}`).join(' ')}]`;
  }
  return String(value);
}

/** Go's `%q` of a string slice: `["a" "b"]`; `[]` for none. */
function quotedList(values: readonly string[] | null | undefined): string {
  return `[${(values ?? []).map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** Seconds as the reference prints durations: `768h`, `1h30m`, `45s`, `0s`. */
function humanDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  let out = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
  if (out.endsWith('m0s')) out = out.slice(0, -2);
  const i = out.indexOf('h0m');
  if (i > 0) out = out.slice(0, i + 1) + out.slice(i + 3);
  return out;
}

/**
 * Aligned columns; the first row is the header, followed by a dashed rule.
 * Empty cells print as `n/a`; the last column is not padded.
 */
export function columns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, header.map((h) => '-'.repeat(h.length)), ...rows].map((r) => r.map((c) => (c === '' ? 'n/a' : c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 4))).join('')).join('\n');
}

/** A `Key`/`Value` table of `data`, keys sorted. */
export function keyValueTable(data: Record<string, unknown>): string {
  const keys = Object.keys(data).sort();
  return columns(
    ['Key', 'Value'],
    keys.map((k) => [k, formatValue(data[k])]),
  );
}

/** `======= Title =======`, as wide as a `Key`/`Value` table of keys `keys` (reference `getHeaderForMap`). */
export function sectionHeader(title: string, keys: readonly string[]): string {
  const total = Math.max(0, ...keys.map((k) => k.length)) + 4 + 5;
  let signs = total - (title.length + 2);
  if (signs <= 0) signs = 4;
  if (signs % 2 !== 0) signs += 1;
  const side = '='.repeat(signs / 2);
  return `${side} ${title} ${side}`;
}

/** The rows the reference prints for an envelope: lease, auth block, wrap info, then sorted `data`. */
function secretRows(secret: SecretResponse<unknown>): string[][] {
  const rows: string[][] = [];
  if (secret.lease_duration > 0) {
    if (secret.lease_id) {
      rows.push(['lease_id', secret.lease_id], ['lease_duration', humanDuration(secret.lease_duration)], ['lease_renewable', String(secret.renewable)]);
    } else {
      rows.push(['refresh_interval', humanDuration(secret.lease_duration)]);
    }
  }
  const auth = secret.auth;
  if (auth) {
    rows.push(
      ['token', auth.client_token],
      ['token_accessor', auth.accessor],
      ['token_duration', auth.lease_duration === 0 ? '∞' : humanDuration(auth.lease_duration)],
      ['token_renewable', String(auth.renewable)],
      ['token_policies', quotedList(auth.token_policies ?? auth.policies)],
      ['identity_policies', quotedList(auth.identity_policies)],
      ['policies', quotedList(auth.policies)],
    );
    for (const [k, v] of Object.entries(auth.metadata ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) rows.push([`token_meta_${k}`, formatValue(v)]);
  }
  const wrap = secret.wrap_info;
  if (wrap) {
    rows.push(
      ['wrapping_token:', wrap.token],
      ['wrapping_accessor:', wrap.accessor],
      ['wrapping_token_ttl:', humanDuration(wrap.ttl)],
      ['wrapping_token_creation_time:', wrap.creation_time],
      ['wrapping_token_creation_path:', wrap.creation_path],
    );
    if (wrap.wrapped_accessor) rows.push(['wrapped_accessor:', wrap.wrapped_accessor]);
  }
  const data = secret.data;
  if (data && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    for (const k of Object.keys(record).sort()) rows.push([k, formatValue(record[k])]);
  }
  return rows;
}

/** The table for an envelope, or `""` when it has nothing to show. */
export function secretTable(secret: SecretResponse<unknown>): string {
  const rows = secretRows(secret);
  return rows.length === 0 ? '' : columns(['Key', 'Value'], rows);
}

/** The lines the reference prints to stderr for `warnings`; none when there are none. */
export function warningLines(warnings: readonly string[] | null | undefined): string[] {
  if (!warnings || warnings.length === 0) return [];
  return ['WARNING! The following warnings were returned from the server:', '', ...warnings.map((w) => `  * ${w}`), ''];
}

/**
 * A field of an envelope as `-field=NAME` prints it: auth fields by their table names
 * (`token`, `token_accessor`, …), wrap info fields (`wrapping_token`, …), a lease's
 * (`lease_id`, `lease_duration`, `lease_renewable`) or a key of `data`. Strings come out raw,
 * other values as JSON.
 * Returns `undefined` when there is no such field.
 */
export function fieldOf(secret: SecretResponse<unknown>, field: string, data?: Record<string, unknown> | null): string | undefined {
  const auth = secret.auth;
  const authFields: Record<string, unknown> = auth
    ? {
        token: auth.client_token,
        token_accessor: auth.accessor,
        token_duration: auth.lease_duration === 0 ? '∞' : humanDuration(auth.lease_duration),
        token_renewable: auth.renewable,
        token_policies: auth.token_policies ?? auth.policies,
        identity_policies: auth.identity_policies ?? [],
        policies: auth.policies,
      }
    : {};
  const wrap = secret.wrap_info;
  // As the reference CLI: `-field=wrapping_token` prints the token of a wrapped reply.
  if (wrap) {
    Object.assign(authFields, {
      wrapping_token: wrap.token,
      wrapping_accessor: wrap.accessor,
      wrapping_token_ttl: humanDuration(wrap.ttl),
      wrapping_token_creation_time: wrap.creation_time,
      wrapping_token_creation_path: wrap.creation_path,
      ...(wrap.wrapped_accessor ? { wrapped_accessor: wrap.wrapped_accessor } : {}),
    });
  }
  // A leased secret's lease fields, by their table names (as the reference CLI's `-field`).
  const leaseFields: Record<string, unknown> = secret.lease_id
    ? { lease_id: secret.lease_id, lease_duration: secret.lease_duration, lease_renewable: secret.renewable }
    : {};
  const source = data === undefined ? (secret.data as Record<string, unknown> | null) : data;
  let value: unknown;
  if (field in authFields) value = authFields[field];
  else if (field in leaseFields) value = leaseFields[field];
  else if (source && Object.prototype.hasOwnProperty.call(source, field)) value = source[field];
  else return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** JSON as the reference's `-format=json` prints it: two-space indent. */
export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null, null, 2);
}
